"""Seed 004 (``:``, seeds/004_e32e0ae3fb0ef82f.txt) with computed positions, and the tree relations.

``position N : F`` evaluates F at the position whose id N computes; ``ancestor``, ``descendant``,
``lca`` and ``distance`` are checked on equal positions (a position is not its own ancestor nor
descendant: the manual's descendant is reached by a *nonempty* sequence of moves, and
``descendant(x y)`` is ``ancestor(y x)``), on related ones and on positions of different
variations. Both engines answer every case.

The game is acceptance/FACTS.md's example: 0 start, 1 e4, 2 e5, 3 Nf3, 4 Nc6, 5 Bb5; 6 d6,
7 d4 (variation of 2...Nc6); 8 c5, 9 Nf3, 10 d6, 11 Nc3, 12 Nc6 (variations of 1...e5); 13 e6, 14 d4.
"""

from __future__ import annotations

import pytest

from cqlindex.exec.run import run
from tests.conftest import build_inline

GAME = "1. e4 e5 (1... c5 2. Nf3 (2. Nc3 Nc6) d6) (1... e6 2. d4) 2. Nf3 Nc6 (2... d6 3. d4) 3. Bb5 *"

# (query evaluated at the initial position, whether it matches there)
CASES = [
    # computed ids
    ("position (1+2) : positionid == 3", True),
    ("x = 2 position (x * 5) : positionid == 10", True),
    ("position 8 : move from N", True),
    ("position 8 : child : move from N", False),
    ("position (7 - 3) : terminal", False),
    # equal positions
    ("ancestor(position 3 position 3)", False),
    ("descendant(position 3 position 3)", False),
    ("ancestor(currentposition currentposition)", False),
    ("lca(position 12 position 12) == position 12", True),
    ("distance(position 12 position 12) == 0", True),
    # related positions
    ("ancestor(position 1 position 7)", True),
    ("descendant(position 7 position 1)", True),
    ("ancestor(position 7 position 1)", False),
    ("ancestor(position 8 position 12)", True),
    ("lca(position 3 position 7) == position 3", True),
    ("distance(position 1 position 7) == 4", True),
    # positions of different variations
    ("ancestor(position 7 position 10)", False),
    ("descendant(position 7 position 10)", False),
    ("lca(position 7 position 10) == position 1", True),
    ("distance(position 7 position 10) == 7", True),
    ("lca(position 12 position 14) == position 1", True),
    ("distance(position 12 position 14) == 5", True),
]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    return build_inline(tmp_path_factory.mktemp("seed004"), {"facts": GAME})["facts"]


@pytest.mark.parametrize("engine", ["python", "sql"])
@pytest.mark.parametrize(("query", "matches"), CASES, ids=[c[0] for c in CASES])
def test_colon_and_tree_relations(db, engine: str, query: str, matches: bool) -> None:
    got = run(db, f"initial {query}", variations=True, engine=engine).matches
    assert got == ({1: [0]} if matches else {})


# A pass in a variation: 0 start, 1 Nf3, 2 d5; 3 the null move (variation of 1. Nf3), 4 e5.
PASS = "1. Nf3 (1. -- e5) d5 *"
# (query, positions matching with variations). The reference reads a null move as the passing
# side's king moving to its own square, seen through ':' from other positions too.
PASS_CASES = [
    ("move from K", [0]),
    ("move to Ke1", [0]),
    ("move from N", [0]),
    ("position 0 : move from K", [0, 1, 2, 3, 4]),
    ("parent : move from K", [1, 3]),
    ("move previous from K", [3]),
    ("move from K to _", []),
    ("move null", [0]),
    ("K--", [0]),
    ("parent : {K--}", [1, 3]),
]


@pytest.fixture(scope="module")
def pass_db(tmp_path_factory):
    return build_inline(tmp_path_factory.mktemp("seed004pass"), {"pass": PASS})["pass"]


@pytest.mark.parametrize("engine", ["python", "sql"])
@pytest.mark.parametrize(("query", "positions"), PASS_CASES, ids=[c[0] for c in PASS_CASES])
def test_a_null_move_is_a_king_move(pass_db, engine: str, query: str, positions: list[int]) -> None:
    got = run(pass_db, query, variations=True, engine=engine).matches
    assert got == ({1: positions} if positions else {})


# virtualmainline: no null move and no alternative to a White move on the way here (Black's
# alternatives stay on it). 0 start, 1 e4, 2 e5, 3 Nf3; 4 c5, 5 Nf3 (Black's alternative to
# 1...e5); 6 d4, 7 d5 (White's alternative to 1.e4).
ALTERNATIVES = "1. e4 (1. d4 d5) e5 (1... c5 2. Nf3) 2. Nf3 *"


@pytest.fixture(scope="module")
def alternatives_db(tmp_path_factory):
    return build_inline(tmp_path_factory.mktemp("virtual"), {"alternatives": ALTERNATIVES})["alternatives"]


@pytest.mark.parametrize("engine", ["python", "sql"])
def test_virtualmainline(alternatives_db, pass_db, engine: str) -> None:
    assert run(alternatives_db, "virtualmainline", variations=True, engine=engine).matches == {1: [0, 1, 2, 3, 4, 5]}
    assert run(alternatives_db, "virtualmainline", variations=False, engine=engine).matches == {1: [0, 1, 2, 3]}
    assert run(pass_db, "virtualmainline", variations=True, engine=engine).matches == {1: [0, 1, 2]}
