"""The path search's shortcuts held to the search without them: the longest walk kept per state,
and repetitions given up where they owe more moves than the lines below have.

``path_walk.Walk`` keeps, per (position, what is left to match), the first longest walk from
there, so a path with many ways through a game (``(-- --? --)+``: exponentially many in the
game's length) is searched in time linear in it. The reuse must change nothing: on real games
with variations, each path's value and where its kept walk ends are the same with and without
it, at every position, in both modes. Without it the search is exponential, so the games are
kept short for the queries that have many walks.
"""

from __future__ import annotations

import pytest

from cqlindex.cql import ast
from cqlindex.evaluate.core import Evaluator
from cqlindex.filters.sequences import path_walk
from cqlindex.filters.sequences.path_refs import STATUS
from cqlindex.query.prepare import prepare
from cqlindex.store.database import connect
from cqlindex.store.trees import load_games

DATA = ("data/studies/cql6-sample.pgn", "data/games/otb-oly14r11.pgn")

# (query, longest game tree searched without the memo, in positions)
QUERIES = [
    ("path -- +", 200),
    ("path (-- check?)+", 200),
    ("path (-- not check)* -- check", 200),
    ("path (-- --?)+ (-- --)*", 16),
    ("path (-- --? --) (-- --? --)+ (-- -- --)* (-- -- --)", 16),
    ("path (-- --?)+ check --", 16),
    ("path primary (-- --?)+", 16),
    ("path (R-- --)+ (-- check?)+", 80),
    ("path ([Qq] --)* --{1,3} (-- --)+", 16),
    ("path x = 2 (-- --? --)+", 16),
    ("path focus A (-- --?)+", 16),
]


@pytest.fixture(scope="module")
def trees(build_db) -> list:
    con = connect(build_db(*DATA, workers=1))
    try:
        return {variations: list(load_games(con, None, variations=variations)) for variations in (False, True)}
    finally:
        con.close()


def _outcomes(query: str, trees: list, variations: bool, limit: int) -> list[tuple]:
    """(game, position, value, end of the kept walk) of the query's path at every position."""
    prepared = prepare(query, variations=variations)
    node = next(n for n in ast.walk(prepared.query.body) if isinstance(n, ast.Path))
    out = []
    for tree in trees:
        if len(tree.positions) > limit:
            continue
        ev = Evaluator(prepared.query, variations, prepared.expansions)
        ev.matches(tree, only=[])  # sets the tree and the per-game state up as a run does
        for pos in tree.positions:
            ev.memo.pop(STATUS, None)
            value = ev.eval(node, pos)
            status = ev.memo.get(STATUS)
            out.append((tree.gamenumber, pos.id, value, None if status is None else status.last.id))
    return out


#: The main line alone runs with -m slow (20 s of the module's 41): with variations, the trees
#: searched hold every main line too, and more walks meet at a position.
@pytest.mark.parametrize("variations", [pytest.param(False, marks=pytest.mark.slow), True])
@pytest.mark.parametrize(("query", "limit"), QUERIES)
def test_the_longest_walk_memo_changes_nothing(trees, monkeypatch, query: str, limit: int, variations: bool) -> None:
    with_memo = _outcomes(query, trees[variations], variations, limit)
    monkeypatch.setattr(path_walk, "longest_walks", lambda ev, node, focus: None)
    without = _outcomes(query, trees[variations], variations, limit)
    assert with_memo == without
    assert sum(1 for row in with_memo if row[2] is not None) > 0  # the path matches somewhere


def test_many_ways_through_a_long_game_take_linear_time(trees) -> None:
    """A game of a few hundred plies and a path with about 1.3**plies walks: answered at once
    (without the memo this does not end in a lifetime; the fuzz test's 10 s limit guards it too)."""
    longest = max(trees[False], key=lambda t: len(t.positions))
    assert len(longest.positions) > 100
    prepared = prepare("path (-- --? --) (-- --? --)+ (-- -- --)* (-- -- --)", variations=False)
    ev = Evaluator(prepared.query, False, prepared.expansions)
    assert ev.matches(longest) != []


# (query, longest game tree searched, in positions): repetitions that owe more moves than some
# lines below have, the boundary (a line exactly as long as the moves owed) included.
OWED = [
    ("path --{30,}", 100),
    ("path (-- --){15,}", 100),
    ("path (-- check?){20,} --", 100),
    ("path (--? --){12,}", 50),
    ("path ((-- --){2} --?){5,}", 50),
    ("path (k --){4294967296,}", 60),
]


@pytest.mark.parametrize(("query", "limit"), OWED)
def test_giving_up_on_rounds_owed_changes_nothing(trees, monkeypatch, query: str, limit: int) -> None:
    """A repetition that owes more moves than any line below has is given up: the same answers as
    the search that walks on to every line's end (with variations: lines of every length)."""
    pruned = _outcomes(query, trees[True], True, limit)
    monkeypatch.setattr(path_walk, "heights", lambda ev: [1 << 62] * len(ev.tree.positions))
    assert pruned == _outcomes(query, trees[True], True, limit)
    if "4294967296" not in query:
        assert sum(1 for row in pruned if row[2] is not None) > 0  # the path matches somewhere
