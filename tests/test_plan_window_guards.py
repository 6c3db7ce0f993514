"""A window's farthest existence tests (plan/window_guards.py) and windows merged into one pass
(plan/offsets.py, ``_placed``), each held to the evaluator and to the plan without them.

A plan that drops a test or merges windows must find the same candidates as before, on real
games with variations (so a main line's rows are not the table's consecutive rows), in batches
of a few games (so a chain crossing a batch's edge would show), with the window both streamed
and partitioned.
"""

from __future__ import annotations

import re

import pytest
from sqlglot import exp, parse_one

from cqlindex.exec import rows as rows_module
from cqlindex.exec.run import plan_for, run
from cqlindex.plan import offsets
from cqlindex.plan.offsets import Reads
from cqlindex.plan.window_guards import farthest_guards, guard_offset
from cqlindex.store import rowmap


@pytest.fixture(scope="module")
def db(build_db):
    return build_db("data/annotated/world-matches.pgn")


def _reads(*offsets_read: int) -> Reads:
    used = Reads()
    for offset in offsets_read:
        used.read(offset, exp.column("positionid", table="wsrc"), "w", "positionid")
    used.read(1, exp.column("wtm", table="wsrc"), "w", "wtm")
    return used


#: (condition over the window w, the guards left, the guard columns the window still reads).
SIMPLIFIED = [
    ("NOT (w.o1_positionid IS NULL) AND w.o1_wtm AND NOT (w.o3_positionid IS NULL) AND NOT (w.o2_positionid IS NULL)",
     ["o3"], {"o3"}),
    # each direction its own farthest: a parent and a child read together
    ("NOT (w.n1_positionid IS NULL) AND NOT (w.o1_positionid IS NULL) AND NOT (w.n2_positionid IS NULL)",
     ["o1", "n2"], {"o1", "n2"}),
    # only tests ANDed together: one under OR stays, and keeps its column
    ("NOT (w.o1_positionid IS NULL) AND (NOT (w.o2_positionid IS NULL) OR w.o1_wtm) AND NOT (w.o3_positionid IS NULL)",
     ["o2", "o3"], {"o2", "o3"}),
    # inside each branch of an OR, and under NOT
    ("(NOT (w.o1_positionid IS NULL) AND NOT (w.o2_positionid IS NULL)) OR "
     "NOT (NOT (w.o1_positionid IS NULL) AND NOT (w.o3_positionid IS NULL) AND w.o1_wtm)",
     ["o2", "o3"], {"o2", "o3"}),
    ("NOT (w.o2_positionid IS NULL) AND NOT (w.o2_positionid IS NULL)", ["o2"], {"o2"}),  # the same test twice: once
]


@pytest.mark.parametrize(("sql", "left", "read"), SIMPLIFIED)
def test_only_the_farthest_test_of_a_conjunction_stays(sql, left, read) -> None:
    used = _reads(1, 2, 3, -1, -2)
    out = farthest_guards(parse_one(sql, read="duckdb"), used, "w")
    assert re.findall(r"w\.(\w\d)_positionid IS NULL", out.sql()) == left
    assert {name[:2] for name in used.columns if name.endswith("_positionid")} == read
    assert "o1_wtm" in used.columns


def test_a_guard_is_a_test_of_a_row_of_positions() -> None:
    used = _reads(2)
    assert guard_offset(parse_one("NOT (w.o2_positionid IS NULL)"), used, "w") == 2
    assert guard_offset(parse_one("NOT (w.o1_wtm IS NULL)"), used, "w") is None  # another column
    assert guard_offset(parse_one("w.o2_positionid IS NULL"), used, "w") is None  # not a test that it exists
    assert guard_offset(parse_one("NOT (v.o2_positionid IS NULL)"), used, "w") is None  # another window


#: Chains whose windows test several rows: forward, back, both ways, under NOT, alternatives of
#: several lengths, and flipcolor's two windows merged into one.
CHAINS = [
    "line --> (move from K --> .) {3,}",
    "line <-- check <-- . <-- {move capture .}",
    "parent : parent : check child : child : check",
    "not {line --> check --> . --> check}",
    "line --> check --> .{0,3} --> mate",
    "flipcolor { line --> (move from K --> .) {2,} }",
    "flipcolor { piece x in N { line --> (move from x --> .) {2,} } }",
    "flipcolor { move capture Q line --> . --> . --> check }",
]


def _guards(sql: str) -> int:
    return len(re.findall(r"_positionid IS NULL", sql))


@pytest.mark.parametrize("streamed", [False, True], ids=["partitioned", "streamed"])
@pytest.mark.parametrize("query", CHAINS)
def test_the_farthest_tests_find_what_every_test_finds(db, query, streamed, monkeypatch) -> None:
    if not streamed:
        monkeypatch.setattr(rowmap, "holds", lambda con: False)
    monkeypatch.setattr(rows_module, "BATCH_POSITIONS", 2000)  # batches of a few games
    fewer = plan_for(db, query).sql
    fast = run(db, query)
    assert fast.matches == run(db, query, engine="python").matches
    with monkeypatch.context() as every:
        every.setattr(offsets, "farthest_guards", lambda condition, used, window: condition)
        assert _guards(plan_for(db, query).sql) > _guards(fewer)
        before = run(db, query)
    assert (fast.matches, fast.candidates) == (before.matches, before.candidates)


#: A conjunct testing the plan's row against two lines' windows: read off one window.
MERGED = [
    "flipcolor { line --> (move from K --> .) {2,} }",
    "flipcolor { piece x in N { line --> (move from x --> .) {2,} } }",
    "{line --> check --> check} or {line --> {move capture .} --> {move capture .}}",
]


@pytest.mark.parametrize("streamed", [False, True], ids=["partitioned", "streamed"])
@pytest.mark.parametrize("query", MERGED)
def test_two_windows_of_a_conjunct_are_one_pass(db, query, streamed, monkeypatch) -> None:
    if not streamed:
        monkeypatch.setattr(rowmap, "holds", lambda con: False)
    monkeypatch.setattr(rows_module, "BATCH_POSITIONS", 2000)
    merged = plan_for(db, query).sql
    fast = run(db, query)
    assert fast.matches == run(db, query, engine="python").matches
    with monkeypatch.context() as apart:  # the planner as it was: a window per line
        apart.setattr(offsets, "_window_tests", lambda part, alias, windows: 0)
        separate = plan_for(db, query).sql
        before = run(db, query)
    # partitioned, each line's window is a correlated EXISTS, which the conjunct took in before
    assert _windows(merged) == 1 and _windows(separate) == (2 if streamed else 1)
    assert (fast.matches, fast.candidates) == (before.matches, before.candidates)


def _windows(sql: str) -> int:
    """How many windows the plan computes: the main line's rows each reads (``FROM positions AS wNsrc``)."""
    return len(re.findall(r"FROM positions AS w\d+src\b", sql))
