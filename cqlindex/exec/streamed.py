"""A run whose matches come a range of games at a time, for output that streams (issue 16).

:func:`cqlindex.exec.run.run` holds every match before anything is written: on an index of tens
of millions of positions, ``true --format ndjson`` would hold them all, and the rows DuckDB hands
over to be grouped, before the first record. Here the plan runs on one range of games at a time
(about :data:`cqlindex.exec.rows.BATCH_POSITIONS` positions, see
:func:`cqlindex.exec.rows.range_sqls`; the loop is :func:`cqlindex.exec.search.search`), the
evaluator confirms that range's candidates, and the range's matches are handed to the writer
(:meth:`QueryResult.batches`) before the next range is searched. Memory is one range's, whatever the number of matches.

The order is the held run's: ranges ascend and each range's games come in gamenumber order,
which is the output order of a query without sort keys. The runs this cannot stream are left
to :func:`run` as they are: the evaluator on every game (the python engine, messages, files,
persistent values), sort keys (the order needs every game's value first), and a plan with
prefilters (their SQL covers the whole index in one go).

An exact plan's ranges and their SQL are kept once searched (:mod:`cqlindex.exec.plan_cache`),
for :func:`cqlindex.exec.cached.run_query` to run again without planning.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

from cqlindex.exec import plan_cache
from cqlindex.exec.result import QueryResult
from cqlindex.exec.rows import range_sqls, ranges_in
from cqlindex.exec.run import confirm, evaluates_every_game, plan_prepared, run, with_collection_size
from cqlindex.exec.search import MEMORY, begun, games_examined, search
from cqlindex.exec.timeout import Deadline, running
from cqlindex.plan.planner import Plan
from cqlindex.query.prepare import Prepared, prepare
from cqlindex.store.database import connect


def run_streamed(db: str | Path, text: str, *, variations: bool | None = None, source: str = "<query>",
                 gamenumbers: tuple[int, int] | None = None, matchcount: tuple[int, int | None] | None = None,
                 timeout: float | None = None, include_unplayable: bool = False,
                 allow_files: bool = False, con=None, keep_as: str | None = None) -> QueryResult:
    """:func:`run` with the default engine, its matches pending: read them with ``result.batches()``
    (or ``result.hold()`` them), once. ``result.seconds`` grows with the time spent searching as
    they are read; ``games_examined`` is known at once. A run that cannot stream is held as run() holds it.

    ``con``: a connection to ``db`` already open, used and closed here. ``keep_as``: the key
    (:func:`cqlindex.exec.plan_cache.key`) under which to keep the plan once the
    last range is searched, if it is exact (see :mod:`cqlindex.exec.plan_cache`)."""
    params = dict(variations=variations, source=source, gamenumbers=gamenumbers, matchcount=matchcount,
                  timeout=timeout, include_unplayable=include_unplayable, allow_files=allow_files)
    started = time.perf_counter()
    deadline = Deadline(timeout)
    try:
        prepared = prepare(text, source, variations=variations, gamenumbers=gamenumbers, matchcount=matchcount)
        if prepared.analysis.files is not None or prepared.analysis.sort_keys or evaluates_every_game(prepared):
            if con is not None:
                con.close()
            return run(db, text, **params)
        con = connect(db) if con is None else con
    except BaseException:
        if con is not None:
            con.close()
        raise
    sized = with_collection_size(con, prepared)  # lastgamenumber, as run() knows it
    keep_as = keep_as if sized is prepared else None  # the collection's size is not in the key
    prepared = sized
    result = QueryResult(prepared.query, prepared.variations, prepared.analysis.sort_keys)
    try:
        con.execute(f"SET memory_limit = '{MEMORY}'")
        with running(con, deadline, text):
            p = plan_prepared(con, prepared, include_unplayable)
            result.games_examined = games_examined(con, prepared.gamenumbers)
            ranges = ranges_in(con, prepared.gamenumbers)
    except BaseException:
        con.close()
        raise
    if p.prefilters:
        con.close()
        return run(db, text, **params)
    result.seconds = time.perf_counter() - started
    # An exact plan's rows are the matches: its ranges' SQL is all a later run needs.
    keep = partial(_keep, keep_as, prepared) if keep_as is not None and p.exact else None
    steps = _steps(con, p, ranges, keep)
    check = None if p.exact else partial(confirm, con, prepared, p, keep=result.keep, deadline=deadline,
                                         allow_files=allow_files)
    result.pending = begun(search(con, prepared.query.text, steps, result, deadline, check))
    return result


def _steps(con, p: Plan, ranges: list[tuple[int, int]], keep) -> Iterator[tuple[int, int, str]]:
    """Each range and its SQL, written as the search comes to it; once the last is handed out,
    ``keep`` (if given) is called with them all (a search stopped earlier keeps nothing)."""
    written = []
    sql = range_sqls(con, p.select, p.batched) if ranges else None
    for low, high in ranges:
        written.append((low, high, sql(low, high)))
        yield written[-1]
    if keep is not None:
        keep(written)


def _keep(key: str, prepared: Prepared, steps: list[tuple[int, int, str]]) -> None:
    """Keep what :func:`cqlindex.exec.cached.run_query` reads back: the prepared query (the
    result's header), its variations, its span of games and the steps."""
    plan_cache.store(key, ("exact", prepared.query, prepared.variations, prepared.gamenumbers, steps))
