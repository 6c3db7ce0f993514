"""A connection kept open to each index a :class:`cqlindex.api.Database` has open, for its queries.

Why: DuckDB shares one database instance between the connections of a process to the same
file, and drops it when the last one closes. A query opens its own connection (and a second
one for its records); without one kept open, each opening read the file's header and catalog
again (25-50 ms) and started from an empty buffer cache, so 90 small queries in one session
paid seconds for opening alone. With one kept, a query's connection costs about 2 ms and finds
the pages the previous query read. ``cqlindex serve``'s workers keep their Databases open for it.

The kept connection follows the file: before each query :func:`refresh` compares the file's
identity (device, inode, size, modification time, and its write-ahead log's) with the one it
was opened on, and reopens it if the index was rebuilt in place (a build renames a new file
over the old one): otherwise every connection of the process would keep reading the old
instance. :func:`drop` closes it before the SQL sandbox locks the instance's configuration
(:mod:`cqlindex.store.sandbox`), which a kept connection would carry into the next queries.
One entry per file, shared by every Database open on it, closed when the last one goes.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from cqlindex.store.database import connect

_LOCK = threading.Lock()
#: realpath -> [connection or None, the file identity it was opened on, Databases holding it]
_KEPT: dict[str, list] = {}


def identity(path: str) -> tuple:
    """What changes when the file at ``path`` (a real path) is replaced or written: its stat and its WAL's."""
    def stat(name: str) -> tuple:
        try:
            found = os.stat(name)
        except OSError:
            return ()
        return found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns

    return stat(path), stat(path + ".wal")


def hold(path: str | Path) -> str:
    """Keep a connection open to the index at ``path`` (DatabaseError now if it is not one) for one
    more holder; returns the key to :func:`refresh`, :func:`drop` and :func:`release` it by."""
    key = os.path.realpath(path)
    with _LOCK:
        entry = _KEPT.setdefault(key, [None, (), 0])
        entry[2] += 1
    try:
        refresh(key, path)
    except BaseException:
        release(key)
        raise
    return key


def refresh(key: str, path: str | Path) -> None:
    """Make sure the kept connection to ``path`` (whose key is ``key``) is open on the file as it
    is now (reopened if it changed). ``path`` as the queries spell it: DuckDB finds its instance
    by the name it was opened with."""
    with _LOCK:
        entry = _KEPT.get(key)
        if entry is None or entry[2] == 0:
            return
        now = identity(key)
        if entry[0] is not None and entry[1] == now:
            return
        if entry[0] is not None:
            entry[0].close()  # the instance goes with its last connection: the next one reads the new file
            entry[0] = None
        entry[0], entry[1] = connect(path), now


def drop(key: str) -> None:
    """Close the kept connection now (the next :func:`refresh` opens it again)."""
    with _LOCK:
        entry = _KEPT.get(key)
        if entry is not None and entry[0] is not None:
            entry[0].close()
            entry[0] = None


def release(key: str) -> None:
    """One holder fewer; the connection is closed with the last one."""
    with _LOCK:
        entry = _KEPT.get(key)
        if entry is None:
            return
        entry[2] -= 1
        if entry[2] > 0:
            return
        del _KEPT[key]
        if entry[0] is not None:
            entry[0].close()
