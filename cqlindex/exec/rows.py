"""The plan's (gamenumber, positionid) rows grouped per game, without a global sort in SQL.

The plan's SELECT ends in ``ORDER BY gamenumber, positionid`` so that, run anywhere (``--explain``,
Spark, Trino), its rows come in order. On DuckDB that sort costs more than the scan when many
rows match (issue 16), and a filtered scan of ``positions`` already yields its rows in storage
order, which the build writes in (gamenumber, positionid) order. So the rows are fetched
unsorted and sorted here only when they are not in order already (a join to ``games`` may
shuffle them, or an index appended to out of order).

In a fresh process the first rows come as Python tuples: most queries match few enough that
grouping them in Python costs less than importing numpy (0.08-0.2 s of start-up, issue 16).
Only when the head is full are the rest fetched as numpy arrays (DuckDB's fastest way out) and
grouped there, into a :class:`~cqlindex.exec.game_rows.GameRows` that keeps the arrays and makes
a game's list when it is read. Where numpy is loaded already (a long-lived process, the API)
every row comes as arrays.

Where the index holds its row map (:mod:`cqlindex.store.rowmap`), a plan that selects its main
scan's gamenumber and positionid selects the scan's rowid instead, mapped back by an ASOF join:
DuckDB then decompresses no column beyond the predicate's. Measured in-process at 34 M
positions: 0.38 -> 0.31 s (query a of the benchmark, 32,000 matches), 1.08 -> 1.02 (b2),
about even (+/- 0.04 s) for b1 and c, whose half a million matches the join must place.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from itertools import groupby
from operator import itemgetter
from typing import TYPE_CHECKING

from cqlindex.exec import memory
from cqlindex.exec.game_rows import GameRows, from_arrays, joined
from cqlindex.exec.timeout import companion
from cqlindex.store import rowmap

if TYPE_CHECKING:  # imported where a select is read or changed: a cached plan's run fetches its SQL alone
    from sqlglot import exp

#: Rows fetched as tuples before switching to numpy. A tuple per row costs ~0.6 us more to fetch
#: than numpy's arrays and importing numpy ~0.06 s, so the two break even near 100,000 rows; as
#: the total is not known in advance, a head about half that bounds the loss either way (the ski
#: rental rule). Measured in a fresh process at 34 M positions: 250,000 -> 50,000 took query b1 of
#: the benchmark (470,000 rows) from 0.41-0.50 s to 0.33 and c (690,000) from 0.48-0.58 to 0.43-0.45;
#: query a (32,000 rows) still never imports numpy.
HEAD = 50_000


def grouped(con, select: exp.Select, batched: bool = False) -> tuple[Mapping[int, list[int]], int]:
    """Run ``select`` (gamenumber, positionid) without its ORDER BY; its rows as
    {gamenumber: [positionid, ...]} in (gamenumber, positionid) order (a dict, or for many rows
    a :class:`~cqlindex.exec.game_rows.GameRows` that makes the lists as they are read), and their number.

    ``batched`` (a plan with a window over the main line, :mod:`cqlindex.plan.offsets`), or a
    plan whose every subquery over ``positions`` is tied to its row's game (:func:`per_game`):
    run it on one range of games at a time, about :data:`BATCH_POSITIONS` positions each, every
    scan of ``positions`` in it restricted to the range (sound: a subquery tied to the game of a
    row in the range sees only rows in the range). DuckDB skips the row groups outside the
    range (the build writes in gamenumber order), so the batches together cost one scan, while
    a window, or the hash table DuckDB builds for a correlated subquery, holds one batch, not
    the index (issue 16: ``move to _`` on 6 M positions, 2.2 GB at once, 0.6 GB by batches).

    The first batch holds :data:`BATCH_POSITIONS` positions; each next one grows (up to four
    times) as far as the memory the last one took per position says it fits in
    :data:`BATCH_MEMORY` (:func:`next_batch`). A plan whose subqueries are selective (d2 of the
    benchmark, castling moves) thus runs in a few batches, not one per million positions, each
    costing DuckDB a new plan (issue 16: d2 at 34 M positions, 4.1 s in 35 batches, 3.0 s in one).
    """
    whole = whole_sql(con, select, batched)
    if whole is not None:
        return fetched(con, whole)
    found: dict[int, list[int]] = {}
    total = 0
    extent = _extent(con)
    if extent is None:
        return found, total
    low, high, per_game_positions = extent
    ranged = RangeSql(con, select)
    if batched:
        return _windowed(con, ranged, low, high, per_game_positions)
    size = BATCH_POSITIONS
    while low <= high:
        step = max(1, int(size / per_game_positions))
        with memory.Watch() as watch:
            rows, count = fetched(con, ranged(low, min(low + step - 1, high)))
        found.update(rows.items())  # ranges ascending and disjoint: the games stay in order
        total += count
        size = next_batch(size, watch.taken, step * per_game_positions)
        low += step
    return found, total


#: Batches of a windowed plan run at once, each on a cursor of its own thread: DuckDB computes a
#: window ``OVER ()`` on one thread (p13 of the patterns: its candidate SQL took the same 0.5 s of
#: CPU with one thread or two), so two batches at a time use both cores.
WINDOW_THREADS = 2


def _windowed(con, ranged: RangeSql, low: int, high: int,
              per_game_positions: float) -> tuple[Mapping[int, list[int]], int]:
    """:func:`grouped` for a windowed plan: batches of at most :data:`BATCH_POSITIONS` positions
    (at least one per thread where the index has the games), :data:`WINDOW_THREADS` of them at a
    time, so that the memory held is that many windows' (a batch's own, as before, since each
    is its games' window alone); the rows come back in the ranges' order."""
    from concurrent.futures import ThreadPoolExecutor
    from contextlib import ExitStack
    from queue import SimpleQueue

    games = high - low + 1
    step = max(1, min(int(BATCH_POSITIONS / per_game_positions), -(-games // WINDOW_THREADS)))
    ranges = [(first, min(first + step - 1, high)) for first in range(low, high + 1, step)]
    sqls = [ranged(first, last) for first, last in ranges]
    if len(sqls) < 2:
        return fetched(con, sqls[0]) if sqls else ({}, 0)
    parts: list[Mapping[int, list[int]]] = []
    total = 0
    with ExitStack() as stack:
        cursors = [con.cursor() for _ in range(min(WINDOW_THREADS, len(sqls)))]
        free: SimpleQueue = SimpleQueue()
        for cursor in cursors:
            stack.callback(cursor.close)
            stack.enter_context(companion(con, cursor))  # a deadline on con stops it too
            free.put(cursor)

        def run(sql: str) -> tuple[Mapping[int, list[int]], int]:
            cursor = free.get()  # as many threads as cursors: one is always free
            try:
                return fetched(cursor, sql)
            finally:
                free.put(cursor)

        pool = stack.enter_context(ThreadPoolExecutor(len(cursors)))
        pending = [pool.submit(run, sql) for sql in sqls]
        try:
            for future in pending:
                rows, count = future.result()
                parts.append(rows)  # ranges ascending and disjoint: the games stay in order
                total += count
        except BaseException:  # the deadline, Ctrl-C, an SQL error: the rest stops now
            for future in pending:
                future.cancel()
            for cursor in cursors:
                cursor.interrupt()
            raise
    return joined(parts), total


def whole_sql(con, select: exp.Select, batched: bool = False) -> str | None:
    """The one SQL :func:`grouped` runs for ``select`` over the whole index, unsorted, or None
    where it runs batches (their sizes follow the memory each took)."""
    # Asked first, on the plan as it is: copying a plan is most of the time this takes for the
    # largest ones (a rotate90 of a shift, 35 KB of SQL), and a batched plan's copy went unused.
    if batched or per_game(select):
        return None
    unsorted = select.copy()
    unsorted.set("order", None)
    return _sql(con, unsorted)


#: Positions of a batched plan's first batch: the window's memory is about a few hundred bytes each.
BATCH_POSITIONS = 1_000_000
#: The memory a batch may take beyond what the process held before it.
BATCH_MEMORY = 512 * 2**20


def next_batch(size: int, took: int | None, positions: float) -> int:
    """The positions of the batch after one of ``size`` (``positions`` in fact) that took ``took``
    bytes at most: at most four times as many, as many as :data:`BATCH_MEMORY` holds at that
    rate, never fewer than :data:`BATCH_POSITIONS`. Unmeasured (``took`` None): the same again."""
    if took is None:
        return size
    fits = BATCH_MEMORY * max(positions, 1) / max(took, 1)
    return int(max(BATCH_POSITIONS, min(4 * size, fits)))


def _extent(con) -> tuple[int, int, float] | None:
    """The index's first and last gamenumber and its positions per game (None: no games)."""
    low, high, games = con.execute("SELECT min(gamenumber), max(gamenumber), count(*) FROM games").fetchall()[0]
    if not games:
        return None
    positions = con.execute("SELECT count(*) FROM positions").fetchall()[0][0]
    return low, high, max(positions, 1) / games


