"""Plans kept between runs of ``cqlindex query``, so that a query asked again starts at its SQL
(issue 34: start-up).

Why: before its first row, a fresh ``cqlindex query`` spends most of its time importing the
parser and the planner (sqlglot among them) and planning, ~0.2 s of ~0.35 s on an idle machine,
for a query whose SQL is the same as last time. A kept plan is the run's prepared query (for the
result's header) and, for each range of games the streamed run searches, the SQL it ran there
(:mod:`cqlindex.exec.cached` runs it with neither the parser nor sqlglot imported), or the WHERE
whose rows the columnar engine confirms (run again without sqlglot).

A plan is reused only where it is certainly the same. Its key is everything the plan and its
ranges are made of, written out: the query text and its source name; the run's options
(variations, game and match-count ranges, unplayable games, files, held or streamed); the index
file's identity (its real path, device, inode, size, modification and change times, and its
write-ahead log's, which a read-only open replays); and the code that planned it (cqlindex's
version, the size and modification time of each of its source files and of sqlglot's, DuckDB's
and Python's versions). What the planner reads from the index (its schema version, the columns
of ``positions``, the games marked unplayable, whether its row map holds, its ranges of games)
is the file's content, and a file whose identity is unchanged has not been written since: no
write, rename or copy over it leaves its inode, size and change time as they were (``utime``
sets the modification time back, never the change time). So the key is made before the index is opened, with no query of its catalog, and
a kept run opens the file without :func:`cqlindex.store.database.connect`'s checks, which it
passed when the plan was made (:mod:`cqlindex.exec.cached` checks the identity again once the
file is open). The key is kept in the entry and compared whole when it is read; the file's name
is only a checksum of it, so two keys that share a name miss, never mix. Two kinds of plan are
kept (:func:`cqlindex.exec.streamed.run_streamed` and :func:`cqlindex.exec.run.run` say when):
an exact plan with no prefilters, whose SQL's rows are the matches, and a plan whose candidates
the columnar engine confirms by reading the rows its WHERE selects (``ray (Q k)``), kept as that
WHERE and the query it confirms.

Entries live under ``$XDG_CACHE_HOME/cqlindex/plans`` (``~/.cache`` without it), never beside
the index, which stays read-only. An entry is a pickle, read back only by the user who wrote it
(the directory is made private); any failure to read or write one is a plan not kept, never an
error of the query. At most :data:`ENTRIES` are kept, the oldest removed first.
"""

from __future__ import annotations

import contextlib
import os
import sys
import zlib
from pathlib import Path

#: The entries' layout; a new one makes the old entries unreadable (a miss), not wrong.
FORMAT = 3
#: Entries kept at most (10-20 kB each, most of it the key: the code's file list).
ENTRIES = 1000


def directory() -> Path:
    """Where plans are kept: ``$XDG_CACHE_HOME/cqlindex/plans`` (an absolute XDG_CACHE_HOME only,
    as the XDG specification says), else ``~/.cache/cqlindex/plans``."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(base) if os.path.isabs(base) else Path.home() / ".cache") / "cqlindex" / "plans"


def key(db: str | Path, text: str, source: str, options: dict) -> str:
    """The key of the plan of ``text`` with ``options`` on the index ``db`` as the file is now."""
    return repr((FORMAT, _code(), text, source, sorted(options.items()), identity(db)))


def _path(key: str) -> Path:
    """The entry's file: 64 bits of checksums of the key (pickle and hashlib cost start-up, and the
    key itself is compared when read)."""
    data = key.encode()
    return directory() / f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}.pickle"


def load(key: str) -> tuple | None:
    """The entry kept under ``key`` (see :func:`store`), or None."""
    try:
        with open(_path(key), "rb") as handle:
            import pickle  # here: a miss with nothing kept does not need it

            kept = pickle.load(handle)
    except Exception:  # missing, unreadable, half-written by a crash, from another layout: not kept
        return None
    if not isinstance(kept, tuple) or len(kept) != 3 or kept[0] != FORMAT or kept[1] != key:
        return None
    return kept[2]


def store(key: str, entry: tuple) -> None:
    """Keep ``entry`` under ``key``, whole or not at all (written aside, then renamed). Nothing
    that goes wrong here reaches the query: a plan that cannot be kept is planned again."""
    import pickle

    temporary = None
    try:
        path = _path(key)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = path.with_name(f"{path.stem}.{os.getpid()}.part")
        with open(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as out:
            pickle.dump((FORMAT, key, entry), out, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, path)
        temporary = None
        _prune(path.parent)
    except Exception:  # a read-only or full disk, no home, a tree too deep to pickle: not kept
        pass
    finally:
        if temporary is not None:  # also on Ctrl-C while writing
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def _prune(folder: Path) -> None:
    """The oldest entries removed past :data:`ENTRIES`. Listed with ``os.scandir``, each entry's
    time read only when there are too many: ``Path.glob`` compiles a pattern (~10 ms of a fresh
    process) and a ``stat`` per entry would cost each planning run a thousand system calls."""
    with os.scandir(folder) as found:
        entries = [entry for entry in found if entry.name.endswith(".pickle")]
    if len(entries) <= ENTRIES:
        return
    entries.sort(key=lambda entry: entry.stat().st_mtime_ns)
    for old in entries[:len(entries) - ENTRIES]:
        with contextlib.suppress(OSError):
            os.unlink(old.path)


def _stat(path: str | Path) -> tuple:
    try:
        found = os.stat(path)
    except OSError:
        return ()
    return found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns


def identity(db: str | Path) -> tuple:
    """The index file's identity, and its write-ahead log's (a read-only open replays it)."""
    path = os.path.realpath(db)
    return path, _stat(path), _stat(path + ".wal")


_CODE: tuple | None = None


def _code() -> tuple:
    """The code that plans: cqlindex's version and source files, sqlglot's files, DuckDB's and
    Python's versions. A source file edited in place (an editable install, a checkout) changes
    its size or modification time, so a plan made by other code is never reused."""
    global _CODE
    if _CODE is None:
        import importlib.util

        import cqlindex
        from cqlindex.store.duckdb_light import duckdb

        sources: list[tuple] = []
        _sources(os.path.dirname(os.path.abspath(cqlindex.__file__)), "", sources)
        spec = importlib.util.find_spec("sqlglot")
        sqlglot = [_stat(os.path.join(os.path.dirname(spec.origin), f)) for f in ("__init__.py", "_version.py")
                   ] if spec and spec.origin else []
        _CODE = (cqlindex.__version__, sources, sqlglot, duckdb.__version__, sys.version)
    return _CODE


def _sources(folder: str, prefix: str, found: list[tuple]) -> None:
    """(name under the package, size, modification time) of each ``.py`` file under ``folder``,
    in name order: one ``stat`` per file, no path arithmetic (every kept run makes this list)."""
    with os.scandir(folder) as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            if entry.is_dir(follow_symlinks=False):
                _sources(entry.path, f"{prefix}{entry.name}/", found)
            elif entry.name.endswith(".py"):
                stat = entry.stat()
                found.append((prefix + entry.name, stat.st_size, stat.st_mtime_ns))
