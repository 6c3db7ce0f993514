"""A piece loop whose body needs its piece to move first tries only the pieces that move, and a
find whose body needs a move played tries only the positions with one (filters/variables/
hoist.py): where the analysis says so, and with the answers of trying everything, on real games
with variations (matches, sort values, comments, messages)."""

from __future__ import annotations

import pytest

from cqlindex.cql import ast
from cqlindex.exec.run import run
from cqlindex.filters.position import python as position
from cqlindex.filters.variables import hoist
from cqlindex.filters.variables import python as variables
from cqlindex.query.prepare import prepare

TWO_PIECE_CYCLE = """piece T1 in a piece T2 in A {
    C1 = T1 C2 = T2 Start = currentposition
    sort "cycle length" path focus T1|T2 piecepath
        (T1--~C1 C1 = C1|T1  T2--~C2 C2 = C2|T2)+ T1--Start:T1 T2--Start:T2 C1 == C2 }"""
BRISTOL = """piece Front in [QRB] piece Back in [QRB] { FrontStart = Front
    comment("front " Front)
    path focus Front|Back Front-- not check Back-- + between(from Front) >= 2 }"""

# (query, whether its outermost loop may skip the pieces that do not move)
CASES = [
    (TWO_PIECE_CYCLE, True),
    (BRISTOL, True),
    ("piece T in A { sort \"moves\" path T-- -- T-- }", True),        # sort records only a match
    ("square s in [RQ] { path focus s piecepath -- -- }", True),      # a focus on the piece alone
    ("piece T in A { x = T path T-- } x & a-h1", False),             # x read after the loop
    ("piece T in A { x = T path T-- } y = x", False),
    ("cnt = 0 piece T in A { cnt += 1 path T-- } cnt > 8", False),   # a count across runs
    ("x = [] piece T in A { x = x | T path T-- }", False),            # a union across runs
    ("piece all T in A { path T-- }", False),                         # all stops at a failure
    ("piece T in A { sort \"n\" rank T path T-- }", False),          # a sort before the path
    ("piece T in A { message(\"at \" T) path T-- }", False),          # said at once
    ("piece T in A { path focus T|K piecepath -- }", False),          # either piece may move first
    ("piece T in A { path -- T-- }", False),                          # another move first
    ("piece T in A { not path T-- }", False),
    ("piece T in A { path focus capture T -- }", False),              # a capture of T is in focus
]


@pytest.mark.parametrize("query, sound", CASES)
def test_a_loop_skips_only_where_nothing_else_would_change(query: str, sound: bool) -> None:
    body = prepare(query, "<test>").query.body
    loop = next(n for n in ast.walk(body) if isinstance(n, ast.Iterate))
    assert hoist._sound(body, loop) is sound


@pytest.fixture(scope="module")
def db(build_db):
    return build_db("data/studies/cql6-sample.pgn")


@pytest.mark.parametrize("query", [q for q, _ in CASES])
def test_skipping_gives_the_answers_of_trying_every_piece(db, query: str, monkeypatch) -> None:
    fast = run(db, query, variations=True, engine="python")
    monkeypatch.setattr(variables, "movers", lambda ev, node, pos: None)
    every = run(db, query, variations=True, engine="python")
    assert (fast.matches, fast.sort_values, fast.comments, fast.messages) == (
        every.matches, every.sort_values, every.comments, every.messages)


FOLLOWPATHS = """piece T1 = [QRNBqrnb]--(from)
    path focus T1 piecepath -- x = to -- y = to -- z = to & ~x
    find { piece T2 = [QRNBqrnb] & ~T1 --(from)  path focus T2 piecepath --x --y --z }"""

# (query, whether its find may skip the positions where the move its path needs is not played)
FIND_CASES = [
    (FOLLOWPATHS, True),
    ("find { path Q--e4 }", True),
    ("find all { check path N-- -- }", True),                       # a plain member before it
    ("sort \"n\" find all { path --[a-h8] }", True),
    ("find { y = to path --y }", False),                            # its side reads what the body assigns
    ("find { square s in . { path --s } }", False),                # ... or binds
    ("x = [] find { x = x | to path --e4 } x", False),             # x named outside the find
    ("find { message(\"m\") path --e4 }", False),
    ("find { path Q[x]. }", False),                                  # a capture: en passant takes elsewhere
    ("find { not path --e4 }", False),
]


@pytest.mark.parametrize("query, sound", FIND_CASES)
def test_a_find_skips_only_where_nothing_else_would_change(query: str, sound: bool) -> None:
    body = prepare(query, "<test>").query.body
    find = next(n for n in ast.walk(body) if isinstance(n, ast.Find))
    assert (hoist._find_sound(body, find.body) is not None) is sound


@pytest.mark.parametrize("query", [q for q, _ in FIND_CASES])
def test_skipping_positions_gives_the_answers_of_trying_all(db, query: str, monkeypatch) -> None:
    games = (1, 80)  # a find over every later position is n squared a game: fewer games, every kind of line
    fast = run(db, query, variations=True, gamenumbers=games, engine="python")
    monkeypatch.setattr(position, "find_guard", lambda ev, body: None)
    every = run(db, query, variations=True, gamenumbers=games, engine="python")
    assert (fast.matches, fast.sort_values, fast.comments, fast.messages) == (
        every.matches, every.sort_values, every.comments, every.messages)
