"""The columnar engine held to the tree-walking evaluator, position by position.

Two ways, both on the filter tables' real indexes (studies with variations nested four deep,
annotated match games, Chess960 engine games), main line and variations:

- every query of every family table (tests/filters/test_*.py) that the columnar engine takes
  is evaluated by it at *every* position, not only at the SQL plan's candidates, and must
  match exactly where the tree-walker (``engine="python"``) matches: a kernel that is wrong
  where the planner would have hidden it still fails. That check runs in each family row's own
  test (tests/filters/everywhere.py), beside the tree-walker's answer the row computes anyway;
  here, only that the columnar engine takes a third of those queries at least;
- every pattern and benchmark file of ../shared/bench runs end to end on the default engine
  (SQL, then the columnar engine) and must give the tree-walker's answer; the files the
  columnar engine takes are listed, so one that falls back to the tree-walker fails too.
"""

from __future__ import annotations

import importlib

import pytest

from cqlindex.columnar.core import blocker
from cqlindex.exec.run import columnar_blocker, run
from cqlindex.query.prepare import prepare
from conftest import shared_path

FAMILIES = ("control", "dictionaries", "game_tags", "logic", "moves", "output", "position", "relation", "sequences",
            "sets", "strings", "transforms", "tree", "variables")
QUERIES = sorted({row.query for family in FAMILIES
                  for row in importlib.import_module(f"tests.filters.test_{family}").TABLE})
PATTERNS = sorted(shared_path("bench").glob("*.cql")) + sorted(shared_path("bench/patterns").glob("*.cql"))
#: The files the columnar engine answers today (the others name what keeps them on the tree-walker).
COLUMNAR_FILES = {
    "a.cql", "b1.cql", "b2.cql", "c.cql", "c2.cql", "d1.cql", "d2.cql",
    "p01-xray-to-king.cql", "p02-battery.cql", "p03-royal-fork.cql", "p04-hanging.cql", "p05-double-check.cql",
    "p06-pinned-to-king.cql", "p07-overprotected.cql", "p08-passed-pawn.cql", "p09-two-pins.cql",
    "p10-checks-then-mate.cql", "p11-king-walk.cql", "p12-mate-in-two-ending.cql", "p13-knight-maneuver.cql",
    "p14-down-material-wins.cql", "p16-capture-recapture.cql", "p18-echo-same-position.cql", "p19-material-swing.cql",
    "p15-queen-sac-then-mate.cql", "p17-rook-to-seventh-check.cql", "p20-pawn-majority.cql",
    "p21-advanced-pawns.cql", "p22-king-in-center-late.cql", "p23-bishop-pair-vs-knights.cql",
    "p24-attacked-king-zone.cql", "p25-consecutive-captures.cql", "p26-square-control.cql",
}


def test_the_columnar_engine_takes_a_third_of_the_family_queries_at_least() -> None:
    """Its answers are held to the tree-walker's, row by row and at every position, by the family
    tables' check (tests/filters/differential.py); here, that it takes enough of them."""
    taken = sum(blocker(p.query, p.expansions) is None for p in (prepare(q, "<query>") for q in QUERIES))
    assert taken >= len(QUERIES) // 3, f"the columnar engine takes only {taken} of {len(QUERIES)} queries"


@pytest.mark.parametrize("variations", [False, True], ids=["mainline", "variations"])
@pytest.mark.parametrize("path", PATTERNS, ids=lambda p: p.name)
def test_each_benchmark_file_gives_the_tree_walkers_answer(filter_indexes, path, variations) -> None:
    db = filter_indexes["plain"]
    text = path.read_text(encoding="utf-8")
    prepared = prepare(text, str(path), variations=variations)
    assert (columnar_blocker(prepared) is None) == (path.name in COLUMNAR_FILES), columnar_blocker(prepared)
    columnar = run(db, text, source=str(path), variations=variations)
    tree = run(db, text, source=str(path), variations=variations, engine="python")
    assert dict(columnar.matches.items()) == dict(tree.matches.items())


def test_a_refused_node_is_named() -> None:
    prepared = prepare("mate path max ply --", "<query>")
    node, why = columnar_blocker(prepared)
    assert type(node).__name__ == "Path" and "max" in why
