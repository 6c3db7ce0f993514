"""The columnar engine on a plan's candidates: whole games read a batch at a time, the body
evaluated at the candidate rows of each batch, the matches handed to the result.

A batch is a few thousand games, so that Python's dispatch (once per filter per batch) is
spread over hundreds of thousands of positions while the frame's memory stays bounded. If a
kernel meets something it does not evaluate, the games not yet answered go back to the caller,
which hands them to the tree-walking evaluator: the answer is the same either way.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from itertools import chain

import numpy as np

from cqlindex.columnar.core import Columnar, needed_facts, reads_games
from cqlindex.columnar.frame import WholeGamesNeeded, read
from cqlindex.columnar.values import NotColumnar
from cqlindex.query.prepare import Prepared
from cqlindex.store.database import columns
from cqlindex.store.duckdb_light import duckdb

#: Games per frame at most: large enough that dispatch is negligible, small enough to bound memory.
BATCH_GAMES = 4000
#: Rows per frame at most (whole games, or the candidate rows alone), so that a frame's memory
#: is bounded by rows whatever the games' lengths. Each batch allocates its arrays afresh, and
#: where new memory costs a page fault per page (a virtual machine's first touch), a smaller
#: peak is time too: on the patterns at 20,000 games, 4,000 games a frame (about 310,000 rows)
#: took p24 to a 590 MB peak and p25 to 490 MB, 50,000 rows to 320 and 250 MB, and both ran faster.
BATCH_POSITIONS = 50_000
#: Positions of the games a batch that reads its candidates by the plan's WHERE scans (see
#: :func:`confirm`'s ``where``): each such read costs DuckDB a plan and the row groups (122,880
#: rows) the range touches, so a range of 50,000 made p05 of the patterns 32 reads of 30 ms.
SCANNED_POSITIONS = 150_000
#: Rows one scan reads at most (:class:`cqlindex.columnar.frame.Chunk`), cut into frames of a
#: batch each: a scan of a row group's size (122,880 rows) or more reads at about 100 ns a row,
#: one of 50,000 rows at 170. Whole file, in process, runs taken in turn: p19 of the patterns
#: 5.0-6.2 -> 3.4-4.6 s; 500,000 rows a scan was no quicker and held 130 MB more.
CHUNK_POSITIONS = 250_000
#: Positions one scan of a WHERE's rows (``confirm``'s ``where``) covers at most. Such a scan
#: reads the rows the WHERE selects, so the positions a scan covers follow the rows the scans
#: before it read per position (CHUNK_POSITIONS rows a scan), up to this: a scan costs DuckDB a
#: plan and the row groups of its range, and p02 of the patterns selects a few rows in a hundred
#: (76 scans of 150,000 positions on the whole file; 1,500,000 a scan took its run from 2.4 to 1.6 s).
SCANNED_CHUNK_POSITIONS = 2_000_000
#: Batches worked on at once: numpy and DuckDB let go of the GIL for their work, so two batches
#: keep both cores busy (each with its own cursor and engine).
THREADS = 2


def _wanted(frame, batch: list[int], candidates: dict[int, list[int]], every_position: bool) -> np.ndarray:
    """The frame rows of the batch's candidate positions (every row for ``every_position``)."""
    if every_position:  # a sort value may come from any position of a candidate game
        return np.arange(frame.size)
    starts = np.flatnonzero(frame.positionid == 0)
    start_of = dict(zip(frame.gamenumber[starts].tolist(), starts.tolist()))
    present = [g for g in batch if g in start_of]
    lists = [candidates[g] for g in present]
    lengths = np.fromiter(map(len, lists), np.int64, len(lists))
    ids = np.fromiter(chain.from_iterable(lists), np.int64, int(lengths.sum()))
    return np.repeat(np.fromiter((start_of[g] for g in present), np.int64, len(present)), lengths) + ids


def _game_sizes(con, games: list[int] | None, variations: bool) -> tuple[list[int], list[int] | None]:
    """(``games``, the rows each has in a frame of whole games), from the games table; every game
    of the index where ``games`` is None. The sizes are None where the table cannot say (a
    connection without it)."""
    if games is not None and not games:
        return [], []
    column = "positions" if variations else "mainline_positions"
    low, high = (games[0], games[-1]) if games is not None else (-2**31, 2**31 - 1)
    try:
        found = con.execute(f"SELECT gamenumber, coalesce({column}, 1) AS n FROM games WHERE gamenumber "
                            "BETWEEN ? AND ? ORDER BY gamenumber", [low, high]).fetchnumpy()
    except duckdb.Error:
        return games or [], None
    numbers = found["gamenumber"].tolist()
    if games is None:
        return numbers, found["n"].tolist()
    size = dict(zip(numbers, found["n"].tolist()))
    return games, [size.get(g, 1) for g in games]