def game_batches(con) -> list[tuple[int, int]]:
    """Ranges of gamenumbers covering the index, about :data:`BATCH_POSITIONS` positions each."""
    extent = _extent(con)
    if extent is None:
        return []
    low, high, per_game_positions = extent
    step = max(1, int(BATCH_POSITIONS / per_game_positions))
    return [(start, min(start + step - 1, high)) for start in range(low, high + 1, step)]


def range_sqls(con, select: exp.Select, batched: bool) -> Callable[[int, int], str]:
    """The SQL of ``select`` for any range of games ``low`` .. ``high`` (a streamed run, one
    range at a time): its rows are the plan's (gamenumber, positionid) in the range, unsorted.
    What does not change from range to range is worked out (and rendered, the most of it) once.

    Where restricting every scan of ``positions`` to the range keeps the answer (``batched``, or
    every subquery tied to its row's game, or none), :func:`in_games` does it, so DuckDB reads
    the range's row groups only; otherwise the range filters the plan's rows from outside.
    """
    if batched or not _subquery_scans(select) or per_game(select):
        return RangeSql(con, select)
    unsorted = select.copy()
    unsorted.set("order", None)
    whole = _sql(con, unsorted)
    return lambda low, high: (f"SELECT * FROM ({whole}) AS _range "
                              f"WHERE _range.gamenumber BETWEEN {int(low)} AND {int(high)}")


