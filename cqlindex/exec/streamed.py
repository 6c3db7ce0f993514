"""A run whose matches come a range of games at a time, for output that streams (issue 16).

:func:`cqlindex.exec.run.run` holds every match before anything is written: on an index of tens
of millions of positions, ``true --format ndjson`` would hold them all, and the rows DuckDB hands
over to be grouped, before the first record. Here the plan runs on one range of games at a time
(about :data:`cqlindex.exec.rows.BATCH_POSITIONS` positions, see
:func:`cqlindex.exec.rows.grouped_range`), the evaluator confirms that range's candidates, and
the range's matches are handed to the writer (:meth:`QueryResult.batches`) before the next range
is searched. Memory is one range's, whatever the number of matches.

The order is the held run's: ranges ascend and each range's games come in gamenumber order,
which is the output order of a query without sort keys. The runs this cannot stream are left
to :func:`run` as they are: the evaluator on every game (the python engine, messages, files,
persistent values), sort keys (the order needs every game's value first), and a plan with
prefilters (their SQL covers the whole index in one go).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from itertools import chain
from pathlib import Path

from cqlindex.exec.result import QueryResult
from cqlindex.exec.rows import game_batches, grouped_range
from cqlindex.exec.run import confirm, evaluates_every_game, plan_prepared, run, with_collection_size
from cqlindex.exec.timeout import Deadline, running
from cqlindex.plan.planner import Plan
from cqlindex.query.prepare import Prepared, prepare
from cqlindex.store.database import connect


#: DuckDB's memory limit in a streamed run. DuckDB keeps the blocks it has read until its limit
#: (80% of RAM by default) calls them back, so reading an index range after range, as the search
#: and the record writers do, would keep tens of bytes per position of the index: ~0.8 GB at 32 M
#: positions. Bounded, the old ranges' blocks make room for the new (a range's window of a ``line``
#: needs less: d1 of the benchmark runs in 200 MB at 1 M positions a range). The whole process
#: peaks at about this plus 0.45 GB: ``true`` on the 34 M-position index, 512 MB -> 384 MB took
#: the peak RSS of ndjson from 950-970 MiB (the issue's bound is 1 GB) to 832, csv from 939-943
#: to 826, in the same time; d1 as ndjson 723 -> 605 MiB, the same bytes (256 MB: 475 MiB).
MEMORY = "384MB"


def run_streamed(db: str | Path, text: str, *, variations: bool | None = None, source: str = "<query>",
                 gamenumbers: tuple[int, int] | None = None, matchcount: tuple[int, int | None] | None = None,
                 timeout: float | None = None, include_unplayable: bool = False,
                 allow_files: bool = False) -> QueryResult:
    """:func:`run` with the default engine, its matches pending: read them with ``result.batches()``
    (or ``result.hold()`` them), once. ``result.seconds`` grows with the time spent searching as
    they are read; ``games_examined`` is known at once. A run that cannot stream is held as run() holds it."""
    params = dict(variations=variations, source=source, gamenumbers=gamenumbers, matchcount=matchcount,
                  timeout=timeout, include_unplayable=include_unplayable, allow_files=allow_files)
    started = time.perf_counter()
    deadline = Deadline(timeout)
    prepared = prepare(text, source, variations=variations, gamenumbers=gamenumbers, matchcount=matchcount)
    if prepared.analysis.files is not None or prepared.analysis.sort_keys or evaluates_every_game(prepared):
        return run(db, text, **params)
    con = connect(db)
    prepared = with_collection_size(con, prepared)  # lastgamenumber, as run() knows it
    result = QueryResult(prepared.query, prepared.variations, prepared.analysis.sort_keys)
    try:
        con.execute(f"SET memory_limit = '{MEMORY}'")
        with running(con, deadline, text):
            p = plan_prepared(con, prepared, include_unplayable)
            span = prepared.gamenumbers
            count_sql = "SELECT count(*) FROM games" + (" WHERE gamenumber BETWEEN ? AND ?" if span else "")
            result.games_examined = con.execute(count_sql, list(span) if span else []).fetchall()[0][0]
            ranges = _ranges(con, span)
    except BaseException:
        con.close()
        raise
    if p.prefilters:
        con.close()
        return run(db, text, **params)
    result.seconds = time.perf_counter() - started
    search = _search(con, prepared, p, ranges, result, deadline, allow_files)
    # The first batch now: a query's mistakes and SQL errors come out of run_streamed, as out of
    # run(), before anything is written (or an output file is opened).
    first = next(search, None)
    result.pending = chain([first], search) if first is not None else search
    return result


def _ranges(con, span: tuple[int, int] | None) -> list[tuple[int, int]]:
    """The index's ranges of games (:func:`game_batches`) that meet ``span``, cut to it."""
    ranges = game_batches(con)
    if span is None:
        return ranges
    return [(max(low, span[0]), min(high, span[1])) for low, high in ranges if low <= span[1] and high >= span[0]]


def _search(con, prepared: Prepared, p: Plan, ranges: list[tuple[int, int]], result: QueryResult,
            deadline: Deadline, allow_files: bool) -> Iterator[dict[int, list[int]]]:
    """Each range's matches ({gamenumber: ids}, the matchcount applied), ranges in order; the
    connection is closed when the last is read or the reader stops."""
    try:
        for low, high in ranges:
            started = time.perf_counter()
            deadline.check()
            held, result.matches = result.matches, {}  # keep() fills matches: this range's alone
            with running(con, deadline, prepared.query.text):
                candidates, count = grouped_range(con, p.select, p.batched, low, high)
                result.candidates = (result.candidates or 0) + count
                if p.exact:
                    result.keep_all(candidates)
                elif candidates:
                    confirm(con, prepared, p, candidates, result.keep, deadline, allow_files)
            batch, result.matches = result.matches, held
            result.seconds += time.perf_counter() - started
            if batch:
                yield batch
    finally:
        con.close()
