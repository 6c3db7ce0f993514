"""Position flags and numbers: SQL against Python on every position of the filter indexes (see differential.py).

Covers check mate stalemate wtm btm initial terminal mainline variation ply movenumber depth positionid
gamenumber sidetomove white black true false power light dark the pawn structures file rank
type colortype abs sqrt fen.
"""

from __future__ import annotations

import pytest

from tests.filters.differential import EXACT, NARROWED, Row, cases, check

TABLE = [
    Row("puremate", NARROWED),
    Row("btm modelmate", NARROWED),
    Row("idealmate", NARROWED),
    Row("purestalemate", NARROWED),
    Row("modelstalemate", NARROWED),
    Row("idealstalemate", NARROWED),
    Row("#(A & puremate) >= 2", NARROWED),
    Row("check", EXACT),
    Row("mate", EXACT),
    Row("stalemate", EXACT),
    Row("wtm", EXACT),
    Row("btm", EXACT),
    Row("initial", EXACT),
    Row("terminal", EXACT),
    Row("virtualmainline", NARROWED),
    Row("mainline", EXACT),
    Row("variation", EXACT),
    Row("ply > 60", EXACT),
    Row("movenumber == 12", EXACT),
    Row("depth >= 2", EXACT),
    Row("positionid <= 3", EXACT),
    Row("gamenumber == 7", EXACT),
    Row("sidetomove == white", EXACT),
    Row("sidetomove == black", EXACT),
    Row("white == 1", EXACT),
    Row("black == -1", EXACT),
    Row("true", EXACT),
    Row("false", EXACT),
    Row("power A > power a + 3", EXACT),
    Row("power [Qq] >= 18", EXACT),
    Row("power [Kk] == 0", EXACT),  # from the material column: kings weigh nothing
    Row("power [RNk] - power [bp] >= 4", EXACT),
    Row("power Pa-h2 > 6", EXACT),  # on some squares only: bit counts
    Row("light [Bb] == 2", EXACT),
    Row("dark K", EXACT),
    Row("#passedpawns >= 3", NARROWED),
    Row("passedpawns & [Pp]a-h6-7", NARROWED),
    Row("isolatedpawns & p", NARROWED),
    Row("#doubledpawns > 2", NARROWED),
    Row("connectedpawns & P == 0", NARROWED),
    Row("file K > 6", EXACT),
    Row("rank k == 1", EXACT),
    Row("type Qd1 == 5", NARROWED),
    Row("colortype Ra1 == -4", NARROWED),
    Row("abs(#A - #a) > 3", EXACT),
    Row("sqrt(#[Aa]) == 4", NARROWED),
    Row('fen "8/8/8/8/8/8/8/K6k w"', EXACT),
    Row('fen "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R"', EXACT),
    Row("lastgamenumber > 10", NARROWED),
    Row("gamenumber == lastgamenumber", NARROWED),
]


@pytest.mark.parametrize("row, cell", cases(TABLE))
def test_sql_against_python(filter_indexes, row: Row, cell: tuple[str, bool]) -> None:
    check(filter_indexes, row, cell)
