"""The plan's rows fetched without ORDER BY: grouped per game in (gamenumber, positionid) order
whatever order DuckDB yields them in."""

from __future__ import annotations

import random

import duckdb
import pyarrow as pa
import pytest
from sqlglot import exp

from cqlindex.exec import rows as rows_module
from cqlindex.exec.rows import grouped


def _select() -> exp.Select:
    return (exp.select("p.gamenumber", "p.positionid").from_(exp.to_table("positions").as_("p"))
            .where("p.positionid % 3 <> 1").order_by("p.gamenumber", "p.positionid"))


def _table(rows: list[tuple[int, int]]) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    # in the order given, in one statement (executemany takes seconds for 20,000 rows)
    stored = pa.table({"gamenumber": pa.array([g for g, _ in rows], pa.int32()),
                      "positionid": pa.array([i for _, i in rows], pa.int32())})
    con.execute("CREATE TABLE positions AS SELECT * FROM stored")
    return con


@pytest.mark.parametrize("head", [rows_module.HEAD, 5, None], ids=["tuples", "head-then-numpy", "numpy-loaded"])
@pytest.mark.parametrize("games", [40, 6000])
def test_rows_stored_out_of_order_come_out_sorted_and_grouped(games, head, monkeypatch) -> None:
    monkeypatch.setattr(rows_module, "_numpy_loaded", lambda: head is None)  # None: every row as arrays
    monkeypatch.setattr(rows_module, "HEAD", head or 1)  # 5: the head fills, the rest come as arrays
    rows = [(g, i) for g in range(1, games) for i in range(0, g % 7 + 1)]
    shuffled = rows[:]
    random.Random(16).shuffle(shuffled)
    con = _table(shuffled)
    expected = {}
    for g, i in rows:
        if i % 3 != 1:
            expected.setdefault(g, []).append(i)
    got, count = grouped(con, _select())
    assert got == expected and list(got) == sorted(expected)
    assert count == sum(len(ids) for ids in expected.values())


@pytest.mark.parametrize("head", [rows_module.HEAD, 2, 5, None],
                         ids=["tuples", "head-then-numpy", "head-exactly-full", "numpy-loaded"])
def test_rows_in_order_and_no_rows(head, monkeypatch) -> None:
    monkeypatch.setattr(rows_module, "_numpy_loaded", lambda: head is None)
    monkeypatch.setattr(rows_module, "HEAD", head or 1)
    rows = [(1, 0), (1, 2), (5, 0), (5, 3), (70000, 0)]
    got, count = grouped(_table(rows), _select())
    assert got == {1: [0, 2], 5: [0, 3], 70000: [0, 3][:1]} and count == 5
    assert grouped(_table([(2, 1)]), _select()) == ({}, 0)


@pytest.mark.parametrize(("where", "tied"), [
    ("EXISTS (SELECT 1 FROM positions AS q WHERE q.gamenumber = p.gamenumber AND q.is_check)", True),
    ("p.gamenumber IN (SELECT q.gamenumber FROM positions AS q WHERE q.is_check)", True),
    ("EXISTS (SELECT 1 FROM positions AS q WHERE q.gamenumber = p.gamenumber AND EXISTS "
     "(SELECT 1 FROM positions AS r WHERE r.gamenumber = q.gamenumber))", True),
    ("p.is_check", False),  # no subquery: nothing to bound
    # not tied to p's game: restricting them to a range of games would change the answer
    ("EXISTS (SELECT 1 FROM positions AS q WHERE EXISTS (SELECT 1 FROM positions AS r "
     "WHERE r.gamenumber = q.gamenumber))", False),
    ("EXISTS (SELECT q.gamenumber FROM positions AS q WHERE q.is_check)", False),
    ("p.ply IN (SELECT q.gamenumber FROM positions AS q)", False),
    ("EXISTS (SELECT 1 FROM positions AS q JOIN positions AS r ON r.gamenumber = q.gamenumber)", False),
])
def test_only_subqueries_tied_to_the_game_are_run_by_batches(where: str, tied: bool) -> None:
    from sqlglot import parse_one

    assert rows_module.per_game(parse_one(f"SELECT p.gamenumber FROM positions AS p WHERE {where}")) is tied


