"""A ``line`` chain as one window over the main line (plan/offsets.py), held to the evaluator.

The project rule: a query the planner accelerates gives exactly the evaluator's matches. The
window reads position k+j as the j-th main-line row after k, which holds only because positions
are numbered in pre-order with the main continuation first: that is checked on real games with
variations, and each chain query below is run by both engines on them (with batches of a few
games, so that a chain crossing a batch's edge would show).
"""

from __future__ import annotations

import duckdb
import pytest
import sqlglot
from sqlglot import exp

from cqlindex.exec import rows as rows_module
from cqlindex.exec.run import plan_for, run
from cqlindex.plan import planner
from cqlindex.plan.offsets import WINDOW_PREFIX
from cqlindex.store import rowmap

#: Chains of single-position steps: forward, backward, move filters inside steps, negations.
CHAINS = [
    "line --> {move to _ not move enpassant} --> {wtm move capture q} --> {move to _ not move enpassant}",
    "line --> check --> check",
    "line --> {move capture [QRBNPqrbnp]} --> {move capture [QRBNPqrbnp]} --> {move capture [QRBNPqrbnp]}",
    "line <-- check <-- {move capture [QRBNPqrbnp]}",
    "line --> {not move capture [QRBNPqrbnp]} --> {move capture [QRBNPqrbnp]} --> check",
    "line --> {move from k} --> {move from K} --> {move from k}",
    "line --> {wtm move o-o} --> {btm move o-o}",
    "line --> check{2} --> {move capture [QRBNPqrbnp]}",
    "line --> {piece x in [Nn] move from x} --> {move to _}",
    'line --> {player white "Carlsen"} --> check',  # the first step's tags: tested at the plan's row
    # a repeated move step, computed once per row as a span of two rows (plan/window_spans.py)
    "line --> (move from K --> .) {3,}",
    "line <-- {move from k} <-- . <-- {move from k} <-- . <-- {move from k}",
    "line --> {move to _ not move enpassant} --> (move from K --> .) {3}",  # one span kept, one undone
    "line --> {move to _} --> {move to _} --> {move to _} --> {move capture [QRBNPqrbnp]}",
]


@pytest.fixture(scope="module")
def db(build_db):
    return build_db("data/annotated/world-matches.pgn")


def test_the_main_continuation_is_the_next_position(db) -> None:
    """What the window relies on: child 0 of every position is numbered one after it, and a
    game's main line is 0 .. n-1 (the index has variations, so the check can fail)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.sql("SELECT count(*) FROM positions WHERE NOT mainline").fetchall()[0][0] > 1000
        assert con.sql("SELECT count(*) FROM positions WHERE child_index = 0 AND parent IS NOT NULL "
                       "AND positionid <> parent + 1").fetchall()[0][0] == 0
        assert con.sql("SELECT count(*) FROM (SELECT gamenumber, max(positionid) AS m, count(*) AS n FROM positions "
                       "WHERE mainline GROUP BY gamenumber) WHERE m <> n - 1").fetchall()[0][0] == 0
    finally:
        con.close()


#: The evaluator's matches per chain: both forms of the window are held to the same answer.
_EVALUATED: dict[str, dict[int, list[int]]] = {}


def _evaluated(db, query: str) -> dict[int, list[int]]:
    if query not in _EVALUATED:
        _EVALUATED[query] = run(db, query, engine="python").matches
    return _EVALUATED[query]


@pytest.mark.parametrize("streamed", [False, True], ids=["partitioned", "streamed"])
@pytest.mark.parametrize("query", CHAINS)
def test_a_window_chain_finds_what_the_evaluator_finds(db, query, streamed, monkeypatch) -> None:
    """Both forms of the window: partitioned by game (run by batches), and streamed over row ids
    where the index keeps each game's rows consecutive (its row map holds)."""
    if not streamed:
        monkeypatch.setattr(rowmap, "holds", lambda con: False)
    plan = plan_for(db, query)
    assert f"AS {WINDOW_PREFIX}" in plan.sql and ("LEAD(" in plan.sql or "LAG(" in plan.sql)
    assert plan.batched and ("PARTITION BY" not in plan.sql) == streamed
    monkeypatch.setattr(rows_module, "BATCH_POSITIONS", 2000)  # batches of a few games
    fast = run(db, query)
    assert fast.matches == _evaluated(db, query)
    assert fast.candidates >= fast.positions  # narrowed: the evaluator confirmed
    if streamed:  # the same necessary condition as the partitioned window: the same candidates
        with monkeypatch.context() as partitioned:
            partitioned.setattr(rowmap, "holds", lambda con: False)
            assert run(db, query).candidates == fast.candidates


def test_the_window_is_kept_to_what_it_can_prove(db) -> None:
    """With variations a line may follow any branch, whose positions are not consecutive: the
    correlated chain stays; so does a chain of one step."""
    for query in ("cql(variations) line --> check --> check", "line --> check"):
        plan = plan_for(db, query)
        assert not plan.batched and "LEAD(" not in plan.sql, query
    answer = run(db, "cql(variations) line --> check --> check")
    assert answer.matches == run(db, "cql(variations) line --> check --> check", engine="python").matches


