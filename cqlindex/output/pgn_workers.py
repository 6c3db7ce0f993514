"""Matching games as PGN written by worker processes, a part of the result each, in its order.

One process writes 5,000-7,600 games/s of the 34 M-position benchmark index (issue 16), bound by
Python building each game's text from its rows: :func:`cqlindex.output.movetext.write_game` takes
over half the time, reading the rows a quarter. The games are independent of each other, so the
write is split into parts of up to :data:`cqlindex.output.pgn.HEADS` games: a worker process
opens the index read-only itself (DuckDB lets any number of readers share a file), reads the
part's rows and sources and returns its text, exactly as :func:`cqlindex.output.pgn.write_pgn`
would have written it; this process runs the query and writes the parts in the result's order,
at most two per worker in flight, so memory is a few parts' text whatever the number of games.
On 2 cores, the first 100,000 games of that index through the CLI: 9.3-10.1 s against 13.3-13.7 s
in one process (alternating runs, the same bytes), for ~3 CPU s more (the workers' start, the
parts sent over, each worker reading with its own buffers); the process tree's peak ~780 MB.

The workers are used for an index file opened read-only, with two cores or more, once the result
has shown :data:`MIN_GAMES` games (a streamed run's first batches are written here until then):
each worker costs ~0.4 CPU s to start. They are spawned, not forked: a forked child would inherit
this process's DuckDB instance without the threads that run it. A spawned child runs the parent's
main script again unless told otherwise, which a script using :mod:`cqlindex.api` without an
``if __name__ == "__main__"`` guard would not survive: the workers are started with the main module
hidden (:func:`cqlindex.ingest.lifeline.main_hidden`), as they need nothing of it. A worker that dies (killed, out
of memory) breaks the pool; its part and every later one are then written in this process, so
nothing is lost. On any other exception (Ctrl-C included) the workers are ended at once, and they
end with this process should it be killed (:mod:`cqlindex.ingest.lifeline`).
"""

from __future__ import annotations

import io
import multiprocessing
import os
from collections import deque
from collections.abc import Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import TextIO

from cqlindex import no_pandas
from cqlindex.ingest.lifeline import main_hidden, tie_to_parent
from cqlindex.output.pgn import BATCH, HEADS, PgnSummary, index_directory, write_games, write_pgn
from cqlindex.output.sources import Sources
from cqlindex.output.threaded import usable_cores

#: Games a result must have shown before workers are started: below it their start-up costs about
#: what they would save.
MIN_GAMES = 10_000


@dataclass(frozen=True, slots=True)
class Label:
    """A sort key as the PGN header needs it: its label only (the key's filter stays here)."""

    label: str


@dataclass(slots=True)
class Part:
    """Some consecutive games of a result, with what writing them needs of it: what
    :func:`cqlindex.output.pgn.write_games` reads of a result, small enough to send to a worker."""

    keys: tuple[Label, ...]
    matches: Mapping[int, list[int]]
    sort_values: dict[int, tuple]
    comments: dict[int, dict[int, list[str]]]
    edits: dict[int, list[tuple]]


def write_pgn_games(con, result, out: TextIO, *, matchstring: str = "CQL", variations: bool, silent: bool = False,
                    with_header: bool = True, reference: bool = False, workers: int | None = None) -> PgnSummary:
    """:func:`cqlindex.output.pgn.write_pgn` of ``result`` to ``out`` (the same options, the same
    bytes), with up to ``workers`` processes (default: one per usable core) when that pays."""
    options = dict(matchstring=matchstring, variations=variations, silent=silent, with_header=with_header)
    database = _shared_file(con)
    workers = usable_cores() if workers is None else workers
    if reference or database is None or workers < 2:
        return write_pgn(con, result, out, reference=reference, **options)
    summary = PgnSummary()
    here = _Here(con, options, Sources(index_directory(con)))
    pool: ProcessPoolExecutor | None = None
    pending: deque[tuple[Part, Future | None]] = deque()
    seen = 0
    try:
        for matches in result.batches():
            seen += len(matches)
            if pool is None and seen < MIN_GAMES:
                here.write(result, matches, out, summary)
                continue
            if pool is None:
                pool = _pool(database, workers)
            for part in parts(result, matches, workers):
                pending.append((part, here.submit(pool, part)))
                while len(pending) > 2 * workers:
                    here.collect(*pending.popleft(), out, summary)
        while pending:
            here.collect(*pending.popleft(), out, summary)
    except BaseException:
        if pool is not None:
            _terminate(pool)
            pool = None
        raise
    finally:
        if pool is not None:
            pool.shutdown(wait=True)
        here.sources.close()
    return summary


