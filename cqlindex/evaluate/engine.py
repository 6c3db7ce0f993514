"""Run a CQL query over an index with the reference evaluator.

CQL's defaults apply: the main line only unless ``variations`` (header or argument), a game
matches when its number of matching positions lies in the ``matchcount`` range (default at
least one), and games come in gamenumber order.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from cqlindex.cql.ast import Number, Output, Query, Sort, walk
from cqlindex.cql.parser import parse
from cqlindex.errors import CqlSyntaxError
from cqlindex.evaluate.core import Evaluator
from cqlindex.store.database import connect
from cqlindex.store.playable import unplayable_games
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
    #: Per matching game, the best value of each sort key (see :func:`sort_keys`), None where it had none.
    sort_values: dict[int, tuple[int | None, ...]] = field(default_factory=dict)
    #: Per matching game, the text of the query's comment filters by positionid (CQL's smart comments).
    comments: dict[int, dict[int, list[str]]] = field(default_factory=dict)
    #: What the query's message filters said, in order.
    messages: list[str] = field(default_factory=list)
    #: The query's sort keys, found once (see :func:`sort_keys`).
    keys: tuple[SortKey, ...] = field(init=False)

    def __post_init__(self) -> None:
        self.keys = sort_keys(self.query)

    @property
    def positions(self) -> int:
        return sum(len(ids) for ids in self.matches.values())

    def keep(self, gamenumber: int, ids: list[int], evaluator: Evaluator | None = None) -> None:
        """Record a game's matches if their number lies in the matchcount range, with its sort values."""
        low, high = self.query.header.matchcount or (1, None)
        if not ids or len(ids) < low or (high is not None and len(ids) > high):
            return
        self.matches[gamenumber] = ids
        if evaluator is not None and evaluator.comments:
            self.comments[gamenumber] = evaluator.comments
        if self.keys:
            found = evaluator.sort_values if evaluator is not None else {}
            self.sort_values[gamenumber] = tuple(
                len(ids) if key.node is None else found.get(key.node) for key in self.keys)

    def order(self) -> None:
        """Put the matches in output order: by the sort keys (largest first, smallest with ``min``),
        games without a value after those with one, ties by gamenumber; gamenumber order without sort keys."""
        numbers = sorted(self.matches)
        if self.keys:
            def rank(game: int) -> tuple:
                values = self.sort_values[game]
                return (*((v is None, 0 if v is None else (v if key.minimum else -v))
                          for key, v in zip(self.keys, values)), game)

            numbers.sort(key=rank)
        self.matches = {game: self.matches[game] for game in numbers}


@dataclass(frozen=True, slots=True)
class SortKey:
    """One way the output is ordered: a ``sort`` filter (``node``) or the header's ``sort matchcount`` (None)."""

    label: str
    minimum: bool
    node: Sort | None


def sort_keys(query: Query) -> tuple[SortKey, ...]:
    """The query's sort keys in order of importance: ``sort matchcount``, then each ``sort`` in the text."""
    keys = [SortKey("matchcount", False, None)] if query.header.sort_matchcount else []
    for node in walk(query.body):
        if isinstance(node, Sort):
            label = node.doc or query.text[node.body.span.start:node.body.span.end]
            keys.append(SortKey(label, node.min, node))
    return tuple(keys)


def says_messages(query: Query) -> bool:
    """Whether the query has a message filter: debugging output at every position it is evaluated at."""
    return any(isinstance(node, Output) and node.name == "message" for node in walk(query.body))


def with_matchcount(query: Query, matchcount: tuple[int, int | None] | None) -> Query:
    """``query`` with its header's matchcount range replaced (CQL's ``-matchcount`` option), if one is given."""
    if matchcount is None:
        return query
    return replace(query, header=replace(query.header, matchcount=matchcount))


def run(db: str | Path, text: str, *, variations: bool | None = None, source: str = "<query>",
        gamenumbers: tuple[int, int] | None = None,
        matchcount: tuple[int, int | None] | None = None, include_unplayable: bool = False) -> QueryResult:
    """Parse ``text`` and evaluate it on every game of the index at ``db`` (but those marked
    unplayable, unless ``include_unplayable``: see :mod:`cqlindex.store.playable`)."""
    started = time.perf_counter()
    query = with_matchcount(parse(text, source), matchcount)
    for item in query.body.items:
        if isinstance(item, Number):
            raise CqlSyntaxError("a number is not a filter", query.text, item.span, source)
    header = query.header
    mode = variations if variations is not None else bool(header.variations)
    span = gamenumbers or header.gamenumber
    result = QueryResult(query, mode)
    evaluator = Evaluator(query, mode)
    con = connect(db)
    try:
        skip = frozenset() if include_unplayable else unplayable_games(con)
        selection = None
        if span is not None:
            selection = range(span[0], span[1] + 1)
        for tree in load_games(con, selection, variations=mode):
            result.games_examined += 1
            if tree.gamenumber in skip:
                continue
            if header.result is not None and tree.result != header.result:
                continue
            result.keep(tree.gamenumber, evaluator.matches(tree), evaluator)
    finally:
        con.close()
    result.messages = evaluator.messages
    result.order()
    result.seconds = time.perf_counter() - started
    return result
