"""Output: SQL against Python on every position of the filter indexes (see differential.py).

Covers sort (min, labelled), comment, ///, message (quiet), echo over mapped squares, and the
header's matchcount, sort matchcount, quiet, silent, matchstring, variations, mainline.
"""

from __future__ import annotations

import pytest

from tests.filters.differential import EXACT, NARROWED, Row, cases, check

TABLE = [
    Row("sort ply check", NARROWED),
    Row('sort min "plies" ply mate', NARROWED),
    Row('sort quiet max "plies" ply mate', NARROWED),
    Row('sort "queens" #[Qq]', NARROWED),
    Row("sort #A >= 3", NARROWED),
    Row('comment "here" check', NARROWED),
    Row('mate comment ("mate, ply " ply)', NARROWED),
    Row("check comment (K)", NARROWED),
    Row("/// a line comment\nmate", NARROWED),
    Row('message ("found") mate', NARROWED),
    Row('message quiet ("ply " ply) mate', NARROWED),
    Row("cql(matchcount 3 10) check", EXACT),
    Row("cql(sort matchcount) check", EXACT),
    Row('cql(quiet) mate comment ("x")', NARROWED),
    Row("cql(silent) mate", EXACT),
    Row("cql(input games.pgn output found.pgn) mate", EXACT),
    Row('cql(matchstring "M") mate', EXACT),
    Row("cql(variations) mate", EXACT),
    Row("cql(mainline) check", EXACT),
    # echo pairs kept by the letters of mapped squares (the columnar engine hashes them per board)
    Row("echo (s t) { s < t  square all x in . piecename x == s:piecename makesquare(9 - file x rank x) }",
        NARROWED),
    Row("echo (s t) { square all x in a-h1-2 typename x == s:typename makesquare(file x 9 - rank x) }", NARROWED),
    Row("echo (s t) { square all x in . s:piecename x == piecename makesquare(file x + 1 rank x) }", NARROWED),
]


@pytest.mark.parametrize("row, cell", cases(TABLE))
def test_sql_against_python(filter_indexes, row: Row, cell: tuple[str, bool]) -> None:
    check(filter_indexes, row, cell)
