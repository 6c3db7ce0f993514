"""echo's narrowed targets (cqlindex.filters.output.echo_pairs) give the plain evaluation's answer.

Each query runs on real games (studies/cql6-sample.pgn with variations, some game ranges) twice
with the Python engine: with the narrowing and with ``echo_pairs.ENABLED`` off, where echo tries
every pair as it always did. Matches, sort values, comments and messages must be identical. The
queries cover each condition the narrowing reads (target and source filters, equal values, the
letters of mapped squares, equal boards, the order of the two positions, consecutivemoves) and
bodies that act (an assignment, a comment) after and before them. The game ranges hold matches
of flipverticalecho.cql and chameleon.cql (games 37, 67, 105 and 206 for the reference).
consecutivemoves read from the game's all-pairs table is checked against the pair-by-pair
definition on every pair of a dozen game trees.
"""

from __future__ import annotations

import duckdb
import pytest

from cqlindex.cql import ast
from cqlindex.cql.parser import parse
from cqlindex.exec.run import run
from cqlindex.filters.moves.consecutive import _latest_common_ancestor, _moves_from, all_pairs, longest_common_run
from cqlindex.filters.output import echo_pairs
from cqlindex.store.trees import load_games
from tests.conftest import shared_path

STUDIES = "data/studies/cql6-sample.pgn"


def _example(name: str) -> str:
    return shared_path(f"data/cql-examples/ascii/{name}").read_text(encoding="utf-8")


#: id -> (query, or an example file's name; the game ranges it runs on). Every query runs with variations.
QUERIES = {
    "flipverticalecho": ("flipverticalecho.cql", [(1, 6), (37, 37), (67, 67)]),
    "chameleon": ("chameleon.cql", [(100, 110), (206, 206)]),
    "consecutive-order": ("echo (s t) { s < t  consecutivemoves (s t) >= 3 }", [(1, 12)]),
    "consecutive-side": ("sort echo (s t) { sidetomove == s:sidetomove  consecutivemoves (s t) >= 4 "
                         "consecutivemoves (s t) }", [(1, 12)]),
    "consecutive-range": ("echo (src tgt) { src < tgt  consecutivemoves 5 100 (tgt src) }", [(1, 12)]),
    "consecutive-compared-first": ("echo (s t) { 2 < consecutivemoves (t s) }", [(1, 6)]),
    "same-board": ("echo (s t) { t & s == .  consecutivemoves (s t) >= 1 }", [(1, 20)]),
    "same-board-bare": ("echo (s t) in all { s & t == .  s:ply != ply }", [(1, 20)]),
    "values": ("echo (s t) { #[Aa] == s:#[Aa]  s:check  not check  t:piecename d1 == s:piecename e1 }", [(1, 20)]),
    "values-mixed-kinds": ("echo (s t) { s:#[Aa] == [Aa]  ply > s:ply + 10 }", [(1, 8)]),
    "positions-compared": ("echo (s t) in all { s:(ply == 3)  t <= s  sidetomove == s:sidetomove }", [(1, 20)]),
    "typename-diagonal": ("echo (s t) { s < t  square all x in . typename x == s:typename makesquare(rank x file x) }",
                          [(1, 6)]),
    "letters-other-side": ("echo (s t) { square all x in . s:piecename x == piecename makesquare(9 - file x rank x) "
                           "s > t }", [(34, 37)]),
    "letters-off-board": ("echo (s t) { square all x in . piecename x == s:piecename makesquare(file x + 1 rank x) }",
                          [(2, 2)]),
    # 'try' changes nothing (a count over the ancestors): a target filter, and a source one behind 's:'
    "try-target": ("echo (s t) { try  sidetomove == s:sidetomove  s:(not try)  #A > s:#A }", [(1, 40)]),
    "missingwhitepiece": ("missingwhitepiece.cql", [(1, 60)]),
    "assign-after": ("echo (s t) { sidetomove == s:sidetomove  x = ply - s:ply  #[Aa] == s:#[Aa] } sort x", [(1, 12)]),
    "assign-before": ("echo (s t) { x = ply  sidetomove == s:sidetomove  #[Aa] == s:#[Aa] } sort x", [(1, 6)]),
    "comment": ('echo (s t) { s < t  #[Aa] == s:#[Aa]  piecename e1 == s:piecename e1  comment ("echo of " s) '
                "[Aa] < 6 }", [(1, 12)]),
}