def _batches(games: list[int], sizes: list[int] | None, most: int | None = None) -> list[list[int]]:
    """``games`` cut into batches of at most BATCH_GAMES games and, where their ``sizes`` are
    known, of at most ``most`` (BATCH_POSITIONS) rows (a game longer than that is a batch of its
    own). A step per batch, not per game: the whole file's 145,716 games took 50 ms one by one."""
    most = BATCH_POSITIONS if most is None else most
    if sizes is None:
        return [games[first:first + BATCH_GAMES] for first in range(0, len(games), BATCH_GAMES)]
    ends = np.cumsum(np.asarray(sizes, np.int64))  # rows up to and including each game
    batches: list[list[int]] = []
    first, rows = 0, 0
    while first < len(games):
        # the games whose rows still fit after ``rows``, at least one, at most BATCH_GAMES
        stop = int(np.searchsorted(ends, rows + most, side="right"))
        stop = min(max(stop, first + 1), first + BATCH_GAMES, len(games))
        batches.append(games[first:stop])
        first, rows = stop, int(ends[stop - 1])
    return batches


class _Chunker:
    """Consecutive batches grouped into scans of at most CHUNK_POSITIONS rows each (at least one
    batch a scan), a scan at a time as the runner asks (:meth:`take`). ``sizes``: the rows of each
    of ``games`` (None: unknown, a batch a scan). ``sparse``: the sizes are positions of which a
    WHERE selects some, so the rows the scans so far read per position (:meth:`seen`) say how
    many positions the next one covers, up to SCANNED_CHUNK_POSITIONS."""

    def __init__(self, batches: list[list[int]], sizes: list[int] | None, games: list[int], sparse: bool) -> None:
        self.batches = batches
        self._sizes = None
        if sizes is not None:  # batches are consecutive runs of ``games``: sums by one cumsum
            ends = np.cumsum([len(batch) for batch in batches])
            rows = np.concatenate(([0], np.cumsum(np.asarray(sizes, np.int64))))
            self._sizes = np.diff(rows[np.concatenate(([0], ends))]).tolist()
        self._sparse = sparse
        self._next = 0
        self._seen = [0, 0]  # positions covered, rows read
        #: The first batch of each chunk taken, and its positions.
        self.starts: list[int] = []
        self.positions: list[int] = []

    def take(self) -> list[list[int]] | None:
        """The next chunk's batches, None when every batch is taken."""
        first = self._next
        if first >= len(self.batches):
            return None
        stop = first + 1
        if self._sizes is not None:
            most = CHUNK_POSITIONS
            covered, read = self._seen
            if self._sparse and covered:
                most = int(min(SCANNED_CHUNK_POSITIONS, CHUNK_POSITIONS * covered / max(read, 1)))
            rows = self._sizes[first]
            while stop < len(self.batches) and rows + self._sizes[stop] <= most:
                rows += self._sizes[stop]
                stop += 1
        self._next = stop
        self.starts.append(first)
        self.positions.append(sum(self._sizes[first:stop]) if self._sizes is not None else 0)
        return self.batches[first:stop]

    def seen(self, index: int, rows: int) -> None:
        """Chunk ``index`` read ``rows`` rows."""
        self._seen[0] += self.positions[index]
        self._seen[1] += rows

    def left(self, index: int, done: int) -> list[int]:
        """The games from the batch after the first ``done`` of chunk ``index`` on."""
        return [g for batch in self.batches[self.starts[index] + done:] for g in batch]


