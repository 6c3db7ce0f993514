"""Main-line windows restricted to the games a condition on the game allows (plan/window_games.py),
held to the evaluator.

The restriction is right only where the game's condition is ANDed with what reads the window:
each query below is run by both engines, with both forms of the window (streamed over row ids,
whose rows now come from a semi-join and must be put in order, and partitioned by game), in
batches of a few games; the plan says whether it restricted the window.
"""

from __future__ import annotations

import pytest

from cqlindex.exec import rows as rows_module
from cqlindex.exec.run import plan_for, run
from cqlindex.store import rowmap

#: (query, whether a window reads only the games the condition allows)
QUERIES = [
    ("result 1-0 line --> check --> check", True),
    ("flipcolor { result 1-0 line --> (move from K --> .) {3,} }", True),
    ("cql(result 1/2-1/2) line --> {move capture [QRBNPqrbnp]} --> {move capture [QRBNPqrbnp]}", True),
    ('player white "Kasparov" line --> check --> {move capture [QRBNPqrbnp]}', True),
    ("result 1-0 not line --> check --> check", True),  # a NOT below the AND: those games are false anyway
    ("result 0-1 (check or line --> check --> check)", True),
    ("flipcolor { result 1-0 line --> (power A - power a <= -2) {4,} }", True),
    ("result 0-1 or line --> check --> check", False),  # not ANDed: every game's window is needed
    ("line --> check --> check", False),
]


@pytest.fixture(scope="module")
def db(build_db):
    return build_db("data/annotated/world-matches.pgn")


@pytest.mark.parametrize("streamed", [False, True], ids=["partitioned", "streamed"])
@pytest.mark.parametrize("query,restricted", QUERIES)
def test_a_window_of_the_allowed_games_finds_what_the_evaluator_finds(db, query, restricted, streamed,
                                                                        monkeypatch) -> None:
    if not streamed:
        monkeypatch.setattr(rowmap, "holds", lambda con: False)
    plan = plan_for(db, query)
    assert plan.batched and ("FROM games AS w" in plan.sql) == restricted
    if streamed:
        assert "OVER ()" not in plan.sql if restricted else "OVER ()" in plan.sql
    monkeypatch.setattr(rows_module, "BATCH_POSITIONS", 2000)  # batches of a few games
    fast = run(db, query)
    assert fast.matches == run(db, query, engine="python").matches
    assert fast.positions > 0


def test_the_portable_plan_restricts_its_partitioned_window(db) -> None:
    """SQL for another engine keeps its PARTITION BY and reads the same games."""
    plan = plan_for(db, QUERIES[0][0], portable=True)
    assert "FROM games AS w" in plan.sql and "PARTITION BY" in plan.sql and "OVER ()" not in plan.sql
