"""The matching positionids of many games, held as arrays and turned into lists only when read.

A query SQL decides can match hundreds of thousands of positions in a hundred thousand games
(query b1 of the benchmark: 469,893 in 121,818 games on 34 M positions). Building a Python list
per game costs ~0.1 s there, more than the scan DuckDB does to find them (issue 16), and much of
what a run does with its result never looks inside the lists: counting games and positions, the
closing line, the game numbers, the order check. :class:`GameRows` keeps the grouping DuckDB's
arrays gave (where each game starts in one flat array of ids) and makes a game's list when
someone asks for it; a writer that reads every game pays the same as before, one game at a time.

It is a read-only :class:`~collections.abc.Mapping` in gamenumber order, so everything that reads
a ``{gamenumber: [positionid, ...]}`` dict reads it unchanged; the result converts it to a dict
before anything writes into it (:meth:`cqlindex.exec.result.QueryResult.keep`).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import ItemsView, Iterator, Mapping, ValuesView
from operator import index


class GameRows(Mapping[int, list[int]]):
    """``{gamenumber: [positionid, ...]}`` over three arrays: the games in ascending order,
    where each one's ids start in ``ids`` (``bounds``, one more than the games), and the ids."""

    __slots__ = ("_games", "_bounds", "_ids")

    def __init__(self, games: list[int], bounds: list[int], ids) -> None:
        """``ids``: anything sliced into objects with ``tolist()`` (a numpy array)."""
        if len(bounds) != len(games) + 1 or (bounds and bounds[-1] != len(ids)):
            raise ValueError("GameRows: bounds must hold each game's start and the end of ids")
        self._games = games
        self._bounds = bounds
        self._ids = ids

    @property
    def positions(self) -> int:
        """The number of positionids of all games (without making a list)."""
        return len(self._ids)

    def __len__(self) -> int:
        return len(self._games)

    def __iter__(self) -> Iterator[int]:
        return iter(self._games)

    def __contains__(self, game: object) -> bool:
        return self._index(game) is not None

    def __getitem__(self, game: int) -> list[int]:
        i = self._index(game)
        if i is None:
            raise KeyError(game)
        return self._ids[self._bounds[i]:self._bounds[i + 1]].tolist()

    def _index(self, game: object) -> int | None:
        try:
            game = index(game)  # an int, or a numpy integer
        except TypeError:
            return None
        i = bisect_left(self._games, game)
        return i if i < len(self._games) and self._games[i] == game else None

    def items(self) -> ItemsView[int, list[int]]:
        return _Items(self)

    def values(self) -> ValuesView[list[int]]:
        return _Values(self)

    def _pairs(self) -> Iterator[tuple[int, list[int]]]:
        # One conversion and list slices: a ``tolist()`` per game costs several times more when
        # the ids are spread over tens of thousands of games.
        flat = self._ids.tolist()
        bounds = self._bounds
        return zip(self._games, map(flat.__getitem__, map(slice, bounds[:-1], bounds[1:])))

    def __repr__(self) -> str:
        return f"GameRows({dict(self.items())!r})"


class _Items(ItemsView):
    _mapping: GameRows

    def __iter__(self) -> Iterator[tuple[int, list[int]]]:
        return self._mapping._pairs()


class _Values(ValuesView):
    _mapping: GameRows

    def __iter__(self) -> Iterator[list[int]]:
        return (ids for _, ids in self._mapping._pairs())


def from_arrays(games, ids) -> GameRows:
    """:class:`GameRows` of two numpy arrays of (gamenumber, positionid) pairs, sorted first
    where they are not in that order already (the usual case: a scan's or a frame's order)."""
    import numpy as np  # here: a query whose plan SQL answers alone starts without numpy

    if not len(games):
        return GameRows([], [0], ids)
    later = games[1:] > games[:-1]
    if not (later | ((games[1:] == games[:-1]) & (ids[1:] > ids[:-1]))).all():
        # One key and a stable sort, which finds the runs a scan's threads returned in order:
        # p26 of the patterns (4.2 M rows mapped through the row map in 490 runs) 0.28 s with
        # lexsort, 0.06 s so.
        order = np.argsort((games.astype(np.int64) << 32) | ids.astype(np.int64), kind="stable")
        games, ids = games[order], ids[order]
        later = games[1:] > games[:-1]
    bounds = [0, *(np.flatnonzero(later) + 1).tolist(), len(games)]
    return GameRows(games[bounds[:-1]].tolist(), bounds, ids)


def joined(parts: list[Mapping[int, list[int]]]) -> Mapping[int, list[int]]:
    """One mapping of ``parts``, each one's games after the last one's: one :class:`GameRows`
    where every part is one (a windowed plan's batches: p16 of the patterns put 140,652 games'
    lists into a dict, 0.19 s), else a dict."""
    parts = [part for part in parts if len(part)]
    if len(parts) == 1:
        return parts[0]
    if parts and all(isinstance(part, GameRows) for part in parts):
        import numpy as np  # GameRows hold numpy arrays: it is loaded

        games: list[int] = []
        bounds = [0]
        for part in parts:
            games += part._games
            bounds += [bound + bounds[-1] for bound in part._bounds[1:]]
        return GameRows(games, bounds, np.concatenate([part._ids for part in parts]))
    found: dict[int, list[int]] = {}
    for part in parts:
        found.update(part.items())
    return found


def positions_of(matches: Mapping[int, list[int]]) -> int:
    """How many positionids ``matches`` holds, reading no list where it need not."""
    if isinstance(matches, GameRows):
        return matches.positions
    return sum(map(len, matches.values()))
