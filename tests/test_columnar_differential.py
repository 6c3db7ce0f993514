"""The columnar engine held to the tree-walking evaluator, position by position.

Two ways, both on the filter tables' real indexes (studies with variations nested four deep,
annotated match games, Chess960 engine games), main line and variations:

- every query of every family table (tests/filters/test_*.py) that the columnar engine takes
  is evaluated by it at *every* position, not only at the SQL plan's candidates, and must
  match exactly where the tree-walker (``engine="python"``) matches: a kernel that is wrong
  where the planner would have hidden it still fails here;
- every pattern and benchmark file of ../shared/bench runs end to end on the default engine
  (SQL, then the columnar engine) and must give the tree-walker's answer; the files the
  columnar engine takes are listed, so one that falls back to the tree-walker fails too.
"""

from __future__ import annotations

import importlib

import duckdb
import numpy as np
import pytest

from cqlindex.columnar.core import Columnar, blocker, needed_facts, reads_games
from cqlindex.columnar.frame import load
from cqlindex.columnar.values import NotColumnar
from cqlindex.exec.run import columnar_blocker, run, with_collection_size
from cqlindex.query.prepare import prepare
from conftest import shared_path

FAMILIES = ("control", "dictionaries", "game_tags", "logic", "moves", "output", "position", "relation", "sequences",
            "sets", "strings", "transforms", "tree", "variables")
QUERIES = sorted({row.query for family in FAMILIES
                  for row in importlib.import_module(f"tests.filters.test_{family}").TABLE})
CELLS = [("plain", False), ("plain", True), ("chess960", False)]
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


def columnar_everywhere(db, text: str, variations: bool) -> dict[int, list[int]] | None:
    """The positions where the body matches, by the columnar engine at every position of every
    game (None when it does not take the query)."""
    prepared = prepare(text, "<query>", variations=variations)
    if blocker(prepared.query, prepared.expansions) is not None:
        return None
    con = duckdb.connect(str(db), read_only=True)
    try:
        prepared = with_collection_size(con, prepared)
        games = [g for (g,) in con.execute("SELECT gamenumber FROM games ORDER BY gamenumber").fetchall()]
        frame = load(con, games, variations, needed_facts(prepared.query, prepared.expansions),
                     games=reads_games(prepared.query, prepared.expansions))
        holds = Columnar(prepared.query, variations, prepared.expansions).matches(frame, np.arange(frame.size))
    finally:
        con.close()  # after the evaluation: a frame reads the moves when a kernel first asks
    out: dict[int, list[int]] = {}
    for game, position in zip(frame.gamenumber[holds].tolist(), frame.positionid[holds].tolist()):
        out.setdefault(game, []).append(position)
    return out


def _plain_body(text: str) -> bool:
    """Whether the query's matches are its body's (no header range or game filter acting on whole games)."""
    header = prepare(text, "<query>").query.header
    return header.matchcount is None and header.gamenumber is None and header.result is None


@pytest.mark.parametrize("cell", CELLS, ids=[f"{n}-{'variations' if v else 'mainline'}" for n, v in CELLS])
def test_every_family_query_the_columnar_engine_takes_matches_the_tree_walker(filter_indexes, cell) -> None:
    name, variations = cell
    db = filter_indexes[name]
    taken, wrong = 0, []
    for query in QUERIES:
        if not _plain_body(query):
            continue
        try:
            got = columnar_everywhere(db, query, variations)
        except NotColumnar:  # a value no kernel takes: the run goes to the tree-walker (test below)
            continue
        except Exception as error:  # noqa: BLE001 - reported with its query below
            wrong.append(f"{query!r}: {type(error).__name__}: {error}")
            continue
        if got is None:
            continue
        taken += 1
        expected = {g: list(ids) for g, ids in run(db, query, variations=variations, engine="python").matches.items()}
        if got != expected:
            games = sorted(g for g in set(got) | set(expected) if got.get(g) != expected.get(g))
            wrong.append(f"{query!r}: differs in games {games[:5]}")
    assert not wrong, "\n".join(wrong)
    assert taken >= len(QUERIES) // 3, f"the columnar engine took only {taken} of {len(QUERIES)} queries"


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
    prepared = prepare("mate path --", "<query>")
    node, why = columnar_blocker(prepared)
    assert type(node).__name__ == "Path" and "kernel" in why