@pytest.mark.parametrize(("streamed", "repeated"), [(True, False), (False, True)], ids=["streamed", "partitioned"])
def test_a_first_step_of_the_row_alone_is_tested_once(db, streamed, repeated, monkeypatch) -> None:
    """Joined by row id, the window already tests the first step at the plan's row: the scan
    does not test it again (p14's material arithmetic cost twice); the partitioned window, a
    correlated EXISTS, keeps it at the row. Either way the evaluator's matches."""
    if not streamed:
        monkeypatch.setattr(rowmap, "holds", lambda con: False)
    query = "line --> (power A - power a <= -2) {3,}"
    plan = plan_for(db, query)
    where = sqlglot.parse_one(plan.sql, read="duckdb").args["where"].this
    outside = [c for c in where.find_all(exp.Column) if c.name == "material" and c.table == "p"]
    assert bool(outside) == repeated
    assert run(db, query).matches == _evaluated(db, query)


def test_the_portable_plan_partitions(db) -> None:
    """SQL for another engine (--explain --dialect spark) never relies on this file's row ids."""
    plan = plan_for(db, CHAINS[0], portable=True)
    assert plan.batched and "OVER ()" not in plan.sql and "rowid" not in plan.sql


def test_batches_restrict_every_scan_and_cover_every_game(db) -> None:
    con = duckdb.connect(str(db), read_only=True)
    try:
        batches = rows_module.game_batches(con)
        games = con.sql("SELECT min(gamenumber), max(gamenumber) FROM games").fetchall()[0]
        assert batches[0][0] == games[0] and batches[-1][1] == games[1]
        assert all(b[0] == a[1] + 1 for a, b in zip(batches, batches[1:]))
    finally:
        con.close()
    select = plan_for(db, CHAINS[1], portable=True).select
    restricted = rows_module.in_games(select, 5, 9).sql(dialect="duckdb")
    assert restricted.count("gamenumber BETWEEN 5 AND 9") == select.sql().count("FROM positions")


def _flat(sql: str) -> str:
    from sqlglot import parse_one

    from cqlindex.plan.offsets import Reads, flatten

    return flatten(parse_one(sql, read="duckdb"), {"a": 0, "b": 1}, "w", Reads()).sql()


def test_flatten_reads_a_main_line_child_as_the_next_row() -> None:
    child = "EXISTS (SELECT 1 FROM positions AS q WHERE q.gamenumber = b.gamenumber AND q.parent = b.positionid " \
            "AND q.child_index = 0 AND q.is_check)"
    assert _flat(f"a.wtm AND {child}") == "w.o0_wtm AND (NOT (w.o2_positionid IS NULL) AND w.o2_is_check)"
    parent = "EXISTS (SELECT 1 FROM positions AS q WHERE q.gamenumber = a.gamenumber AND q.positionid = a.parent " \
             "AND NOT q.is_check)"
    assert _flat(parent) == "(NOT (w.n1_positionid IS NULL) AND w.n1_x0)"  # NOT q.is_check: one LAG


@pytest.mark.parametrize("sql", [
    # any child (variations), another game, a second link, a scalar subquery, the game's tags, an unknown row
    "EXISTS (SELECT 1 FROM positions AS q WHERE q.gamenumber = a.gamenumber AND q.parent = a.positionid)",
    "EXISTS (SELECT 1 FROM positions AS q WHERE q.parent = a.positionid AND q.child_index = 0)",
    "EXISTS (SELECT 1 FROM positions AS q WHERE q.gamenumber = a.gamenumber AND q.parent = a.positionid "
    "AND q.parent = b.positionid AND q.child_index = 0)",
    "(SELECT max(q.ply) FROM positions AS q WHERE q.gamenumber = a.gamenumber) > 3",
    "a.gamenumber IN (SELECT g.gamenumber FROM games AS g WHERE g.white = 'x')",
    "c.is_check",
])
def test_flatten_gives_up_on_what_it_cannot_place(sql: str) -> None:
    from cqlindex.plan.offsets import Unplaced

    with pytest.raises(Unplaced):
        _flat(sql)


@pytest.mark.parametrize("query", [
    "cql(quiet) wtm move o-o-o find {btm move o-o}",  # d2: a correlated EXISTS and a scalar subquery
    "cql(variations) move to _ not move enpassant",  # d1's first step: a dense correlated EXISTS (any child)
    "Qd1 relation (tomove match) (mismatch 0)",  # relation's self-join on the game
])
def test_a_plan_run_by_batches_finds_what_the_evaluator_finds(db, query, monkeypatch) -> None:
    assert rows_module.per_game(plan_for(db, query).select)
    monkeypatch.setattr(rows_module, "BATCH_POSITIONS", 2000)  # batches of a few games
    assert run(db, query).matches == run(db, query, engine="python").matches


