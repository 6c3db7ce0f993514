"""A time limit for one query, on both engines (``cqlindex query --timeout``, ``Database.query(timeout=)``).

The two engines spend their time in different places, so the limit is enforced in two ways:
DuckDB runs in C++ and cannot see a Python flag, so a timer thread calls
``connection.interrupt()`` when the time is up, and DuckDB stops the running statement at its
next check; the evaluator is Python and checks the deadline itself, once per position it
tests (:meth:`Deadline.check`), which is cheap next to testing a position. Either way the caller
gets one :class:`~cqlindex.errors.QueryTimeout` (exit code 4) and nothing is left half-done:
the connection is read-only and the result is built in memory.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from cqlindex.errors import DatabaseError, QueryTimeout
from cqlindex.store.database import first_line
from cqlindex.store.duckdb_light import duckdb


class Deadline:
    """A point in time after which the query must stop; ``seconds`` None means never."""

    def __init__(self, seconds: float | None) -> None:
        if seconds is not None and seconds <= 0:
            raise ValueError("a timeout must be a positive number of seconds")
        self.seconds = seconds
        self.at = None if seconds is None else time.monotonic() + seconds

    def remaining(self) -> float | None:
        return None if self.at is None else max(0.0, self.at - time.monotonic())

    def check(self) -> None:
        """Raise QueryTimeout if the time is up (the evaluator calls this per position)."""
        if self.at is not None and time.monotonic() >= self.at:
            raise self.expired()

    def expired(self) -> QueryTimeout:
        return QueryTimeout(f"the query ran past its time limit of {self.seconds:g} s (--timeout) and was stopped")


NO_DEADLINE = Deadline(None)

#: Cursors of a connection that run its statements on other threads (id of the connection ->
#: those cursors): interrupted with it, since DuckDB interrupts one connection at a time.
_companions: dict[int, set] = {}
_companions_lock = threading.Lock()


@contextmanager
def companion(con, cursor) -> Iterator[None]:
    """Within the block, interrupting ``con`` (the deadline of :func:`running`) interrupts
    ``cursor`` too: a cursor of ``con`` that runs part of its query on another thread."""
    with _companions_lock:
        _companions.setdefault(id(con), set()).add(cursor)
    try:
        yield
    finally:
        with _companions_lock:
            group = _companions.get(id(con), set())
            group.discard(cursor)
            if not group:
                _companions.pop(id(con), None)


def interrupt(con) -> None:
    """Stop ``con``'s running statement and those of its :func:`companion` cursors."""
    con.interrupt()
    with _companions_lock:
        cursors = list(_companions.get(id(con), ()))
    for cursor in cursors:
        cursor.interrupt()


@contextmanager
def running(con: duckdb.DuckDBPyConnection, deadline: Deadline, query: str) -> Iterator[None]:
    """Within the block, interrupt ``con``'s running statement when ``deadline`` passes (it
    becomes QueryTimeout); any other DuckDB error becomes a DatabaseError naming the CQL query
    (an arithmetic overflow in BIGINT, say), never a raw DuckDB exception."""
    remaining = deadline.remaining()
    timer = None
    fired = threading.Event()
    if remaining is not None:
        def stop() -> None:
            fired.set()
            interrupt(con)

        timer = threading.Timer(remaining, stop)
        timer.daemon = True
        timer.start()
    try:
        yield
    except (duckdb.Error, RuntimeError) as error:
        if interrupted(error):
            if fired.is_set():
                raise deadline.expired() from None
            raise KeyboardInterrupt from None  # DuckDB stopped by Ctrl-C, not by the timer
        if not isinstance(error, duckdb.Error):
            raise
        if fired.is_set():  # interrupted while DuckDB was reporting something else
            raise deadline.expired() from None
        raise DatabaseError(f"SQL error while running the query: {first_line(error)}; query: "
                            f"{' '.join(query.split())[:80]}") from None
    finally:
        if timer is not None:
            timer.cancel()


def interrupted(error: BaseException) -> bool:
    """Whether ``error`` is DuckDB saying it stopped a statement (``interrupt()`` or Ctrl-C):
    DuckDB raises InterruptException, or a plain RuntimeError when Python's SIGINT handler
    stopped it mid-fetch."""
    return isinstance(error, duckdb.InterruptException) or (
        type(error) is RuntimeError and "interrupted" in str(error).lower())