def confirm(con, prepared: Prepared, variations: bool, candidates: dict[int, list[int]] | None,
            keep: Callable, deadline=None, every_position: bool = False,
            row_local: bool = False, where: str | None = None,
            rows_read: list[int] | None = None,
            facts: dict[str, str | int | None] | None = None,
            keep_rows: Callable | None = None) -> tuple[list[int], NotColumnar | None]:
    """Confirm ``candidates`` (gamenumber -> positionids) with the columnar engine, calling
    ``keep(gamenumber, ids, evaluator)`` for each candidate game in order; returns the games left
    unanswered (from the first batch a kernel could not evaluate on) and why. ``every_position``:
    evaluate at every position of the candidate games (for sort values), not only the candidates;
    ``row_local``: the query reads no other position than the current one, so a batch reads its
    candidate rows alone (a few rows of each game, often), not whole games.

    ``where`` (``candidates`` None, a row-local query): the candidates are the rows this
    condition over ``p`` selects (the plan's WHERE, :func:`cqlindex.exec.rows.scanned_where`),
    and each scan of a run of the index's games reads them itself (as many positions as the
    rows read so far per position allow, :class:`_Chunker`), each frame's number of rows added to
    ``rows_read``: fetched first as (gamenumber, positionid) and joined back, p24 of the patterns
    (1.45 M candidates) read its rows twice. A kernel asking for whole games then leaves the
    games from its batch on to the caller, as a refusal does. ``candidates`` None without
    ``where``: every position of every game of the index (``every_position``), whose whole
    games each batch reads anyway (an ``echo`` over the whole game: no list of 1.5 M candidates
    to fetch and group first). ``facts``: the query's :func:`needed_facts` where the caller has
    them (a kept plan: no SQL is built). ``keep_rows(games, ids)``, given with ``where`` by a
    caller that keeps no sort values and no per-game counts: each frame's hits handed on as two
    arrays instead (p26 of the patterns matched 590,000 positions in 142,777 games, and a list
    and a ``keep`` call per game took 0.5 of its 1.8 s on one thread)."""
    if facts is None:
        facts = needed_facts(prepared.query, prepared.expansions)
    games_too = reads_games(prepared.query, prepared.expansions)
    present = columns(con, "positions")
    threads = THREADS
    rows_only = [row_local and not every_position]  # cleared if a kernel walks the tree after all
    # The first scans leave the boards out; once a kernel asks for them, the rest read them with
    # the other columns (a second scan of a chunk's rows costs more than the boards themselves).
    # So with the board's planes, where a kernel asked for those alone (frame.PLANES).
    boards, planes = [False], [False]
    most = BATCH_POSITIONS
    if where is not None:  # the batches' ranges are what DuckDB scans: a few row groups each
        games, sizes = _game_sizes(con, None, variations)
        most = SCANNED_POSITIONS
    elif candidates is None:
        games, sizes = _game_sizes(con, None, variations)
        every_position, rows_only[0] = True, False
    elif rows_only[0]:
        games = sorted(candidates)
        sizes = [len(candidates[g]) for g in games]
    else:
        games, sizes = _game_sizes(con, sorted(candidates), variations)
    batches = _batches(games, sizes, most)

    def evaluate(frame, wanted: np.ndarray):
        engine = Columnar(prepared.query, variations, prepared.expansions)
        engine.deadline = deadline
        return wanted[engine.matches(frame, wanted)], engine

    def frames(chunk: list[list[int]], cursor, whole: bool, read_rows: list[int]):
        """Each batch of ``chunk`` with its frame, the chunk's rows read by one scan (their
        number added to ``read_rows``)."""
        games = [g for batch in chunk for g in batch]
        if whole:
            rows = read(cursor, games, variations, facts, present, games_too, boards=boards[0], planes=planes[0])
        else:
            rows = read(cursor, games, variations, facts, present, games_too,
                        rows=candidates if where is None else None, where=where, boards=boards[0],
                        planes=planes[0])
        read_rows[0] += rows.size
        try:
            for batch in chunk:
                if deadline is not None:
                    deadline.check()
                yield batch, rows.frame(*rows.rows_of(batch[0], batch[-1]))
        finally:
            boards[0] = boards[0] or rows.boards_read_later
            planes[0] = planes[0] or rows.planes_read_later

    bulk = keep_rows is not None and where is not None

    def by_game(frame, hits: np.ndarray, engine) -> tuple:
        if bulk:
            return frame.gamenumber[hits], frame.positionid[hits]
        return _by_game(frame.gamenumber[hits], frame.positionid[hits]), engine.sort_values()

    def work(chunk: list[list[int]], cursor) -> tuple[list[tuple[dict[int, list[int]], dict]], NotColumnar | None, int]:
        """What each batch of ``chunk`` found, up to the first a kernel refused (and why), and
        the rows read."""
        done: list[tuple[dict[int, list[int]], dict]] = []
        read_rows = [0]
        try:
            if rows_only[0]:
                try:
                    for batch, frame in frames(chunk, cursor, False, read_rows):
                        hits, engine = evaluate(frame, np.arange(frame.size))
                        if where is not None and rows_read is not None:
                            rows_read.append(frame.size)
                        done.append(by_game(frame, hits, engine))
                    return done, None, read_rows[0]
                except WholeGamesNeeded:
                    if where is not None:
                        raise NotColumnar(None, "a kernel reads the games' trees") from None
                    rows_only[0] = False
                    done = []
            for batch, frame in frames(chunk, cursor, True, read_rows):
                hits, engine = evaluate(frame, _wanted(frame, batch, candidates, every_position))
                done.append(by_game(frame, hits, engine))
        except NotColumnar as refusal:
            return done, refusal, read_rows[0]
        return done, None, read_rows[0]

    def answer(batch: list[int], found: tuple[dict[int, list[int]], dict]) -> None:
        # Every candidate game, hit or not (a Spark executor counts its candidates by these
        # calls); but of a WHERE's scan, whose batch is every game of its range (145,716 calls
        # on the whole file), the games with a hit alone: the result keeps nothing of the others.
        if bulk:
            keep_rows(*found)
            return
        by_game, sorted_by = found
        for game in batch if candidates is not None else by_game:
            keep(game, by_game.get(game, []), _Sorted(sorted_by.get(game, {})))

    chunker = _Chunker(batches, sizes, games, sparse=where is not None)
    chunks: list[list[list[int]]] = []

    def take() -> bool:
        """Another chunk into ``chunks``; False when there is none left."""
        chunk = chunker.take()
        if chunk is not None:
            chunks.append(chunk)
        return chunk is not None

    def settle(index: int, outcome) -> tuple[list[int], NotColumnar | None] | None:
        """Answer what chunk ``index`` found; where a kernel refused, the games left (that
        batch's on) and why."""
        done, refusal, rows = outcome
        chunker.seen(index, rows)
        for batch, what in zip(chunks[index], done):
            answer(batch, what)
        return None if refusal is None else (chunker.left(index, len(done)), refusal)

    if threads < 2 or len(batches) < 2:
        index = 0
        while take():
            stop = settle(index, work(chunks[index], con))
            if stop is not None:
                return stop
            index += 1
        return [], None
    cursors = [con.cursor() for _ in range(threads)]
    try:
        with ThreadPoolExecutor(threads) as pool:
            pending = []
            while len(pending) < threads and take():
                pending.append(pool.submit(work, chunks[-1], cursors[len(pending)]))
            index = 0
            while index < len(pending):
                stop = settle(index, pending[index].result())
                if stop is not None:
                    for later in pending[index + 1:]:
                        later.cancel()
                    return stop
                if take():  # the cursor this chunk used goes on to the next one, sized by what was read
                    pending.append(pool.submit(work, chunks[-1], cursors[index % threads]))
                index += 1
    finally:
        for cursor in cursors:
            cursor.close()
    return [], None


