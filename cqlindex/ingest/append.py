"""``cqlindex add DB MORE.pgn ...``: games appended to an index, as if it had been built with them.

The add is a layer above the build, so it goes through exactly the build's ingest paths: the
new files are built, by :func:`cqlindex.ingest.pipeline.build`, into a temporary index; a copy
of the old index then takes every row of it in one transaction, game numbers shifted past the
old last game (positions and errors are keyed by game number; no other id spans games); the
build's record lists the inputs of both. Only then is the copy renamed over the index. A kill at
any moment leaves the old index as it was (a rename is atomic) and leftovers that the next add
or build of the same index removes; the build's lock keeps a build and an add from overlapping.

Copying costs a read and a write of the index; in exchange the index a query sees is never half
appended, which DuckDB's single file cannot otherwise promise across a kill.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from cqlindex.errors import DatabaseError, OutputError
from cqlindex.ingest.lock import lock_target
from cqlindex.ingest.pipeline import BuildSummary, Progress, build
from cqlindex.store import rowmap
from cqlindex.store.database import connect
from cqlindex.store.duckdb_light import duckdb

#: The tables whose rows come from the games; the others are the schema's constants and the build record.
GAME_TABLES = ("games", "positions", "errors")


def _work_directory(target: Path) -> Path:
    return target.with_name(f".{target.name}.adding-{os.getpid()}")


def _remove_leftovers(target: Path) -> None:
    for stale in target.parent.glob(f".{target.name}.adding-*"):
        shutil.rmtree(stale, ignore_errors=True)


def add(db: str | os.PathLike, inputs: list[str], *, workers: int | None = None, reader: str = "auto",
        on_progress: Callable[[Progress], None] | None = None, wait: bool = False,
        on_wait: Callable[[str], None] | None = None) -> BuildSummary:
    """Append the games of ``inputs`` to the index ``db``; the summary counts the added games.

    Raises what :func:`build` raises for the inputs, DatabaseError if ``db`` is not an index,
    and BusyError while a build or another add writes it (unless ``wait``).
    """
    started = time.perf_counter()
    target = Path(db)
    connect(target).close()  # a cqlindex index of this schema, or a clear error
    lock = lock_target(target, wait=wait, on_wait=on_wait)
    work = _work_directory(target)
    try:
        _remove_leftovers(target)
        work.mkdir()
        part = work / "new.duckdb"
        summary = build(inputs, part, workers=workers, reader=reader, on_progress=on_progress)
        merged = work / "merged.duckdb"
        shutil.copyfile(target, merged)
        _append(merged, part)
        os.replace(merged, target)
    except OSError as error:
        raise OutputError(f"{target}: cannot add games ({error.strerror or error})") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
        lock.release()
    return BuildSummary(target, summary.files, summary.games, summary.positions, summary.mainline_positions,
                        summary.errors, time.perf_counter() - started, summary.warnings, summary.rejected)


def _append(merged: Path, part: Path) -> None:
    """Every game row of ``part`` into ``merged``, game numbers continued, in one transaction."""
    con = duckdb.connect(str(merged))
    try:
        con.execute("SET enable_progress_bar = false")
        literal = "'" + str(part).replace("'", "''") + "'"
        con.execute(f"ATTACH {literal} AS part (READ_ONLY)")
        con.execute("BEGIN")
        offset = con.execute("SELECT coalesce(max(gamenumber), 0) FROM games").fetchall()[0][0]
        for table in GAME_TABLES:
            con.execute(f"INSERT INTO main.{table} BY NAME SELECT * REPLACE (gamenumber + ? AS gamenumber) "
                        f"FROM part.{table}", [offset])  # in the part's order: game order
        _merge_build_info(con)
        con.execute("COMMIT")
        con.execute("DETACH part")
        rowmap.write(con)  # after the commit: the added rows' row ids are final only then
        con.execute("CHECKPOINT")
    except duckdb.Error as error:
        raise DatabaseError(f"{merged}: cannot append ({str(error).splitlines()[0]})") from None
    finally:
        con.close()


def _merge_build_info(con: duckdb.DuckDBPyConnection) -> None:
    """The record of the build now names the inputs of both; the rest is the latest build's."""
    old = dict(con.execute("SELECT key, value FROM main.build_info").fetchall())
    new = dict(con.execute("SELECT key, value FROM part.build_info").fetchall())
    inputs = [line for line in (old.get("inputs", "") + "\n" + new.get("inputs", "")).split("\n") if line]
    merged = {**old, **new, "inputs": "\n".join(inputs)}
    con.execute("DELETE FROM main.build_info")
    con.executemany("INSERT INTO main.build_info VALUES (?, ?)", list(merged.items()))
