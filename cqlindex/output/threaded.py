"""A stream's pieces worked on in threads, the results handed out in the stream's order.

The record writers (:mod:`cqlindex.output.stream`) spend their time in DuckDB, Arrow and numpy,
which let go of the GIL while they work: threads each turning one batch of matches into records
keep every core busy where one thread kept one. On 2 cores, the 34 M-position benchmark index:
``true --format ndjson`` in 93 s against 168 s (369,000 records/s), ``--format csv`` in 78 s
against 130 s, the same bytes, for about the same CPU. Each thread works through its own cursor
on the caller's connection, as a batch registers its tables by name. At most two pieces per
thread are in flight, so memory is a few batches' whatever the size of the stream; the stream
itself (a streamed run's search, say) is read in the caller's thread only.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from itertools import chain, islice
from typing import TypeVar

Piece = TypeVar("Piece")
Done = TypeVar("Done")

#: More threads than this gain nothing: the caller's writing and the stream's reading are serial.
MOST_THREADS = 4


def usable_cores() -> int:
    """The cores this process may run on (its affinity, where the platform says)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def ordered_map(con, work: Callable[[object, Piece], Done], pieces: Iterable[Piece],
                threads: int | None = None) -> Iterator[Done]:
    """``work(cursor, piece)`` of each of ``pieces``, in their order, in up to ``threads``
    threads (default: one per usable core, at most :data:`MOST_THREADS`), each with a cursor of
    ``con``; with one thread, or a single piece, in this one on ``con`` itself.

    Why a single piece stays here: a thread and a cursor cost a few milliseconds and save
    nothing on one piece, and one piece is the common case of a server's page (its 50 games)."""
    threads = min(usable_cores(), MOST_THREADS) if threads is None else threads
    pieces = iter(pieces)
    ahead = list(islice(pieces, 2))
    if threads < 2 or len(ahead) < 2:
        for piece in chain(ahead, pieces):
            yield work(con, piece)
        return
    pieces = chain(ahead, pieces)
    local = threading.local()
    cursors: list = []

    def run(piece: Piece) -> Done:
        cursor = getattr(local, "cursor", None)
        if cursor is None:
            cursor = local.cursor = con.cursor()
            cursors.append(cursor)
        return work(cursor, piece)

    pool = ThreadPoolExecutor(threads, thread_name_prefix="cqlindex-records")
    pending: deque = deque()
    try:
        for piece in pieces:
            pending.append(pool.submit(run, piece))
            while len(pending) > 2 * threads:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        # The pieces not started are dropped; a running one is finished (a thread cannot be
        # stopped) before its cursor is closed.
        pool.shutdown(wait=True, cancel_futures=True)
        for cursor in cursors:
            cursor.close()