def ranges_in(con, span: tuple[int, int] | None) -> list[tuple[int, int]]:
    """The index's ranges of games (:func:`game_batches`) that meet ``span``, cut to it."""
    ranges = game_batches(con)
    if span is None:
        return ranges
    return [(max(low, span[0]), min(high, span[1])) for low, high in ranges if low <= span[1] and high >= span[0]]


def scanned_where(select: exp.Select) -> str | None:
    """The WHERE of ``select`` as DuckDB SQL over its one scan ``positions AS p``, where that is
    all it reads (no join, no subquery, no grouping), so that another read of ``positions AS p``
    can select the same rows by it (:mod:`cqlindex.columnar.run`); else None."""
    from sqlglot import exp

    from cqlindex.plan.dialect import duckdb_sql

    source = select.args.get("from_") or select.args.get("from")
    main = source.this if source is not None else None
    if (not isinstance(main, exp.Table) or main.name != "positions" or main.args.get("db")
            or main.alias_or_name != "p" or _subquery_scans(select)
            or any(select.args.get(k) for k in ("joins", "group", "having", "qualify", "windows"))):
        return None
    where = select.args.get("where")
    if where is None:
        return "TRUE"
    if where.this.find(exp.Select, exp.Subquery, exp.Window, exp.Exists) is not None:
        return None
    return duckdb_sql(where.this)


def grouped_in(con, select: exp.Select, low: int, high: int) -> tuple[Mapping[int, list[int]], int]:
    """:func:`grouped` for the games ``low`` .. ``high`` only."""
    return fetched(con, _sql(con, in_games(select, low, high)))


def per_game(select: exp.Select) -> bool:
    """Whether ``select`` has subqueries over ``positions`` and each is tied to one game: it
    matches its row's gamenumber to an outer row's (a correlated subquery), or it is the
    right side of ``<row>.gamenumber IN (SELECT q.gamenumber ...)``. (A window's rows are tied
    by construction: such a plan says so itself, ``batched``.)"""
    scans = _subquery_scans(select)
    return bool(scans) and all(_tied_to_a_game(table) for table in scans)


