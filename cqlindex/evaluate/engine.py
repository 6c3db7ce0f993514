"""Run a CQL query over an index with the reference evaluator.

CQL's defaults apply: the main line only unless ``variations`` (header or argument), a game
matches when its number of matching positions lies in the ``matchcount`` range (default at
least one), and games come in gamenumber order.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from cqlindex.cql.ast import Number, Query
from cqlindex.cql.parser import parse
from cqlindex.errors import CqlSyntaxError
from cqlindex.evaluate.core import Evaluator
from cqlindex.store.database import connect
from cqlindex.store.trees import load_games


@dataclass(slots=True)
class QueryResult:
    """Matching positions per matching game, in gamenumber order, and what the run looked at."""

    query: Query
    variations: bool
    matches: dict[int, list[int]] = field(default_factory=dict)
    games_examined: int = 0
    seconds: float = 0.0
    candidates: int | None = None  # positions the SQL planner handed to the evaluator (None: not planned)

    @property
    def positions(self) -> int:
        return sum(len(ids) for ids in self.matches.values())


def run(db: str | Path, text: str, *, variations: bool | None = None, source: str = "<query>",
        gamenumbers: tuple[int, int] | None = None) -> QueryResult:
    """Parse ``text`` and evaluate it on every game of the index at ``db``."""
    started = time.perf_counter()
    query = parse(text, source)
    for item in query.body.items:
        if isinstance(item, Number):
            raise CqlSyntaxError("a number is not a filter", query.text, item.span, source)
    header = query.header
    mode = variations if variations is not None else bool(header.variations)
    span = gamenumbers or header.gamenumber
    result = QueryResult(query, mode)
    low, high = header.matchcount or (1, None)
    evaluator = Evaluator(query, mode)
    con = connect(db)
    try:
        selection = None
        if span is not None:
            selection = range(span[0], span[1] + 1)
        for tree in load_games(con, selection, variations=mode):
            result.games_examined += 1
            if header.result is not None and tree.result != header.result:
                continue
            ids = evaluator.matches(tree)
            if len(ids) >= low and (high is None or len(ids) <= high) and ids:
                result.matches[tree.gamenumber] = ids
    finally:
        con.close()
    result.seconds = time.perf_counter() - started
    return result
