"""Run a CQL query on an index: SQL for what SQL decides, the evaluator for the rest.

The default engine plans the query (:mod:`cqlindex.plan`), runs the SQL, and either returns
its rows as the matches (an exact plan) or asks the evaluator about the candidate positions
only: it loads the candidate rows alone when the query looks at nothing but the current
position, and the candidate games' trees otherwise. ``engine="python"`` runs the evaluator on every
game, the reference the planner is tested against.
"""

from __future__ import annotations

import time
from enum import Enum
from itertools import groupby
from operator import itemgetter
from pathlib import Path

from cqlindex.cql.ast import Number, Query
from cqlindex.cql.parser import parse
from cqlindex.errors import CqlSyntaxError
from cqlindex.evaluate.core import Evaluator
from cqlindex.evaluate.engine import QueryResult, says_messages, sort_keys, with_matchcount
from cqlindex.plan.planner import Plan, plan
from cqlindex.store.database import connect
from cqlindex.store.playable import unplayable_games
from cqlindex.store.trees import load_games, load_positions


class Engine(str, Enum):
    sql = "sql"
    python = "python"


def prepare(text: str, source: str = "<query>") -> Query:
    """Parse ``text`` and refuse what no engine runs (a bare number is not a filter)."""
    query = parse(text, source)
    for item in query.body.items:
        if isinstance(item, Number):
            raise CqlSyntaxError("a number is not a filter", query.text, item.span, source)
    return query


def plan_for(db: str | Path, text: str, *, variations: bool | None = None, source: str = "<query>",
             gamenumbers: tuple[int, int] | None = None, include_unplayable: bool = False) -> Plan:
    """The plan the default engine would run (for ``--explain``)."""
    query = prepare(text, source)
    con = connect(db)
    try:
        return _plan(con, query, variations, gamenumbers, include_unplayable)
    finally:
        con.close()


def _plan(con, query: Query, variations: bool | None, gamenumbers: tuple[int, int] | None,
          include_unplayable: bool) -> Plan:
    mode = variations if variations is not None else bool(query.header.variations)
    chess960 = bool(con.execute("SELECT coalesce(bool_or(chess960), false) FROM games").fetchall()[0][0])
    maps = bool(con.execute("SELECT count(*) FROM information_schema.columns WHERE table_name = 'positions' "
                            "AND column_name = 'white_attacks'").fetchall()[0][0])
    return plan(query, mode, chess960=chess960, attack_maps=maps, gamenumbers=gamenumbers,
                playable_only=not include_unplayable and bool(unplayable_games(con)))


def sorts_beyond_candidates(query: Query) -> bool:
    """Whether a sort value may come from a position that is not a candidate.

    A sort value is the best over every position where the sort filter is evaluated, including
    positions where the body then fails; the evaluator sees only the candidates. That is the
    same when the one sort is the body's last filter: it is evaluated only where every filter
    before it matched, and where it is evaluated the body matches exactly when it does, so a
    position outside the candidates never reaches it with a value. Otherwise the candidate
    games are evaluated at every position, as the reference engine does.
    """
    sorts = [key.node for key in sort_keys(query) if key.node is not None]
    if not sorts:
        return False
    return len(sorts) > 1 or sorts[0] is not query.body.items[-1]


def run(db: str | Path, text: str, *, variations: bool | None = None, source: str = "<query>",
        gamenumbers: tuple[int, int] | None = None, matchcount: tuple[int, int | None] | None = None,
        engine: Engine | str = Engine.sql, include_unplayable: bool = False) -> QueryResult:
    """Parse ``text`` and find its matches in the index at ``db``.

    ``gamenumbers`` and ``matchcount`` override the query's header, as CQL's options of those names do.
    Games marked unplayable (:mod:`cqlindex.store.playable`) are left out unless ``include_unplayable``.
    """
    started = time.perf_counter()
    query = with_matchcount(prepare(text, source), matchcount)
    if Engine(engine) is Engine.python or says_messages(query):
        # A message says what it says wherever it is evaluated, so the evaluator visits every position.
        from cqlindex.evaluate.engine import run as evaluate

        return evaluate(db, text, variations=variations, source=source, gamenumbers=gamenumbers,
                        matchcount=matchcount, include_unplayable=include_unplayable)
    con = connect(db)
    try:
        p = _plan(con, query, variations, gamenumbers, include_unplayable)
        result = QueryResult(query, p.variations)
        table = con.sql(p.sql).to_arrow_table()
        rows = zip(table.column(0).to_pylist(), table.column(1).to_pylist())
        candidates = {game: [pid for _, pid in group] for game, group in groupby(rows, key=itemgetter(0))}
        result.candidates = table.num_rows
        span = gamenumbers or query.header.gamenumber
        count_sql = "SELECT count(*) FROM games" + (" WHERE gamenumber BETWEEN ? AND ?" if span else "")
        result.games_examined = con.execute(count_sql, list(span) if span else []).fetchall()[0][0]
        if p.exact:
            for game, ids in candidates.items():
                result.keep(game, ids)
        else:
            evaluator = Evaluator(query, p.variations)
            for body, select in p.prefilters:
                rows = con.sql(select.sql(dialect="duckdb")).to_arrow_table()
                possible: dict[int, set[int]] = {}
                for game, position in zip(rows.column(0).to_pylist(), rows.column(1).to_pylist()):
                    possible.setdefault(game, set()).add(position)
                evaluator.prefilter[body] = possible
            sorting = sorts_beyond_candidates(query)
            trees = (load_positions(con, candidates) if p.row_local and not sorting
                     else load_games(con, candidates, variations=p.variations))
            for tree in trees:
                only = None if sorting else candidates[tree.gamenumber]
                result.keep(tree.gamenumber, evaluator.matches(tree, only), evaluator)
    finally:
        con.close()
    result.order()
    result.seconds = time.perf_counter() - started
    return result