def _by_game(games: np.ndarray, ids: np.ndarray) -> dict[int, list[int]]:
    """{gamenumber: [positionid, ...]} of the hits, in their order. Frame rows come game by game,
    so a game's hits are one run, cut where the game changes: a dict entry per game, not a
    Python step per hit (p26 of the patterns: 590,000 hits, 0.3 s of its 0.9 in process)."""
    if not len(games):
        return {}
    if not (games[1:] >= games[:-1]).all():  # not game by game: one hit at a time
        found: dict[int, list[int]] = {}
        for game, pid in zip(games.tolist(), ids.tolist()):
            found.setdefault(game, []).append(pid)
        return found
    cuts = (np.flatnonzero(games[1:] != games[:-1]) + 1).tolist()
    bounds = [0, *cuts, len(games)]
    listed = ids.tolist()
    return {game: listed[begin:end] for game, begin, end in zip(games[bounds[:-1]].tolist(), bounds, bounds[1:])}


class _Sorted:
    """What the result reads of an evaluator after a game: its sort values (comments and edits
    are the tree-walker's, see :func:`cqlindex.exec.run.confirm`)."""

    __slots__ = ("sort_values",)
    comments: dict = {}
    edits: list = []

    def __init__(self, sort_values: dict) -> None:
        self.sort_values = sort_values
