"""A streamed run's search, one range of games at a time, given each range's SQL.

The loop is apart from the plan that wrote the SQL so that both runs that stream go through it:
:func:`cqlindex.exec.streamed.run_streamed`, which plans the query and writes each range's SQL as
it goes, and :func:`cqlindex.exec.cached.run_query`, which reads the SQL of a plan kept from an
earlier run (:mod:`cqlindex.exec.plan_cache`) and must not import the planner to run it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import chain

from cqlindex.exec.result import QueryResult
from cqlindex.exec.rows import fetched
from cqlindex.exec.timeout import Deadline, running

#: DuckDB's memory limit in a streamed run. DuckDB keeps the blocks it has read until its limit
#: (80% of RAM by default) calls them back, so reading an index range after range, as the search
#: and the record writers do, would keep tens of bytes per position of the index: ~0.8 GB at 32 M
#: positions. Bounded, the old ranges' blocks make room for the new (a range's window of a ``line``
#: needs less: d1 of the benchmark runs in 200 MB at 1 M positions a range). The whole process
#: peaks at about this plus 0.45 GB: ``true`` on the 34 M-position index, 512 MB -> 384 MB took
#: the peak RSS of ndjson from 950-970 MiB (the issue's bound is 1 GB) to 832, csv from 939-943
#: to 826, in the same time; d1 as ndjson 723 -> 605 MiB, the same bytes (256 MB: 475 MiB).
MEMORY = "384MB"


def games_examined(con, span: tuple[int, int] | None) -> int:
    """The games of the index in ``span`` (all without one): what the closing line says were examined."""
    count_sql = "SELECT count(*) FROM games" + (" WHERE gamenumber BETWEEN ? AND ?" if span else "")
    return con.execute(count_sql, list(span) if span else []).fetchall()[0][0]


def search(con, text: str, steps: Iterable[tuple[int, int, str]], result: QueryResult, deadline: Deadline,
           confirm: Callable[[Mapping[int, list[int]]], None] | None = None) -> Iterator[dict[int, list[int]]]:
    """Each range's matches ({gamenumber: ids}, the matchcount applied), ranges in order, for
    ``steps``: the (first game, last game, SQL of its candidate rows) of each range. ``confirm``
    keeps the matches among a range's candidates (the post-filter); without it the rows are the
    matches. The connection is closed when the last is read or the reader stops."""
    try:
        pending = iter(steps)
        while True:
            started = time.perf_counter()
            step = next(pending, None)
            if step is None:
                return
            deadline.check()
            held, result.matches = result.matches, {}  # keep() fills matches: this range's alone
            with running(con, deadline, text):
                candidates, count = fetched(con, step[2])
                result.candidates = (result.candidates or 0) + count
                if confirm is None:
                    result.keep_all(candidates)
                elif candidates:
                    confirm(candidates)
            batch, result.matches = result.matches, held
            result.seconds += time.perf_counter() - started
            if batch:
                yield batch
    finally:
        con.close()


def begun(batches: Iterator[dict[int, list[int]]]) -> Iterator[dict[int, list[int]]]:
    """``batches`` with the first searched already: a query's mistakes and SQL errors come out of
    the run, before anything is written (or an output file is opened)."""
    first = next(batches, None)
    return chain([first], batches) if first is not None else batches
