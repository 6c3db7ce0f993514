"""The streamed run of ``cqlindex query``, from a plan kept by an earlier run where there is one
(issue 34: start-up).

:func:`run_query` opens the index, makes the plan's key (:mod:`cqlindex.exec.plan_cache`) and,
where a plan is kept under it, runs its SQL range by range as the streamed run would
(:func:`cqlindex.exec.search.search`): the same rows, the same result, with neither the parser
nor the planner imported. Otherwise it hands the open connection and the key to
:func:`cqlindex.exec.streamed.run_streamed` (or for output that holds every match,
:func:`cqlindex.exec.run.run`), which plans, runs, and keeps the plan if it may.

This module imports neither sqlglot nor the parser (tests/test_exec_plan_cache.py holds a run
from a kept plan to that): they are most of a query's start-up.
"""

from __future__ import annotations

import time
from pathlib import Path

from cqlindex.errors import DatabaseError
from cqlindex.exec import plan_cache
from cqlindex.exec.result import QueryResult
from cqlindex.exec.search import MEMORY, begun, games_examined, search
from cqlindex.exec.timeout import Deadline, running
from cqlindex.store.database import connect


def run_query(db: str | Path, text: str, *, variations: bool | None = None, source: str = "<query>",
              gamenumbers: tuple[int, int] | None = None, matchcount: tuple[int, int | None] | None = None,
              timeout: float | None = None, include_unplayable: bool = False,
              allow_files: bool = False, held: bool = False) -> QueryResult:
    """:func:`cqlindex.exec.streamed.run_streamed`'s result, its parameters the same; ``held``:
    :func:`cqlindex.exec.run.run`'s (on the default engine), whose plan runs as one SQL over the
    whole index rather than range by range. Either way the matches are pending until read or held."""
    started = time.perf_counter()
    deadline = Deadline(timeout)
    params = dict(variations=variations, source=source, gamenumbers=gamenumbers, matchcount=matchcount,
                  timeout=timeout, include_unplayable=include_unplayable, allow_files=allow_files)
    try:
        con = connect(db)
    except DatabaseError:  # said after the query's own mistakes, as the streamed run says it
        return _planned(db, text, params, held)
    try:
        options = dict(variations=variations, gamenumbers=gamenumbers, matchcount=matchcount,
                       include_unplayable=include_unplayable, allow_files=allow_files, held=held)
        key = plan_cache.key(db, con, text, source, options)
        kept = plan_cache.load(key)
    except BaseException:
        con.close()
        raise
    if kept is None:
        return _planned(db, text, params, held, con=con, keep_as=key)
    query, variations, span, steps = kept
    result = QueryResult(query, variations)
    try:
        con.execute(f"SET memory_limit = '{MEMORY}'")
        with running(con, deadline, query.text):
            result.games_examined = games_examined(con, span)
    except BaseException:
        con.close()
        raise
    result.seconds = time.perf_counter() - started
    result.pending = begun(search(con, query.text, steps, result, deadline))
    return result


def _planned(db: str | Path, text: str, params: dict, held: bool, **more) -> QueryResult:
    """The run that plans (no plan kept): run() where ``held``, else run_streamed()."""
    if held:
        from cqlindex.exec.run import run  # here: it imports the parser and the planner

        return run(db, text, **params, **more)
    from cqlindex.exec.streamed import run_streamed

    return run_streamed(db, text, **params, **more)