def _run_both(db, text: str, games: tuple[int, int], monkeypatch) -> tuple:
    answers = []
    for enabled in (True, False):
        monkeypatch.setattr(echo_pairs, "ENABLED", enabled)
        result = run(db, text, engine="python", gamenumbers=games, variations=True)
        answers.append((result.matches, result.sort_values, result.comments, result.messages))
    return answers


#: The two longest cases (9 s of the module's 28): with -m slow; the other cases read the same conditions.
SLOW = ("typename-diagonal", "flipverticalecho")


@pytest.mark.parametrize("name", [pytest.param(name, marks=[pytest.mark.slow] if name in SLOW else [])
                                  for name in QUERIES])
def test_narrowed_echo_equals_every_pair(build_db, monkeypatch, name) -> None:
    db = build_db(STUDIES)
    text, ranges = QUERIES[name]
    text = _example(text) if text.endswith(".cql") else text
    for games in ranges:
        narrowed, plain = _run_both(db, text, games, monkeypatch)
        assert narrowed == plain, f"games {games}"


def test_the_examples_do_match_in_the_ranges(build_db) -> None:
    """The differential cases above see matches, not only empty answers."""
    db = build_db(STUDIES)
    for name, games in (("flipverticalecho.cql", (37, 37)), ("chameleon.cql", (206, 206))):
        result = run(db, _example(name), engine="python", gamenumbers=games, variations=True)
        assert result.matches, name


def _plan(text: str) -> echo_pairs.Plan:
    return echo_pairs.make_plan(next(n for n in ast.walk(parse(text).body) if isinstance(n, ast.Echo)))


def test_plans_of_the_examples() -> None:
    flip = _plan(_example("flipverticalecho.cql"))
    assert flip.orders == (">",) and len(flip.equalities) == 1 and len(flip.letters) == 1
    chameleon = _plan(_example("chameleon.cql"))
    assert chameleon.orders == (">",) and len(chameleon.equalities) == 2 and not chameleon.letters
    # Nothing after what acts: the assignment stops the plan.
    assert not _plan("echo (s t) { x = ply  sidetomove == s:sidetomove }")
    assert _plan("echo (s t) { sidetomove == s:sidetomove  x = ply  #[Aa] == s:#[Aa] }").equalities \
        and len(_plan("echo (s t) { sidetomove == s:sidetomove  x = ply  #[Aa] == s:#[Aa] }").equalities) == 1
    # A variable other than s and t is not a key.
    assert not _plan("y = 3 echo (s t) { y == s:ply }")
    assert _plan("echo (s t) { consecutivemoves 2 4 (t s) }").consecutive == ((">=", 2), ("<=", 4))
    assert _plan("echo (s t) { s & t == . }").same_board


def test_all_pairs_is_consecutivemoves_of_every_pair(build_db) -> None:
    con = duckdb.connect(str(build_db(STUDIES)), read_only=True)
    try:
        trees = list(load_games(con, range(1, 13), variations=True))
    finally:
        con.close()
    checked = nonzero = 0
    for tree in trees:
        positions = tree.positions
        table = all_pairs(positions)
        for x in positions:
            for y in positions:
                ancestor = _latest_common_ancestor(x, y, positions)
                expected = longest_common_run(_moves_from(ancestor, x, positions), _moves_from(ancestor, y, positions))
                assert table[x.id, y.id] == expected, (tree.gamenumber, x.id, y.id)
                checked += 1
                nonzero += expected > 0
    assert checked > 50_000 and nonzero > 1_000
