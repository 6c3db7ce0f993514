"""Run a CQL query on an index: one :func:`run` for both engines.

The query is prepared once (:mod:`cqlindex.query`). The default engine plans it
(:mod:`cqlindex.plan`), runs the SQL, and either returns its rows as the matches (an exact
plan) or asks the evaluator about the candidate positions only: it loads the candidate rows
alone when the query looks at nothing but the current position (where the plan is a WHERE over
``positions`` alone, the columnar engine reads those rows by it, batch by batch, without
fetching them first), and the candidate games' trees otherwise. ``engine="python"`` runs the evaluator on every game, the reference the planner is
tested against; so does a query with a ``message`` filter, which speaks wherever it is evaluated,
and one with ``persistent`` variables or dictionaries, whose values carry from position to position.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import closing
from dataclasses import replace
from enum import Enum
from pathlib import Path

from cqlindex.cql import ast
from cqlindex.errors import CqlError
from cqlindex.evaluate.lasting import keeps_state, persistent_report
from cqlindex.exec import plan_cache
from cqlindex.exec.fanout import evaluate_games
from cqlindex.exec.result import QueryResult
from cqlindex.exec.rows import fetched, grouped, grouped_in, scanned_where, whole_sql
from cqlindex.exec.scanned import confirm_where
from cqlindex.exec.search import games_examined
from cqlindex.exec.timeout import Deadline, running
from cqlindex.plan.dialect import duckdb_sql
from cqlindex.plan.planner import Plan, plan
from cqlindex.query.prepare import Prepared, prepare
from cqlindex.store import rowmap
from cqlindex.store.database import columns, connect, table_names
from cqlindex.store.playable import unplayable_games
from cqlindex.store.trees import GameTree, load_games, load_positions


class Engine(str, Enum):
    sql = "sql"        # SQL for the candidates, the columnar engine for the rest
    tree = "tree"      # SQL for the candidates, the tree-walking evaluator for the rest
    python = "python"  # the tree-walking evaluator on every game (the reference)


def plan_for(db: str | Path, text: str, *, variations: bool | None = None, source: str = "<query>",
             gamenumbers: tuple[int, int] | None = None, include_unplayable: bool = False,
             portable: bool = False, con=None) -> Plan:
    """The plan the default engine would run (for ``--explain``); ``portable``: SQL that runs on
    a copy of the tables elsewhere too (no reliance on this file's storage order). ``con``: a
    connection to ``db`` the caller keeps open (a server plans every query it is asked), used
    and left open; else one is opened and closed here."""
    prepared = prepare(text, source, variations=variations, gamenumbers=gamenumbers)
    if con is not None:
        return plan_prepared(con, prepared, include_unplayable, portable)
    con = connect(db)
    try:
        return plan_prepared(con, prepared, include_unplayable, portable)
    finally:
        con.close()


def plan_prepared(con, prepared: Prepared, include_unplayable: bool = False, portable: bool = False) -> Plan:
    """Plan a prepared query for the index behind ``con`` (what it holds decides some SQL)."""
    present = columns(con, "positions")
    return plan(prepared.query, prepared.variations, attack_maps="white_attacks" in present,
                material="material" in present, pins="pinned" in present,
                twice="white_attacks_twice" in present, expansions=prepared.expansions,
                playable_only=not include_unplayable and bool(unplayable_games(con)),
                rowids=not portable and rowmap.holds(con))


def run(db: str | Path, text: str, *, variations: bool | None = None, source: str = "<query>",
        gamenumbers: tuple[int, int] | None = None, matchcount: tuple[int, int | None] | None = None,
        engine: Engine | str = Engine.sql, timeout: float | None = None,
        include_unplayable: bool = False, allow_files: bool = False, con=None,
        keep_as: str | None = None) -> QueryResult:
    """Parse ``text`` and find its matches in the index at ``db``.

    ``gamenumbers`` and ``matchcount`` override the query's header, as CQL's options of those names do.
    ``timeout`` (seconds) stops the run with QueryTimeout when it is up (see :mod:`cqlindex.exec.timeout`).
    Games marked unplayable (:mod:`cqlindex.store.playable`) are left out unless ``include_unplayable``.
    ``readfile`` and ``writefile`` touch files only with ``allow_files`` (else the run stops with
    CqlError before it starts); a query that writes files is evaluated at every position, as CQL does.

    ``con``: a connection to ``db`` already open, used and closed here. ``keep_as``: the key
    (:func:`cqlindex.exec.plan_cache.key`) under which to keep the plan if it is exact and runs
    as one SQL, or is a WHERE the columnar engine confirms (see :mod:`cqlindex.exec.plan_cache`).
    """
    started = time.perf_counter()
    deadline = Deadline(timeout)
    try:
        prepared = prepare(text, source, variations=variations, gamenumbers=gamenumbers, matchcount=matchcount)
        if prepared.analysis.files is not None and not allow_files:
            query = prepared.query
            raise CqlError(f"'{prepared.analysis.files.name}' reads or writes files, which is off here "
                           "(allow_files=True allows it; the command line does)", query.text,
                           prepared.analysis.files.span, query.source)
    except BaseException:
        if con is not None:
            con.close()
        raise
    con = connect(db) if con is None else con
    sized = with_collection_size(con, prepared)
    # Kept only where the key says all: not the collection's size (lastgamenumber), nor a file's text.
    keep_as = keep_as if sized is prepared and prepared.analysis.files is None else None
    prepared = sized
    result = QueryResult(prepared.query, prepared.variations, prepared.analysis.sort_keys)
    with closing(con), running(con, deadline, text):
        if evaluates_every_game(prepared, engine):
            _evaluate_every_game(con, prepared, result, deadline, include_unplayable, allow_files)
        else:
            _run_plan(con, prepared, result, deadline, include_unplayable, allow_files,
                      columnar=Engine(engine) is Engine.sql, keep_as=keep_as)
    result.order()
    result.seconds = time.perf_counter() - started
    return result


def evaluates_every_game(prepared: Prepared, engine: Engine | str = Engine.sql) -> bool:
    """Whether the run evaluates every game (the python engine, messages, writefile, values kept
    from position to position) rather than running a plan."""
    return (Engine(engine) is Engine.python or prepared.analysis.says_messages or _writes_files(prepared)
            or keeps_state(prepared.query))


def _writes_files(prepared: Prepared) -> bool:
    return prepared.analysis.files is not None and prepared.analysis.files.name == "writefile"


def sort_nodes(prepared: Prepared) -> tuple[ast.Node, ...]:
    """The sort filters whose values a game's result keeps (a forked evaluator sends them by place)."""
    return tuple(key.node for key in prepared.analysis.sort_keys if key.node is not None)


def with_collection_size(con, prepared: Prepared) -> Prepared:
    """``prepared`` knowing its collection's last game number if it asks (``lastgamenumber``)."""
    return knowing_last_game(prepared, last_gamenumber(con, prepared))


def last_gamenumber(con, prepared: Prepared) -> int | None:
    """The collection's last game number if ``prepared`` asks for it (``lastgamenumber``), else None:
    the last game the input had (read or not), at most the ``gamenumber`` range's end, as the
    reference counts it."""
    body = prepared.query.body
    if not any(isinstance(node, ast.Keyword) and node.name == "lastgamenumber" for node in ast.walk(body)):
        return None
    tables = table_names(con)
    sources = [f"(SELECT max(gamenumber) FROM {table})" for table in ("games", "errors") if table in tables]
    last = con.execute(f"SELECT greatest({', '.join(sources)})").fetchall()[0][0] or 0
    span = prepared.query.header.gamenumber
    return min(last, span[1]) if span is not None else last


def knowing_last_game(prepared: Prepared, last: int | None) -> Prepared:
    """``prepared`` with ``last`` as its collection's last game number (None: unchanged)."""
    if last is None:
        return prepared
    query = prepared.query
    return replace(prepared, query=replace(query, header=replace(query.header, last_gamenumber=last)))


def reads_game_text(query: ast.Query) -> bool:
    """Whether a main-line run must load the comments of the rest of the game too (``hhdb cooked``)."""
    from cqlindex.filters.game.hhdb import reads_game_text as reads

    return reads(query.body)


def _evaluate_every_game(con, prepared: Prepared, result: QueryResult, deadline: Deadline,
                         include_unplayable: bool, allow_files: bool = False) -> None:
    """The reference: the evaluator at every position of every game in the gamenumber range
    (but those marked unplayable, unless ``include_unplayable``)."""
    from cqlindex.evaluate.core import Evaluator  # here: a query SQL decides never loads the evaluator

    skip = frozenset() if include_unplayable else unplayable_games(con)
    header = prepared.query.header
    evaluator = Evaluator(prepared.query, prepared.variations, prepared.expansions)
    evaluator.deadline = deadline
    evaluator.allow_files = allow_files
    span = header.gamenumber
    selection = range(span[0], span[1] + 1) if span is not None else None

    def evaluated() -> Iterator[GameTree]:
        for tree in load_games(con, selection, variations=prepared.variations, texts=reads_game_text(prepared.query)):
            result.games_examined += 1
            if tree.gamenumber not in skip and (header.result is None or tree.result == header.result):
                yield tree

    # games share out unless one may see what another left: a persistent variable, a dictionary
    # kept for the run, a file written (a local dictionary starts afresh with each game)
    alone = bool(evaluator.run_names) or _writes_files(prepared)
    evaluate_games(evaluated(), evaluator, lambda tree: None, result.keep, sort_nodes(prepared), 1 if alone else None)
    result.messages = evaluator.messages + persistent_report(evaluator)


def _run_plan(con, prepared: Prepared, result: QueryResult, deadline: Deadline, include_unplayable: bool,
              allow_files: bool = False, columnar: bool = True, keep_as: str | None = None) -> None:
    """SQL for the candidates (or the matches), the evaluator for what SQL cannot decide; an
    exact plan run as one SQL, or a WHERE the columnar engine confirms, is kept under
    ``keep_as`` if given (and the query has no sort keys)."""
    p = plan_prepared(con, prepared, include_unplayable)
    where = _scanned(con, prepared, p) if columnar else None
    keep = keep_as is not None and not prepared.analysis.sort_keys
    if where is not None:
        from cqlindex.columnar.core import needed_facts

        facts = needed_facts(prepared.query, prepared.expansions)
        result.games_examined = games_examined(con, prepared.gamenumbers)
        left = confirm_where(con, prepared, where, result, deadline, facts)
        if left:
            confirm_left(con, prepared, p, left, result, deadline, allow_files)
        if keep:
            plan_cache.store(keep_as, ("scanned", prepared.query, where, facts))
        return
    every = _every_row(con, prepared, p)
    if every is not None:
        from cqlindex.columnar.run import confirm as confirm_columnar

        result.games_examined = games_examined(con, prepared.gamenumbers)
        result.candidates = con.execute(f"SELECT count(*) FROM positions AS p WHERE {every}").fetchall()[0][0]
        left, _ = confirm_columnar(con, prepared, p.variations, None, result.keep, deadline)
        if left:
            confirm_left(con, prepared, p, left, result, deadline, allow_files)
        return
    whole = whole_sql(con, p.select, p.batched)
    candidates, result.candidates = fetched(con, whole) if whole is not None else grouped(con, p.select, p.batched)
    result.games_examined = games_examined(con, prepared.gamenumbers)
    if p.exact:
        result.keep_all(candidates)
        if keep and whole is not None:
            plan_cache.store(keep_as, ("exact", prepared.query, prepared.variations, prepared.gamenumbers,
                                       [(None, None, whole)]))
        return
    confirm(con, prepared, p, candidates, result.keep, deadline, allow_files, columnar)


def _scanned(con, prepared: Prepared, p: Plan) -> str | None:
    """The plan's WHERE, where the columnar engine confirms its candidates by reading them
    itself (:func:`cqlindex.exec.scanned.confirm_where`): a row-local query the plan
    only narrows, over ``positions`` alone, whose matches need nothing the tree-walker writes
    (comments) or reads beyond the candidates (sort values from other positions)."""
    analysis = prepared.analysis
    if (p.exact or not p.row_local or p.batched or p.prefilters or analysis.comments
            or analysis.sorts_beyond_candidates or "games" not in table_names(con)
            or columnar_blocker(prepared) is not None):
        return None
    return scanned_where(p.select)


def _every_row(con, prepared: Prepared, p: Plan) -> str | None:
    """The plan's WHERE where its candidates are every position the columnar engine's frames
    hold (every position, or the main line's without variations) and the engine confirms them
    (``echo (s t) {s & t == . t > s}``, ``find`` over a game...): the engine then reads whole games
    without the candidates being fetched and grouped first (1.5 M rows at 20,000 games, ~0.3 s).
    None otherwise, as where the tree-walker writes comments (it goes over the matches after)."""
    if (p.exact or p.prefilters or prepared.analysis.comments or "games" not in table_names(con)
            or columnar_blocker(prepared) is not None):
        return None
    where = scanned_where(p.select)
    return where if where == "TRUE" or (where == "p.mainline" and not p.variations) else None


def confirm_left(con, prepared: Prepared, p: Plan, left: list[int], result: QueryResult, deadline: Deadline,
                 allow_files: bool) -> None:
    """The games the columnar engine gave back from the rows it read (``left``, in order): their
    candidates fetched and confirmed the usual way."""
    candidates, count = grouped_in(con, p.select, left[0], left[-1])
    result.candidates = (result.candidates or 0) + count
    confirm(con, prepared, p, candidates, result.keep, deadline, allow_files)


def columnar_blocker(prepared: Prepared) -> tuple[ast.Node, str] | None:
    """Why the columnar engine does not confirm this query's candidates (the filter that keeps it
    away, and why), or None when it does."""
    if prepared.analysis.files is not None:
        return prepared.analysis.files, "a query that reads or writes files runs on the tree-walking evaluator"
    from cqlindex.columnar.core import blocker

    return blocker(prepared.query, prepared.expansions)


def postfilter(p: Plan) -> str:
    """Which evaluator confirms the plan's candidates on the default engine, and if it is the
    tree-walker, the filter that keeps the columnar engine away (for ``--explain``)."""
    from cqlindex.query.analyse import analyse
    from cqlindex.query.rewrite import Expansions

    prepared = Prepared(p.query, Expansions(p.query.body), analyse(p.query))
    found = columnar_blocker(prepared)
    if found is None:
        return "the columnar engine"
    node, why = found
    text = " ".join(p.query.text[node.span.start:node.span.end].split())
    text = text if len(text) <= 40 else text[:37] + "..."
    return f"the tree-walking evaluator: {why} ({node.span.line}:{node.span.col} {text})"


def confirm(con, prepared: Prepared, p: Plan, candidates: dict[int, list[int]], keep,
            deadline: Deadline | None = None, allow_files: bool = False, columnar: bool = True,
            workers: int | None = None) -> None:
    """The post-filter on the plan's candidates: ``keep(gamenumber, ids, evaluator)`` per candidate game.

    The columnar engine answers where it evaluates every filter of the query (``columnar``), the
    tree-walking evaluator otherwise and for any games the columnar engine gave back.
    ``con`` holds the candidate games' rows (the index, or one Spark task's games in memory, see
    :mod:`cqlindex.exec.spark`); the plan's prefilters run on it as they are. The tree-walker's
    games are shared among ``workers`` processes (:mod:`cqlindex.exec.fanout`; default: one per core).
    """
    if columnar and candidates and columnar_blocker(prepared) is None:
        from cqlindex.columnar.run import confirm as confirm_columnar

        writes = prepared.analysis.comments
        found: dict[int, list[int]] = {}
        left, _ = confirm_columnar(con, prepared, p.variations, candidates,
                                   (lambda game, ids, _: ids and found.__setitem__(game, ids)) if writes else keep,
                                   deadline, every_position=prepared.analysis.sorts_beyond_candidates,
                                   row_local=p.row_local)
        if not left and not writes:
            return
        # Comments are the tree-walker's to write: it goes over the positions the columnar
        # engine found (and any games it gave back), and finds the same matches there.
        candidates = {**found, **{game: candidates[game] for game in left}} if writes else {
            game: candidates[game] for game in left}
    from cqlindex.evaluate.core import Evaluator

    evaluator = Evaluator(prepared.query, p.variations, prepared.expansions)
    if deadline is not None:
        evaluator.deadline = deadline
    evaluator.allow_files = allow_files
    for body, select in p.prefilters:
        games, positions, *_ = con.execute(duckdb_sql(select)).fetchnumpy().values()
        possible: dict[int, set[int]] = {}
        for game, position in zip(games.tolist(), positions.tolist()):
            possible.setdefault(game, set()).add(position)
        evaluator.prefilter[body] = possible
    sorting = prepared.analysis.sorts_beyond_candidates
    trees = (load_positions(con, candidates) if p.row_local and not sorting
             else load_games(con, candidates, variations=p.variations, texts=reads_game_text(prepared.query)))
    evaluate_games(trees, evaluator, (lambda tree: None) if sorting else (lambda tree: candidates[tree.gamenumber]),
                   keep, sort_nodes(prepared), workers)