def _subquery_scans(select: exp.Select) -> list[exp.Table]:
    """The scans of ``positions`` in ``select`` but its main one."""
    from sqlglot import exp

    source = select.args.get("from_") or select.args.get("from")
    main = source.this if source is not None else None
    return [t for t in select.find_all(exp.Table) if t.name == "positions" and t is not main]


def _tied_to_a_game(table: exp.Table) -> bool:
    from sqlglot import exp

    scope = table.find_ancestor(exp.Select)
    if scope is None:
        return False
    alias = table.alias_or_name
    own = {t.alias_or_name for t in scope.find_all(exp.Table) if t.find_ancestor(exp.Select) is scope}
    column = _gamenumber_of(alias)
    holder = scope.parent.parent if isinstance(scope.parent, exp.Subquery) else scope.parent
    if (isinstance(holder, exp.In) and holder.args.get("query") is not None
            and [e for e in scope.expressions] == [column] and _is_gamenumber(holder.this)):
        return True
    where = scope.args.get("where")
    for eq in where.find_all(exp.EQ) if where is not None else ():
        if eq.find_ancestor(exp.Select) is not scope:
            continue
        sides = (eq.this, eq.expression)
        if column in sides and any(_is_gamenumber(c) and c.table not in own for c in sides):
            return True
    return False


def _gamenumber_of(alias: str) -> exp.Column:
    from sqlglot import exp

    return exp.column("gamenumber", table=alias)


def _is_gamenumber(e: exp.Expression) -> bool:
    from sqlglot import exp

    return isinstance(e, exp.Column) and e.name == "gamenumber" and bool(e.table)


def in_games(select: exp.Select, low: int, high: int) -> exp.Select:
    """``select`` with every scan of ``positions`` in it restricted to games ``low`` .. ``high``,
    unsorted (without its ORDER BY): a copy, so its callers need not copy the plan first."""
    return _in_games(select, low, high)[0]


def _in_games(select: exp.Select, low: int, high: int) -> tuple[exp.Select, int]:
    """:func:`in_games`, and how many scans it restricted."""
    from sqlglot import exp

    out = select.copy()
    out.set("order", None)
    placed = 0
    for table in list(out.find_all(exp.Table)):
        scope = table.find_ancestor(exp.Select)
        if table.name != "positions" or scope is None:
            continue
        alias = table.alias or table.name
        scope.where(exp.Between(this=exp.column("gamenumber", table=alias), low=exp.Literal.number(low),
                                high=exp.Literal.number(high)), copy=False)
        placed += 1
    return out, placed


class RangeSql:
    """``_sql(con, in_games(select, low, high))`` for any range, from one rendering.

    Rendering a plan is most of what a batch costs Python: a windowed plan's SQL is thousands of
    characters, ~10-40 ms for sqlglot each time, paid once per batch (a dozen at 11 M positions).
    So the select is rendered once with stand-in bounds, and each range's SQL is that text with
    the range's bounds written in. Where the stand-ins do not occur exactly where they were put
    (a query's own string or number spells one; a ``-gamenumber`` range narrows the row map's
    join to a bound of its own), every range is rendered as before."""

    #: Stand-ins for a range's first and last gamenumber: 19 digits, never a gamenumber (32 bits).
    LOW, HIGH = 7_346_912_580_264_713_901, 7_346_912_580_264_713_907

    def __init__(self, con, select: exp.Select) -> None:
        self._con, self._select = con, select
        ranged, placed = _in_games(select, self.LOW, self.HIGH)
        self._template, mapped = _sql_mapped(con, ranged)
        expected = placed + (mapped is not None)
        if (mapped not in (None, (self.LOW, self.HIGH))
                or self._template.count(str(self.LOW)) != expected or self._template.count(str(self.HIGH)) != expected):
            self._template = None

    def __call__(self, low: int, high: int) -> str:
        if self._template is None:
            return _sql(self._con, in_games(self._select, low, high))
        return self._template.replace(str(self.LOW), str(int(low))).replace(str(self.HIGH), str(int(high)))


