"""The streamed run of ``cqlindex query``, from a plan kept by an earlier run where there is one
(issue 34: start-up).

:func:`run_query` makes the plan's key (:mod:`cqlindex.exec.plan_cache`: the query, the options,
the index file's identity, the code) and, where a plan is kept under it, opens the index without
the catalog checks the file passed when the plan was made and runs the plan: an exact plan's SQL
range by range as the streamed run would (:func:`cqlindex.exec.search.search`), or the WHERE
whose rows the columnar engine confirms as :func:`cqlindex.exec.run.run` would
(:func:`cqlindex.exec.scanned.confirm_where`): the same rows, the same result, with neither
sqlglot nor the planner imported. Otherwise it opens the index as usual and hands the
connection and the key to :func:`cqlindex.exec.streamed.run_streamed` (or for output that holds
every match, :func:`cqlindex.exec.run.run`), which plans, runs, and keeps the plan if it may.

This module imports neither sqlglot nor the planner (tests/test_exec_plan_cache.py holds a run
from a kept plan to that, and an exact plan's run to no parser either): they are most of a
query's start-up.
"""

from __future__ import annotations

import time
from contextlib import closing
from pathlib import Path

from cqlindex.cql.ast import Query
from cqlindex.errors import DatabaseError
from cqlindex.exec import plan_cache
from cqlindex.exec.result import QueryResult
from cqlindex.exec.scanned import confirm_where
from cqlindex.exec.search import MEMORY, begun, games_examined, search
from cqlindex.exec.timeout import Deadline, running
from cqlindex.store.database import Opening


def run_query(db: str | Path, text: str, *, variations: bool | None = None, source: str = "<query>",
              gamenumbers: tuple[int, int] | None = None, matchcount: tuple[int, int | None] | None = None,
              timeout: float | None = None, include_unplayable: bool = False,
              allow_files: bool = False, held: bool = False) -> QueryResult:
    """:func:`cqlindex.exec.streamed.run_streamed`'s result, its parameters the same; ``held``:
    :func:`cqlindex.exec.run.run`'s (on the default engine), whose plan runs as one SQL over the
    whole index rather than range by range. Either way the matches are pending until read or held."""
    started = time.perf_counter()
    params = dict(variations=variations, source=source, gamenumbers=gamenumbers, matchcount=matchcount,
                  timeout=timeout, include_unplayable=include_unplayable, allow_files=allow_files)
    options = dict(variations=variations, gamenumbers=gamenumbers, matchcount=matchcount,
                   include_unplayable=include_unplayable, allow_files=allow_files, held=held)
    key = plan_cache.key(db, text, source, options)  # the file as it is: nothing opened yet
    kept = plan_cache.load(key)
    con = _opened(db, kept) if kept is not None else None
    if con is not None and plan_cache.key(db, text, source, options) != key:  # written while being opened
        con.close()
        con = None
    if con is None:
        opening = Opening(db)
        try:
            _import_planner(held)  # while the index opens
            con = opening.result()
        except DatabaseError:  # said after the query's own mistakes, as the planning run says it
            return _planned(db, text, params, held)
        except BaseException:
            opening.close()
            raise
        try:
            key = plan_cache.key(db, text, source, options)  # the file as it was opened
        except BaseException:
            con.close()
            raise
        return _planned(db, text, params, held, con=con, keep_as=key)
    if kept[0] == "scanned":
        return _scanned(con, *kept[1:], params)
    _, query, variations, span, steps = kept
    deadline = Deadline(timeout)
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


def _opened(db: str | Path, kept: tuple):
    """``db`` open without :func:`connect`'s checks, which the file passed when the plan ``kept``
    for it was made; None where it cannot be opened (then the query is planned, and says why).
    A plan the columnar engine confirms imports the engine (numpy with it) while the file opens."""
    opening = Opening(db, checked=False)
    try:
        if kept[0] == "scanned":
            import cqlindex.columnar.run  # noqa: F401  (imported now, used by confirm_where)
        return opening.result()
    except DatabaseError:
        return None
    except BaseException:
        opening.close()
        raise


def _import_planner(held: bool) -> None:
    """Import what :func:`_planned` runs (the parser, the planner, sqlglot: most of a planning
    run's start-up), so that it happens while the index opens on another thread."""
    if held:
        import cqlindex.exec.run  # noqa: F401
    else:
        import cqlindex.exec.streamed  # noqa: F401


def _scanned(con, query: Query, where: str, facts: dict, params: dict) -> QueryResult:
    """:func:`cqlindex.exec.run.run`'s result for the prepared ``query`` whose kept plan has the
    columnar engine confirm the rows ``where`` selects (:mod:`cqlindex.exec.scanned`), reading
    ``facts`` (their SQL, kept with it), on the index open as ``con`` (closed here); the planner
    only for games the engine gives back."""
    from cqlindex.query.analyse import analyse
    from cqlindex.query.prepare import Prepared
    from cqlindex.query.rewrite import Expansions

    started = time.perf_counter()
    deadline = Deadline(params["timeout"])
    with closing(con):
        prepared = Prepared(query, Expansions(query.body), analyse(query))  # as prepare() ends
        result = QueryResult(query, prepared.variations, prepared.analysis.sort_keys)
        with running(con, deadline, query.text):
            result.games_examined = games_examined(con, prepared.gamenumbers)
            left = confirm_where(con, prepared, where, result, deadline, facts)
            if left:
                from cqlindex.exec.run import confirm_left, plan_prepared  # here: the planner, rarely

                plan = plan_prepared(con, prepared, params["include_unplayable"])
                confirm_left(con, prepared, plan, left, result, deadline, params["allow_files"])
    result.order()
    result.seconds = time.perf_counter() - started
    return result


def _planned(db: str | Path, text: str, params: dict, held: bool, **more) -> QueryResult:
    """The run that plans (no plan kept): run() where ``held``, else run_streamed()."""
    if held:
        from cqlindex.exec.run import run  # here: it imports the parser and the planner

        return run(db, text, **params, **more)
    from cqlindex.exec.streamed import run_streamed

    return run_streamed(db, text, **params, **more)
