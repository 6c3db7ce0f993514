"""Plans kept between runs of ``cqlindex query``, so that a query asked again starts at its SQL
(issue 34: start-up).

Why: before its first row, a fresh ``cqlindex query`` spends most of its time importing the
parser and the planner (sqlglot among them) and planning, ~0.2 s of ~0.35 s on an idle machine,
for a query whose SQL is the same as last time. A kept plan is the run's prepared query (for the
result's header) and, for each range of games the streamed run searches, the SQL it ran there;
:mod:`cqlindex.exec.cached` runs it with neither the parser nor sqlglot imported.

A plan is reused only where it is certainly the same. Its key is everything the plan and its
ranges are made of, written out: the query text and its source name; the run's options
(variations, game and match-count ranges, unplayable games, files, held or streamed); the index
as the planner reads it (its schema version, the columns of ``positions``, whether it marks
unplayable games, whether its row map holds, its ranges of games) and the file's identity
(path, device, inode, size, modification time, and its write-ahead log's); and the code that
planned it (cqlindex's version, the size and modification time of each of its source files and
of sqlglot's, DuckDB's and Python's versions). The key is kept in the entry and compared whole
when it is read; the file's name is only a checksum of it, so two keys that share a name miss,
never mix. Only an exact plan with no prefilters is kept (:func:`cqlindex.exec.streamed.run_streamed`
and :func:`cqlindex.exec.run.run` say which): its SQL's rows are the matches, and nothing else
of the query is evaluated.

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
FORMAT = 1
#: Entries kept at most (10-20 kB each, most of it the key: the code's file list).
ENTRIES = 1000


def directory() -> Path:
    """Where plans are kept: ``$XDG_CACHE_HOME/cqlindex/plans`` (an absolute XDG_CACHE_HOME only,
    as the XDG specification says), else ``~/.cache/cqlindex/plans``."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(base) if os.path.isabs(base) else Path.home() / ".cache") / "cqlindex" / "plans"


def key(db: str | Path, con, text: str, source: str, options: dict) -> str:
    """The key of the plan of ``text`` with ``options`` on the index ``db`` open as ``con``."""
    return repr((FORMAT, _code(), text, source, sorted(options.items()), _file(db), _index(con)))


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
    entries = sorted(folder.glob("*.pickle"), key=lambda p: p.stat().st_mtime_ns)
    for old in entries[:max(0, len(entries) - ENTRIES)]:
        old.unlink(missing_ok=True)


def _stat(path: str | Path) -> tuple:
    try:
        found = os.stat(path)
    except OSError:
        return ()
    return found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns


def _file(db: str | Path) -> tuple:
    """The index file's identity, and its write-ahead log's (a read-only open replays it)."""
    path = os.path.realpath(db)
    return path, _stat(path), _stat(path + ".wal")


def _index(con) -> tuple:
    """What the planner and the streamed run read from the index."""
    from cqlindex.exec.rows import game_batches
    from cqlindex.store import rowmap
    from cqlindex.store.database import columns
    from cqlindex.store.playable import unplayable_games

    schema = con.execute("SELECT value FROM build_info WHERE key = 'schema_version'").fetchall()
    return (schema, sorted(columns(con, "positions")), bool(unplayable_games(con)), rowmap.holds(con),
            game_batches(con))


_CODE: tuple | None = None


def _code() -> tuple:
    """The code that plans: cqlindex's version and source files, sqlglot's files, DuckDB's and
    Python's versions. A source file edited in place (an editable install, a checkout) changes
    its size or modification time, so a plan made by other code is never reused."""
    global _CODE
    if _CODE is None:
        import importlib.util

        import duckdb

        import cqlindex

        package = os.path.dirname(os.path.abspath(cqlindex.__file__))
        sources = []
        for root, folders, files in os.walk(package):
            folders.sort()
            sources += [(os.path.relpath(os.path.join(root, f), package), *_stat(os.path.join(root, f))[2:])
                        for f in sorted(files) if f.endswith(".py")]
        spec = importlib.util.find_spec("sqlglot")
        sqlglot = [_stat(os.path.join(os.path.dirname(spec.origin), f)) for f in ("__init__.py", "_version.py")
                   ] if spec and spec.origin else []
        _CODE = (cqlindex.__version__, sources, sqlglot, duckdb.__version__, sys.version)
    return _CODE
