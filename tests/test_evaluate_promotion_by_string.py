"""A promotion named by a string: ``--=T``, T a string filter (a variable, a function's parameter,
a capture ``\\0``), as babson1.cql and babson2.cql write it.

The reference engine compares a promotion's piece type only (``--=N`` also finds ...=n by
Black); T names the type by its letter in either case, evaluated at the position the move is
made from. A value that is no promotion type (``"K"``) names no move. Positions are spelled out
(pre-order, child 0 the main continuation); each case runs on both engines with variations.
"""

from __future__ import annotations

import pytest

from cqlindex.exec.run import run
from tests.conftest import build_inline

GAMES = {
    # 0 start, 1 a8=Q, 2 h1=R (check), 3 Ke2; 4 h1=Q (beside 1...h1=R); 5 a8=N (beside 1.a8=Q).
    "promotions": ('[SetUp "1"]\n[FEN "8/P7/8/7k/8/8/7p/4K3 w - - 0 1"]\n',
                   "1. a8=Q (1. a8=N) 1... h1=R (1... h1=Q) 2. Ke2 *"),
}


@pytest.fixture(scope="module")
def dbs(tmp_path_factory) -> dict[str, object]:
    return build_inline(tmp_path_factory.mktemp("promotion"), GAMES)


CASES = [
    ('T = "Q" --=T', [0, 1]),  # a8=Q from 0, h1=Q from 1
    ('T = "N" --=T', [0]),
    ('T = "R" --=T', [1]),
    ('T = "r" --=T', [1]),  # the type, whatever the case of its letter
    ('T = "B" --=T', []),
    ('T = "K" --=T', []),  # no promotion type: no move
    ('T = "Q" P--=T', [0]),
    ('T = "Q" p--=T', [1]),
    ('T = "Q" path P--=T p--=T', [0]),
    ('T = "N" path P--=T p--=T', []),  # after a8=N the game stops
    ('function F(T) {--=T} F("R")', [1]),
    ('x = 0 while ("QRBN" ~~ ".") {--=\\0 x += 1} x == 2', [0, 1]),
    ('T = "B" legal p--=T', [1, 5]),  # generated moves: Black may underpromote after either white move
    ('T = "Q" not --=T', [2, 3, 4, 5]),
]


def test_numbering(dbs) -> None:
    assert run(dbs["promotions"], "btm", variations=True).matches == {1: [1, 3, 5]}
    assert run(dbs["promotions"], "mainline", variations=True).matches == {1: [0, 1, 2, 3]}


@pytest.mark.parametrize(("query", "expected"), CASES)
@pytest.mark.parametrize("engine", ["sql", "python"])
def test_case(dbs, query: str, expected: list[int], engine: str) -> None:
    got = run(dbs["promotions"], query, variations=True, engine=engine).matches
    assert got == ({1: expected} if expected else {})
