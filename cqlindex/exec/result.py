"""A run's result: the matching positions of each matching game, in output order, with what
the output needs beside them (sort values, comments, messages) and what the run looked at.

Query-level CQL semantics live here, the same for both engines: a game matches when its
number of matching positions lies in the ``matchcount`` range (default: at least one), and
games come in gamenumber order, or by their sort values.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from cqlindex.cql.ast import Node, Query
from cqlindex.exec.game_rows import GameRows, positions_of

if TYPE_CHECKING:  # the analysis brings the filter catalogue, which a cached plan's run does without
    from cqlindex.query.analyse import SortKey


class Evaluated(Protocol):
    """What an evaluator leaves after a game: its sort values and comments (see Evaluator)."""

    sort_values: dict[Node, int]
    comments: dict[int, list[str]]
    edits: list[tuple]


@dataclass(slots=True)
class QueryResult:
    """Matching positions per matching game, in output order, and what the run looked at."""

    query: Query
    variations: bool
    #: The query's sort keys (from its analysis).
    keys: tuple[SortKey, ...] = ()
    #: A dict, or the rows of an exact plan as they came (:class:`GameRows`) until something writes here.
    matches: Mapping[int, list[int]] = field(default_factory=dict)
    games_examined: int = 0
    seconds: float = 0.0
    candidates: int | None = None  # positions the SQL planner handed to the evaluator (None: not planned)
    #: Per matching game, the best value of each sort key, None where it had none.
    sort_values: dict[int, tuple[int | None, ...]] = field(default_factory=dict)
    #: Per matching game, the text of the query's comment filters by positionid (CQL's smart comments).
    comments: dict[int, dict[int, list[str]]] = field(default_factory=dict)
    #: Per matching game, its removecomment / settag / removetag edits of the output, in order.
    edits: dict[int, list[tuple]] = field(default_factory=dict)
    #: What the query's message filters said, in order.
    messages: list[str] = field(default_factory=list)
    #: A streamed run (:mod:`cqlindex.exec.streamed`): the batches of matches still to come, each
    #: in output order and after the previous one; None when every match is in ``matches``.
    pending: Iterator[dict[int, list[int]]] | None = None
    #: Games and positions of the batches :meth:`batches` has handed out already.
    streamed_games: int = 0
    streamed_positions: int = 0

    @property
    def positions(self) -> int:
        return positions_of(self.matches) + self.streamed_positions

    @property
    def matching_games(self) -> int:
        """How many games matched (for a streamed run: in the batches handed out so far)."""
        return len(self.matches) + self.streamed_games

    def batches(self) -> Iterator[dict[int, list[int]]]:
        """The matches in output order, whole games at a time: ``matches`` at once, or a streamed
        run's batches as its search finds them, so that a writer holds one batch, not the result."""
        if self.pending is None:
            yield self.matches
            return
        pending, self.pending = self.pending, None
        for batch in pending:
            self.streamed_games += len(batch)
            self.streamed_positions += positions_of(batch)
            yield batch
            for game in batch:  # written: its comments and edits are not needed any more
                self.comments.pop(game, None)
                self.edits.pop(game, None)

    def hold(self) -> None:
        """Take a streamed run's pending batches into ``matches``, for the writers that need every
        game before the first (a table, HTML, the game numbers, a count)."""
        pending, self.pending = self.pending, None
        for batch in pending or ():
            if not self.matches:
                self.matches = batch
            else:
                self._writable().update(batch.items())

    def pairs(self) -> Iterator[tuple[int, list[int]]]:
        """(gamenumber, positionids) of every matching game, in output order (see :meth:`batches`)."""
        for batch in self.batches():
            yield from batch.items()

    def keep_all(self, found: Mapping[int, list[int]]) -> None:
        """:meth:`keep` for every game of ``found`` (an exact plan's rows, no evaluator): at once
        where the query has no matchcount range and no sort keys, as ~10^5 calls cost a tenth of
        a second (issue 16), and kept as it came (a :class:`GameRows` stays one) where nothing
        was kept before."""
        if self.query.header.matchcount is None and not self.keys:
            # every game of found has a matching position
            if not self.matches:
                self.matches = found
            else:
                self._writable().update(found.items())
            return
        for game, ids in found.items():
            self.keep(game, ids)

    def keep(self, gamenumber: int, ids: list[int], evaluator: Evaluated | None = None) -> None:
        """Record a game's matches if their number lies in the matchcount range, with its sort values."""
        low, high = self.query.header.matchcount or (1, None)
        if not ids or len(ids) < low or (high is not None and len(ids) > high):
            return
        self._writable()[gamenumber] = ids
        if evaluator is not None and evaluator.comments:
            self.comments[gamenumber] = evaluator.comments
        if evaluator is not None and evaluator.edits:
            self.edits[gamenumber] = evaluator.edits
        if self.keys:
            found = evaluator.sort_values if evaluator is not None else {}
            self.sort_values[gamenumber] = tuple(
                len(ids) if key.node is None else found.get(key.node) for key in self.keys)

    def _writable(self) -> dict[int, list[int]]:
        """``matches`` as a dict, made one if it is not (a :class:`GameRows` is read-only)."""
        if not isinstance(self.matches, dict):
            self.matches = dict(self.matches.items())
        return self.matches

    def order(self) -> None:
        """Put the matches in output order: by the sort keys (largest first, smallest with ``min``),
        games without a value after those with one, ties by gamenumber; gamenumber order without sort keys."""
        if not self.keys and isinstance(self.matches, GameRows):
            return  # in gamenumber order by construction
        numbers = list(self.matches)
        if not self.keys and all(a < b for a, b in zip(numbers, numbers[1:])):
            return  # in order already (the usual case: rows come grouped in gamenumber order)
        numbers.sort()
        if self.keys:
            def rank(game: int) -> tuple:
                values = self.sort_values[game]
                return (*((v is None, 0 if v is None else (v if key.minimum else -v))
                          for key, v in zip(self.keys, values)), game)

            numbers.sort(key=rank)
        self.matches = {game: self.matches[game] for game in numbers}
