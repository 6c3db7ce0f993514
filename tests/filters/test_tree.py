"""The game tree and ':': SQL against Python on every position of the filter indexes (see differential.py).

Covers parent child child(n) position currentposition initialposition ancestor descendant lca
distance, each on the left of ':'.
"""

from __future__ import annotations

import pytest

from tests.filters.differential import EXACT, NARROWED, Row, cases, check

TABLE = [
    Row("ancestor(currentposition currentposition)", NARROWED),
    Row("descendant(parent parent)", NARROWED),
    Row("ancestor(parent currentposition)", NARROWED),
    Row("parent : check", EXACT),
    Row("child : mate", EXACT),
    Row("child(1) : mate", EXACT),
    Row("child(0) : check", EXACT),
    Row("position 0 : wtm", EXACT),
    Row("currentposition : K", EXACT),
    Row("initialposition : #A == 16", NARROWED),
    Row("ancestor(initialposition currentposition)", NARROWED),
    Row("descendant(parent currentposition)", NARROWED),
    Row("distance(lca(currentposition initialposition) currentposition) > 70", NARROWED),
    Row("lca(parent currentposition) : check", NARROWED),
    Row("not parent : move from K", EXACT),
    # two positions of one game anywhere in its tree: the line they share, the moves between
    Row("echo (s t) { s < t  s & t == .  distance(s t) >= 4  lca(s t) : wtm }", NARROWED),
    Row("echo (s t) { t < s  distance(t s) == 3  lca(s t) == t }", NARROWED),
]


@pytest.mark.parametrize("row, cell", cases(TABLE))
def test_sql_against_python(filter_indexes, row: Row, cell: tuple[str, bool]) -> None:
    check(filter_indexes, row, cell)