@pytest.mark.parametrize(("size", "took", "positions", "expected"), [
    (1_000_000, None, 1_000_000, 1_000_000),  # unmeasured: the same again
    (1_000_000, 0, 1_000_000, 4_000_000),  # nothing taken: four times, no more
    (1_000_000, 128 * 2**20, 1_000_000, 4_000_000),  # a quarter of the budget: four times fits
    (2_000_000, 512 * 2**20, 2_000_000, 2_000_000),  # the whole budget: as large again
    (4_000_000, 1024 * 2**20, 4_000_000, 2_000_000),  # twice the budget: half
    (4_000_000, 64 * 1024 * 2**20, 4_000_000, 1_000_000),  # far over: never below the first batch
])
def test_next_batch_grows_as_far_as_the_memory_it_took_allows(size, took, positions, expected, monkeypatch) -> None:
    monkeypatch.setattr(rows_module, "BATCH_POSITIONS", 1_000_000)
    monkeypatch.setattr(rows_module, "BATCH_MEMORY", 512 * 2**20)
    assert rows_module.next_batch(size, took, positions) == expected


class _Watched:
    """memory.Watch reporting ``taken`` bytes for every batch."""

    def __init__(self, taken: int | None) -> None:
        self.taken = taken

    def __enter__(self) -> "_Watched":
        return self

    def __exit__(self, *exc) -> None:
        return None


def _tied_select() -> exp.Select:
    """:func:`_select` with a subquery tied to the row's game: run by batches of games."""
    return _select().where("EXISTS (SELECT 1 FROM positions AS q WHERE q.gamenumber = p.gamenumber)")


def _spied_ranges(monkeypatch, together: int = 0) -> list[tuple[int, int, int]]:
    """(low, high, thread) of each batch :func:`grouped` fetches, as it fetches them; the first
    ``together`` batches wait for one another (a run that does them one at a time fails)."""
    import threading

    ranges: list[tuple[int, int, int]] = []
    real = rows_module.fetched
    meet = threading.Barrier(together, timeout=10) if together > 1 else None

    def spy(con, sql):
        low, high = (int(x.strip("()")) for x in sql.split("BETWEEN ")[1].split(" ")[0:3:2])
        ranges.append((low, high, threading.get_ident()))
        if meet is not None and len(ranges) <= together:
            meet.wait()
        return real(con, sql)

    monkeypatch.setattr(rows_module, "fetched", spy)
    return ranges


@pytest.mark.parametrize(("took", "grows"), [(0, True), (None, False)])
def test_batches_cover_every_game_once_and_grow_when_they_take_little(took, grows, monkeypatch) -> None:
    rows = [(g, i) for g in range(1, 201) for i in range(10)]
    con = _table(rows)
    con.execute("CREATE TABLE games AS SELECT DISTINCT gamenumber FROM positions")
    ranges = _spied_ranges(monkeypatch)
    monkeypatch.setattr(rows_module, "BATCH_POSITIONS", 50)  # five games
    monkeypatch.setattr(rows_module.memory, "Watch", lambda: _Watched(took))
    expected = {g: [i for i in range(10) if i % 3 != 1] for g in range(1, 201)}
    assert grouped(con, _tied_select()) == (expected, sum(map(len, expected.values())))
    assert ranges[0][:2] == (1, 5) and ranges[-1][1] == 200
    assert all(b[0] == a[1] + 1 for a, b in zip(ranges, ranges[1:]))
    sizes = [high - low + 1 for low, high, _ in ranges]
    assert (sizes[1] == 4 * sizes[0]) is grows and (len(ranges) == 40) is not grows


