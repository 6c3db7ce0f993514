"""The build's parse workers: pieces of input parsed in worker processes, handed back in order.

A worker can be lost in the middle of a build: the out-of-memory killer picks it, someone kills
it, or native code crashes in it. (Workers are not forked from the build, whose DuckDB threads
hold locks a fork would inherit: :func:`cqlindex.ingest.lifeline.clean_context`.) Python then marks the whole pool broken and every piece in flight fails with
``BrokenProcessPool``. The build used to end there with that traceback, and all it had read
was lost: CI saw it once, in three builds of one test file, cause unknown. Now the pieces not
yet read go to a new pool, once per build, and the build's summary warns of it. A worker lost
a second time ends the build with a message naming the file, as a piece that kills its reader
every time would.
"""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pyarrow as pa

from cqlindex import no_pandas
from cqlindex.errors import InputError
from cqlindex.ingest import worker
from cqlindex.ingest.chunks import Chunk
from cqlindex.heap import reuse_freed_memory
from cqlindex.ingest.lifeline import clean_context, lifeline_options, main_hidden, tie_to_parent


def parsed_by_workers(pieces: Iterator[tuple[Chunk, int]], workers: int, reader: str, schema: pa.Schema,
                      batch_games: int, spool: Path, warn: Callable[[str], None]):
    """(piece, bytes done, parsed piece) in input order, at most ``2 * workers`` pieces in flight;
    ``warn`` hears of a lost worker."""
    spool.mkdir(exist_ok=True)

    def submit(pool: ProcessPoolExecutor, chunk: Chunk) -> Future:
        with main_hidden():  # a submit may start a worker
            try:
                return pool.submit(worker.parse_chunk, chunk, reader, schema, batch_games, str(spool))
            except BrokenProcessPool as broken:
                # A worker was lost while pieces were still handed out (CI saw it once): the piece
                # fails as those in flight do, and is read again when its turn comes.
                failed: Future = Future()
                failed.set_exception(broken)
                return failed

    source = iter(pieces)
    pending: deque[tuple[Chunk, int, Future]] = deque()
    pool = _pool(workers)
    lost = False
    try:
        while True:
            while len(pending) < 2 * workers:
                piece = next(source, None)
                if piece is None:
                    break
                pending.append((*piece, submit(pool, piece[0])))
            if not pending:
                return
            chunk, done, future = pending[0]
            try:
                result = future.result()
            except BrokenProcessPool:
                if lost:
                    raise InputError(f"{chunk.file}: parse workers ended abruptly twice while reading it (from line "
                                     f"{chunk.line:,}); if it happens again, try --reader python-chess and report "
                                     "the file") from None
                lost = True
                warn(f"{chunk.file}: a parse worker ended abruptly (killed, or crashed) near line {chunk.line:,}; "
                     "the pieces it left were read again by new workers")
                pool.shutdown(wait=True, cancel_futures=True)
                pool = _pool(workers)
                pending = deque((c, d, f if _finished(f) else submit(pool, c)) for c, d, f in pending)
                continue
            pending.popleft()
            yield chunk, done, result
    finally:
        for _, _, future in pending:
            future.cancel()
        pool.shutdown(wait=True)


def _finished(future: Future) -> bool:
    """Whether ``future`` holds its piece's tables (a lost pool fails only the pieces it had not done)."""
    return future.done() and not future.cancelled() and future.exception() is None


#: How workers start: None for :func:`cqlindex.ingest.lifeline.clean_context`; tests whose stand-in
#: worker must reach the workers by fork set "fork".
START_METHOD: str | None = None


def _pool(workers: int) -> ProcessPoolExecutor:
    context = multiprocessing.get_context(START_METHOD) if START_METHOD else clean_context((worker.__name__,))
    return ProcessPoolExecutor(max_workers=workers, **lifeline_options(_start_worker, context))


def _start_worker(build_pid: int) -> None:
    """A parse worker's start: it ends with the build, its pyarrow never imports pandas, and its
    malloc keeps what a batch frees for the next (:mod:`cqlindex.heap`)."""
    tie_to_parent(build_pid)
    no_pandas.hide()
    reuse_freed_memory()