def parts(result, matches: Mapping[int, list[int]], workers: int) -> list[Part]:
    """``matches`` (a batch of ``result``) cut into parts in order: at most ``HEADS`` games
    each, and at least two per worker where the batch allows it (``BATCH`` games or more)."""
    pairs = list(matches.items())  # one pass: a GameRows makes its lists here, not a lookup per game
    size = max(BATCH, min(HEADS, -(-len(pairs) // (2 * workers))))
    labels = tuple(Label(key.label) for key in result.keys)
    cut = []
    for start in range(0, len(pairs), size):
        some = dict(pairs[start:start + size])
        games = list(some)
        cut.append(Part(labels, some, _some(result.sort_values, games), _some(result.comments, games),
                        _some(result.edits, games)))
    return cut


def _some(values: dict, games: list[int]) -> dict:
    return {n: values[n] for n in games if n in values}


def _shared_file(con) -> str | None:
    """The index file behind ``con`` when other processes may open it too (read-only); else None."""
    rows = con.execute("SELECT path, readonly FROM duckdb_databases() WHERE database_name = current_database()"
                       ).fetchall()
    return rows[0][0] if rows and rows[0][0] and rows[0][1] else None


def _pool(database: str, workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_start, initargs=(os.getpid(), database))


def _terminate(pool: ProcessPoolExecutor) -> None:
    """End the workers now, their parts unfinished (Python 3.14 has ``terminate_workers``)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.kill()


class _Here:
    """Writing in this process: the batches before the workers start, and every part once a
    worker has died. Holds this process's source reader, as ``write_pgn`` does."""

    def __init__(self, con, options: dict, sources: Sources) -> None:
        self.con, self.options, self.sources = con, options, sources
        self.gone: dict[str, bool] = {}
        self.broken = False

    def write(self, result, matches: Mapping[int, list[int]], out: TextIO, summary: PgnSummary) -> None:
        write_games(self.con, result, matches, out, summary, self.options, reference=False, sources=self.sources,
                    gone=self.gone)

    def submit(self, pool: ProcessPoolExecutor, part: Part) -> Future | None:
        """The worker's future for ``part``; None once the pool is broken (written here then)."""
        if self.broken:
            return None
        try:
            with main_hidden():  # a submit may start a worker
                return pool.submit(_write_part, part, self.options)
        except BrokenProcessPool:
            self.broken = True
            return None

    def collect(self, part: Part, future: Future | None, out: TextIO, summary: PgnSummary) -> None:
        """Write ``part``: the worker's text, or (no worker, or it died) the part written here."""
        if future is not None:
            try:
                text, games, rebuilt, reference = future.result()
            except BrokenProcessPool:
                self.broken = True
            else:
                out.write(text)
                summary.games += games
                summary.rebuilt += rebuilt
                summary.reference += reference
                return
        self.write(part, part.matches, out, summary)


#: A worker's connection to the index, its source reader and what it found missing, for all its parts.
_worker: _Here | None = None


def _start(parent: int, database: str) -> None:
    """A worker's start: tied to the writing process, its pyarrow kept from importing pandas, the
    index opened read-only."""
    global _worker
    tie_to_parent(parent)
    no_pandas.hide()
    from cqlindex.store.database import connect

    try:
        con = connect(database)
    except Exception:  # noqa: BLE001 - gone or changed since: the pool breaks, the parent writes the parts
        os._exit(1)  # (and says what is wrong with the index, if anything): no traceback on stderr here
    con.execute("SET threads = 1")  # one core per worker: the workers are the parallelism
    _worker = _Here(con, {}, Sources(index_directory(con)))


def _write_part(part: Part, options: dict) -> tuple[str, int, list[int], int]:
    """In a worker: ``part`` as PGN, with its games, rebuilt games and games written by python-chess."""
    assert _worker is not None, "a worker starts with _start"
    out, summary = io.StringIO(), PgnSummary()
    write_games(_worker.con, part, part.matches, out, summary, options, reference=False, sources=_worker.sources,
                gone=_worker.gone)
    return out.getvalue(), summary.games, summary.rebuilt, summary.reference
