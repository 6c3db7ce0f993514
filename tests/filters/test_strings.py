"""Strings: SQL against Python on every position of the filter indexes (see differential.py).

Game tags and comments are stored, so a comparison of one with a string of the query, ``~~``
with a pattern both engines read alike and ``in`` are decided in SQL; computed strings, the
string functions and patterns only Python reads are left to the evaluator.
"""

from __future__ import annotations

import pytest

from tests.filters.differential import EXACT, NARROWED, Row, cases, check
from tests.filters.reference import RefRow, check_reference, ref_cases

TABLE = [
    Row('eco ~~ "C[0-4]"', EXACT),
    Row('eco ~~ "^B"', EXACT),
    Row('date < "1930"', EXACT),
    Row('date >= "2000" date < "2016"', EXACT),
    Row('"1930" [<] date', EXACT),
    Row('event == "World Championship"', EXACT),
    Row('site != "London"', EXACT),
    Row("event", EXACT),
    Row("eventdate", EXACT),
    Row('eventdate "19"', EXACT),
    Row('player white ~~ "^[A-K]"', EXACT),
    Row('player ~~ "arl"', EXACT),
    Row('player black < player white', EXACT),
    Row('tag "Round" == "1"', EXACT),
    Row('tag "Opening"', EXACT),
    Row('"Bot" in event', EXACT),
    Row("originalcomment", EXACT),
    Row('originalcomment "!"', EXACT),
    Row('hascomment ~~ "[Dd]raw"', EXACT),
    Row('originalcomment ~~ "\\d+"', NARROWED),  # '\d': left to Python's re
    Row('(player white + " " + player black) ~~ "^[A-M]"', NARROWED),
    Row('lowercase event ~~ "world"', NARROWED),
    Row('eco ~~ "(C)(\\d)" \\2 == "4"', NARROWED),
    Row('"RBNQ" ~~ "N" \\-0 == 2 wtm', NARROWED),
    Row('str(K) ~~ "Kg1" check', NARROWED),
    Row('typename to == "N" check', NARROWED),
    Row('piecename e4 == "P"', NARROWED),
    Row('piecename d1 == typename d1 typename d8 != piecename d8', NARROWED),
    Row('piece x in [Aa] piecename x == "n"', NARROWED),
    Row('square all s in a-h2 piecename s > "K"', NARROWED),
    Row('typename k < "L" piecename e4 == "_"', NARROWED),
    Row('x = piecename e2 child : piecename e2 != x', NARROWED),
    Row('piecename [Kk] == "K" or typename Q >= ""', NARROWED),
    Row('pieceid K == 4 move from K', NARROWED),
    Row('piece x in [RrNn] { y = pieceid x  parent : pieceid x == y  pieceid x != 1 }', NARROWED),
    Row('int (eco[1:3]) > 40', NARROWED),
    Row('indexof("-" date) == 4 uppercase "a" == "A"', NARROWED),
    Row('fen ~~ "^8/8" btm', NARROWED),
    Row('ascii "a" == 97 ascii 75 == "K" check', NARROWED),
    Row('hascomment removecomment settag("Annotator" "cqlindex") removetag "Opening"', NARROWED),
]


@pytest.mark.parametrize("row, cell", cases(TABLE))
def test_sql_against_python(filter_indexes, row: Row, cell: tuple[str, bool]) -> None:
    check(filter_indexes, row, cell)


#: Held to the reference engine's answers (tests/filters/reference.py), on both engines.
REFERENCE = [
    # 'tag' takes its name alone: the '~~' (or '+') after it applies to the tag's value (issue 35)
    RefRow('tag "Termination" ~~ "Normal"', "lichess"),
    RefRow('tag "Termination" ~~ "Time" ply > 60', "lichess"),
    RefRow('tag "Termination" + "!" == "Normal!"', "lichess"),
    RefRow('tag "Termination" == "Normal"', "lichess"),
    # the piece names take a set; the '~~' after it is the name's
    RefRow('piecename e1 ~~ "K"'),
    RefRow('typename (K | Q) ~~ "Q" ply < 3'),
    RefRow('(lowercase event) ~~ "ty"'),
    RefRow('lowercase (event ~~ "Moscow") == "moscow"'),
]


@pytest.mark.parametrize("row, engine", ref_cases(REFERENCE))
def test_against_the_reference(build_db, row: RefRow, engine: str) -> None:
    check_reference(build_db, row, engine)