#: Conditions of the plan's own row on its main-line child or parent (plan/offsets.windowed_where),
#: and whether the plan reads them off a window: each held to the evaluator and to the correlated
#: EXISTS it replaces.
TOP_LEVEL = [
    ("wtm move capture [qrbn] child : move capture to", True),  # p16 of the patterns: capture, recapture
    ("flipcolor { btm check parent : move from R to a-h7 }", True),  # p17: the parent's move, in an OR
    ("check child : check", True),
    ("not child : check", True),  # under NOT: a game's last position has no child, and matches
    ("btm or parent : parent : move capture .", True),  # two rows back, in an OR
    ("mate parent : move from Q", True),
    ("move capture q", True),  # a move filter that reads the position's own board
    ("move to _ not move enpassant", True),  # d1's first step: two EXISTS on one child
    ("flipcolor { move capture Q line --> . --> .{0,5} --> mate }", True),  # p15: the line's window taken in
    ("not {move capture . line --> check --> . --> check}", True),  # the same under NOT
    ("move capture q find mate", True),  # mixed: the move on the window, the find's subquery as it was
    ("move capture [qr] line --> (move from K --> .) {3}", True),  # a line's spans taken in
    ('{player white "Carlsen" or check} child : check', True),  # the tags stay at the plan's row
    ('player white "Carlsen" or child : check', False),  # the tags in the child's condition: correlated
    ("cql(variations) check child : check", False),  # any branch: not consecutive rows
    ("wtm move o-o-o", False),  # read from the children's rows (plan/children.py), no join to remove
]


@pytest.mark.parametrize("streamed", [False, True], ids=["partitioned", "streamed"])
@pytest.mark.parametrize(("query", "windowed"), TOP_LEVEL)
def test_a_top_level_child_or_parent_on_the_window(db, query, windowed, streamed, monkeypatch) -> None:
    if not streamed:
        monkeypatch.setattr(rowmap, "holds", lambda con: False)
    plan = plan_for(db, query)
    assert (f"AS {WINDOW_PREFIX}" in plan.sql and plan.batched) is windowed, plan.sql
    monkeypatch.setattr(rows_module, "BATCH_POSITIONS", 2000)  # batches of a few games
    fast = run(db, query)
    assert fast.matches == _evaluated(db, query)
    with monkeypatch.context() as correlated:  # the planner as it was: every EXISTS kept
        correlated.setattr(planner, "windowed_where", lambda compiler, select, row: select)
        assert (plan_for(db, query).sql != plan.sql) is windowed
        before = run(db, query)
    assert (fast.matches, fast.candidates) == (before.matches, before.candidates)


@pytest.mark.parametrize(("query", "spans"), [
    ("line --> (move from K --> .) {3,}", True),  # one step read at three rows
    ("line --> {move to _ not move enpassant} --> {wtm move capture q} --> {move to _ not move enpassant}", False),
    ("line --> {move from k} --> {move from K} --> {move from k}", False),  # three steps, each its own
])
def test_spans_are_made_where_a_step_repeats(db, query, spans, monkeypatch) -> None:
    """A span's subquery is a second window over every row: it pays where one step is read at
    SPAN_READS rows or more, and elsewhere each of its rows' columns is shifted on its own."""
    from cqlindex.plan import window_spans

    plan = plan_for(db, query).sql
    assert ("srci" in plan) is spans
    monkeypatch.setattr(window_spans, "SPAN_READS", 1000)
    assert "srci" not in plan_for(db, query).sql


@pytest.mark.parametrize(("query", "anchored"), [
    (CHAINS[0], True),  # d1: a queen captured in the middle
    ("line --> {move o-o} --> {move to _} --> {move to _}", True),
    ("line --> {move capture [qr]} --> {move capture .} --> {move to _}", True),
    ("line --> . --> {move to _} --> {move promote .} --> {move to _}", True),
    ("line --> {move capture [qr]} --> (move to _ --> .) {5}", True),  # spans too: each shift ordered
    ("line --> {move to _} --> {move capture .} --> {move to _}", False),  # no rare step
    ("line --> check --> check --> mate", False),  # a rare step, but a window of few columns
    ("line --> {move capture q} --> {move to _} --> {not move capture .}", False),  # a row read under NOT alone
    ("line --> {move capture [qn]} --> {move to _} --> {move to _}", False),  # knights are captured too often
])
def test_a_rare_step_keeps_the_window_to_the_rows_near_it(db, query, anchored, monkeypatch) -> None:
    """plan/window_anchor.py: the window's rows are those within the chain's reach of a rare
    step's row; the same matches as the evaluator and the same candidates as the whole window."""
    from cqlindex.plan import offsets

    plan = plan_for(db, query)
    assert ("CROSS JOIN RANGE(" in plan.sql) is anchored
    assert "OVER ()" not in plan.sql or not anchored  # rows from a join come in no order
    monkeypatch.setattr(rows_module, "BATCH_POSITIONS", 2000)  # batches of a few games
    fast = run(db, query)
    assert fast.matches == _evaluated(db, query)
    monkeypatch.setattr(offsets, "rare_anchor", lambda *args: None)
    assert run(db, query).candidates == fast.candidates