def _sql(con, select: exp.Select) -> str:
    """The SQL of ``select``, reading its rows' row ids and mapping them back through the index's
    ``game_rows`` (:mod:`cqlindex.store.rowmap`) where the select allows it and the map holds."""
    return _sql_mapped(con, select)[0]


def _sql_mapped(con, select: exp.Select) -> tuple[str, tuple[int, int] | None]:
    """:func:`_sql`, and the range of games it wrote into the row map's join (or None)."""
    from cqlindex.plan.dialect import duckdb_sql

    by_rowid = _rowid_select(select)
    if by_rowid is None or not rowmap.holds(con):
        return duckdb_sql(select), None
    games = _game_range(select)
    return rowmap.mapped(duckdb_sql(by_rowid, copy=False), games), games


def _game_range(select: exp.Select) -> tuple[int, int] | None:
    """The gamenumbers the main scan of ``select`` is restricted to by its WHERE's top-level
    ``gamenumber BETWEEN low AND high`` terms (``-gamenumber``, a streamed range), or None."""
    from sqlglot import exp

    from cqlindex.plan.sql import conjuncts

    source = select.args.get("from_") or select.args.get("from")
    where = select.args.get("where")
    if source is None or where is None:
        return None
    alias = source.this.alias_or_name
    low, high = None, None
    for term in conjuncts(where.this):
        if (isinstance(term, exp.Between) and not term.args.get("symmetric") and isinstance(term.this, exp.Column)
                and term.this.name == "gamenumber" and term.this.table == alias
                and all(isinstance(term.args.get(k), exp.Literal) and term.args[k].is_int for k in ("low", "high"))):
            bounds = int(term.args["low"].this), int(term.args["high"].this)
            low = bounds[0] if low is None else max(low, bounds[0])
            high = bounds[1] if high is None else min(high, bounds[1])
    return None if low is None else (low, high)


def _rowid_select(select: exp.Select) -> exp.Select | None:
    """``select`` choosing its main scan's ``rowid`` as ``r`` instead of that scan's gamenumber
    and positionid; None unless it selects exactly those two, row by row (no grouping)."""
    from sqlglot import exp

    if not isinstance(select, exp.Select) or any(select.args.get(k) for k in ("group", "having", "qualify")):
        return None
    source = select.args.get("from_") or select.args.get("from")
    main = source.this if source is not None else None
    if not isinstance(main, exp.Table) or main.name != "positions" or main.args.get("db"):
        return None
    alias = main.alias_or_name
    wanted = [exp.column("gamenumber", table=alias), exp.column("positionid", table=alias)]
    if select.expressions != wanted:
        return None
    out = select.copy()
    out.set("expressions", [exp.alias_(exp.column("rowid", table=alias), "r")])
    return out


def _numpy_loaded() -> bool:
    return "numpy" in sys.modules


def fetched(con, sql: str) -> tuple[Mapping[int, list[int]], int]:
    """The rows (gamenumber, positionid) of ``sql`` grouped per game, and their number."""
    cursor = con.execute(sql)
    if _numpy_loaded():
        return _grouped_arrays([], cursor.fetchnumpy())
    head = cursor.fetchmany(HEAD)
    if len(head) < HEAD:
        return _grouped_tuples(head), len(head)
    return _grouped_arrays(head, cursor.fetchnumpy())


def _grouped_tuples(rows: list[tuple[int, int]]) -> dict[int, list[int]]:
    rows.sort()  # linear when already in order (the usual case)
    second = itemgetter(1)
    return {game: list(map(second, group)) for game, group in groupby(rows, key=itemgetter(0))}


def _grouped_arrays(head: list[tuple[int, int]], rest: dict) -> tuple[GameRows, int]:
    import numpy as np  # here: only a query with many candidate rows pays for numpy

    games, ids = (np.asarray(rest.pop(name)) for name in ("gamenumber", "positionid"))  # INTEGERs
    if head:
        # Column by column through itemgetter: zip(*head) makes an iterator per row (0.2 s for 250,000).
        games = np.concatenate((np.fromiter(map(itemgetter(0), head), dtype=games.dtype, count=len(head)), games))
        ids = np.concatenate((np.fromiter(map(itemgetter(1), head), dtype=ids.dtype, count=len(head)), ids))
    del head, rest
    return from_arrays(games, ids), len(ids)
