"""Game tags: SQL against Python on every position of the filter indexes (see differential.py).

Covers result player elo year event site date eco, and the header's result and gamenumber.
"""

from __future__ import annotations

import pytest

from tests.filters.differential import EXACT, NARROWED, Row, cases, check

TABLE = [
    Row("hhdb prize == 1", NARROWED),
    Row("hhdb TT or hhdb hm", NARROWED),
    Row("result 1-0", EXACT),
    Row("result 0-1", EXACT),
    Row("result 1/2-1/2", EXACT),
    Row("cql(result 1-0) mate", EXACT),
    Row('player "Krug"', EXACT),
    Row('player white "McDonnell"', EXACT),
    Row('player black "Houdini"', EXACT),
    Row("elo white >= 2700", EXACT),
    Row("elo black < 3800", EXACT),
    Row("year >= 1950", EXACT),
    Row("year < 1900", EXACT),
    Row('event "London"', EXACT),
    Row('site "tcec-chess"', EXACT),
    Row('date "2014"', EXACT),
    Row('eco "C2"', EXACT),
    Row("cql(gamenumber 5 40) check", EXACT),
    Row("elo > 2700", EXACT),  # alone: the higher rating the game gives
    Row("elo", EXACT),
    Row("elo > elo black", EXACT),
    Row("player", EXACT),  # alone: both names, on two lines
    Row('player "Ka"', EXACT),
    Row('player == player white + "\\n" + player black', NARROWED),
]


@pytest.mark.parametrize("row, cell", cases(TABLE))
def test_sql_against_python(filter_indexes, row: Row, cell: tuple[str, bool]) -> None:
    check(filter_indexes, row, cell)