@pytest.mark.parametrize(("games", "batches"), [(200, 40), (6, 2), (1, 1)])
def test_a_windowed_plan_runs_its_batches_two_at_a_time_and_keeps_their_order(games, batches, monkeypatch) -> None:
    """A window OVER () runs on one DuckDB thread: its batches go to two threads (each with a
    cursor of its own) and run at once, never more than BATCH_POSITIONS positions each, at least
    one per thread; the rows come back in the games' order whichever batch finishes first."""
    rows = [(g, i) for g in range(1, games + 1) for i in range(10)]
    random.Random(34).shuffle(rows)
    con = _table(rows)
    con.execute("CREATE TABLE games AS SELECT DISTINCT gamenumber FROM positions")
    together = min(batches, rows_module.WINDOW_THREADS)
    ranges = _spied_ranges(monkeypatch, together)
    monkeypatch.setattr(rows_module, "BATCH_POSITIONS", 50)  # five games
    expected = {g: [i for i in range(10) if i % 3 != 1] for g in range(1, games + 1)}
    got, count = grouped(con, _select(), batched=True)
    assert got == expected and list(got) == sorted(expected) and count == sum(map(len, expected.values()))
    spans = sorted(r[:2] for r in ranges)
    assert len(spans) == batches and spans[0][0] == 1 and spans[-1][1] == games
    assert all(b[0] == a[1] + 1 for a, b in zip(spans, spans[1:]))
    assert len({thread for *_, thread in ranges[:together]}) == together  # the first ones ran at once


@pytest.mark.parametrize("where, expected", [
    ("p.positionid > 3", None),
    ("p.gamenumber BETWEEN 5 AND 9", (5, 9)),
    ("p.wtm AND p.gamenumber BETWEEN 5 AND 9", (5, 9)),
    ("(p.wtm AND p.gamenumber BETWEEN 5 AND 9) AND p.gamenumber BETWEEN 7 AND 20", (7, 9)),
    ("p.gamenumber BETWEEN 5 AND 9 AND p.gamenumber BETWEEN 12 AND 20", (12, 9)),  # nothing: an empty map
    ("p.wtm OR p.gamenumber BETWEEN 5 AND 9", None),  # not a bound on every row
    ("NOT p.gamenumber BETWEEN 5 AND 9", None),
    ("q.gamenumber BETWEEN 5 AND 9", None),  # another scan's
    ("p.gamenumber BETWEEN 5 AND p.ply", None),
    ("p.gamenumber BETWEEN SYMMETRIC 9 AND 5", None),
    ("EXISTS (SELECT 1 FROM positions AS c WHERE c.gamenumber BETWEEN 5 AND 9)", None),
], ids=["none", "alone", "anded", "in parentheses, intersected", "disjoint", "or", "not", "other alias",
        "not a number", "symmetric", "in a subquery"])
def test_the_game_range_read_from_the_where(where: str, expected) -> None:
    """Only a range every row of the main scan lies in may cut the row map (rowmap.mapped)."""
    select = exp.select("p.gamenumber", "p.positionid").from_(exp.to_table("positions").as_("p")).where(
        exp.condition(where, dialect="duckdb"))
    assert rows_module._game_range(select) == expected


@pytest.mark.parametrize("batched", [False, True])
@pytest.mark.parametrize("tied", [False, True])
def test_fetching_leaves_the_plan_as_it_was(batched: bool, tied: bool) -> None:
    """The runners copy a plan only where they change it (copying the largest plans cost more
    than running them): a plan kept for the next run, ORDER BY included, is the same after."""
    rows = [(g, i) for g in range(1, 30) for i in range(6)]
    con = _table(rows)
    con.execute("CREATE TABLE games AS SELECT DISTINCT gamenumber FROM positions")
    select = _tied_select() if tied else _select()
    before = select.sql()
    first = grouped(con, select, batched=batched)
    rows_module.whole_sql(con, select, batched)
    rows_module.range_sqls(con, select, batched)(3, 9)
    rows_module.grouped_in(con, select, 3, 9)
    assert select.sql() == before and select.args.get("order") is not None
    assert grouped(con, select, batched=batched) == first
