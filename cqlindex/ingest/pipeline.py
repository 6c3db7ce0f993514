"""The build: PGN files in, a complete DuckDB index out, or nothing at the target path.

The parent process reads the input and cuts it into pieces of text at places where a game
certainly starts (:mod:`.chunks`, a search per piece); worker processes (one per core) split
the pieces into games and read them; the parent inserts the results into DuckDB as Arrow
tables in input order, numbering the games on from the pieces before, many batches per
transaction. At most a few batches are
in flight and a transaction commits every million or so positions, so memory does not grow with
the input. The database is written under a temporary name next to the
target and renamed into place only when it is complete: a killed build leaves the target as it
was, and the next build removes the leftovers and starts again.
"""

from __future__ import annotations

import os
import shutil
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pyarrow as pa
from zstandard import ZstdError

from cqlindex import __version__
from cqlindex.errors import InputError, OutputError
from cqlindex.ingest.lock import lock_target
from cqlindex.ingest.pool import parsed_by_workers
from cqlindex.ingest.chunks import Chunk, chunks
from cqlindex.ingest.source import expand_inputs
from cqlindex.ingest.streams import decoded, not_text, open_raw
from cqlindex.ingest.worker import NOT_PGN, READERS, compiled_reader_available, parse_chunk, unspooled
from cqlindex.store import rowmap
from cqlindex.store.schema import SCHEMA_VERSION, create_schema

# Games a worker reads at a time. Batches of 500 games (~40k positions) keep the workers' numpy
# arrays in cache: 2,000-game batches took 40% more CPU on 20,000 games, 200-game ones the same.
BATCH_GAMES = 500
# The pieces of PGN text handed to the workers, in bytes: a quarter of a worker's share of the
# input, within these bounds (small inputs are cut finer so every worker gets work; large
# ones in pieces of a few thousand games, so few are in flight and memory stays flat).
MIN_CHUNK_BYTES = 64 * 1024
MAX_CHUNK_BYTES = 1024 * 1024
MEMORY_LIMIT = "512MB"
# DuckDB threads while the workers parse: the inserts are sequential anyway, and a second DuckDB
# thread only takes CPU from the workers (measured: 35% more CPU for the same inserts).
LOAD_THREADS = 1
# Positions inserted per transaction: eight of DuckDB's row groups (122,880 rows each).
COMMIT_POSITIONS = 8 * 122_880


@dataclass(slots=True)
class Progress:
    """Running totals handed to the progress callback after every batch."""

    bytes_done: int = 0
    bytes_total: int = 0
    games: int = 0
    positions: int = 0
    errors: int = 0


@dataclass(frozen=True, slots=True)
class BuildSummary:
    """What a finished build did."""

    output: Path
    files: int
    games: int
    positions: int
    mainline_positions: int
    errors: int
    seconds: float
    warnings: tuple[str, ...]
    rejected: tuple[str, ...] = ()  # inputs with nothing to index, and why

    @property
    def positions_per_second(self) -> float:
        return self.positions / self.seconds if self.seconds else 0.0


def _temporary_path(output: Path) -> Path:
    return output.with_name(f".{output.name}.building-{os.getpid()}")


def _spool_path(temporary: Path) -> Path:
    """Where the workers leave their positions tables for the parent (see :func:`parse_chunk`)."""
    return temporary.with_name(temporary.name + ".spool")


def _remove_leftovers(output: Path) -> None:
    """Remove what killed builds of the same target left behind (databases, spool directories)."""
    for stale in output.parent.glob(f".{output.name}.building-*"):
        if stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)
        else:
            stale.unlink(missing_ok=True)


@dataclass(slots=True)
class _Report:
    """What the build says about its inputs: warnings, and files it could not index at all."""

    warnings: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Input:
    """What reading one input found: why it is not text, whether it ends early, its games."""

    path: Path
    problem: str | None = None
    truncated: bool = False
    games: int = 0


def _chunks(paths: list[Path], progress: Progress, inputs: list[_Input],
            size: int) -> Iterator[tuple[Chunk, int]]:
    """The pieces of every input in order, each with the bytes of input read once it is cut."""
    done_before = 0
    for index, path in enumerate(paths):
        file_size = path.stat().st_size
        found = _Input(path)
        inputs.append(found)
        raw = open_raw(path)  # its position is how much of the file has been read, for the progress bar
        try:
            stream = decoded(raw)
            found.problem = not_text(stream)
            for chunk in () if found.problem else chunks(stream, str(path), index, size):
                found.truncated = chunk.end == "truncated"
                yield chunk, done_before + min(raw.tell(), file_size)
        except (OSError, zlib.error, ZstdError) as error:
            raise InputError(f"{path}: cannot read, the file is damaged ({error})") from None
        except EOFError:  # while looking at its first bytes (reading the pieces reports it in the last piece)
            found.truncated = True
        finally:
            raw.close()
        done_before += file_size


def _input_report(inputs: list[_Input], report: _Report) -> None:
    """The warnings and rejections of each input, in input order, once its games are counted."""
    for found in inputs:
        path = found.path
        if found.problem:
            report.rejected.append(f"{path}: {found.problem}")
        elif found.truncated and found.games:
            report.warnings.append(f"{path}: the compressed file ends early; indexed the {found.games:,} games "
                                   "before the cut")
        elif found.truncated:
            report.rejected.append(f"{path}: the compressed file ends early, before the end of its first "
                                   "game (the file is cut short: copy or download it again)")
        elif not found.games:
            report.warnings.append(f"{path}: no games found")


def _not_pgn(con: duckdb.DuckDBPyConnection, report: _Report) -> int:
    """Reject the files whose every "game" is text with nothing of PGN in it; the number of other games."""
    counts = con.execute("SELECT source_file, count(*), count(*) FILTER (WHERE gamenumber NOT IN "
                         "(SELECT gamenumber FROM errors WHERE message = ?)) FROM games GROUP BY ALL "
                         "ORDER BY min(gamenumber)", [NOT_PGN]).fetchall()
    for file, blocks, games in counts:
        if not games:
            report.rejected.append(f"{file}: not PGN: {blocks:,} block{'s' if blocks > 1 else ''} of text without "
                                   "a tag pair, a numbered move or a result")
    return sum(games for _, _, games in counts)


def build(inputs: list[str], output: str | os.PathLike, *, workers: int | None = None,
          batch_games: int = BATCH_GAMES, on_progress: Callable[[Progress], None] | None = None,
          reader: str = "auto", wait: bool = False, on_wait: Callable[[str], None] | None = None,
          chunk_bytes: int | None = None) -> BuildSummary:
    """Index every position of every game of ``inputs`` (files or globs) into ``output``.

    ``workers`` is the number of parse processes (default: one per core; 1 parses in this
    process). ``reader`` is ``compiled`` (main-line games by the compiled reader, the rest by
    python-chess), ``python-chess`` (every game replayed) or ``auto`` (compiled when its wheel
    is installed). ``chunk_bytes`` sets the size of the pieces of text handed to the workers
    (tests use small ones; the default depends on the input's size). Raises :class:`InputError` or :class:`OutputError` for what a user can fix, and
    :class:`BusyError` if another build is writing ``output``, unless ``wait`` (``on_wait`` then
    hears that it waits).
    """
    started = time.perf_counter()
    reader = _resolve_reader(reader)
    paths = expand_inputs(inputs)
    target = Path(output)
    if target.exists() and target.is_dir():
        raise OutputError(f"{target}: is a directory")
    if not target.parent.exists():
        raise OutputError(f"{target.parent}: no such directory")
    if not os.access(target.parent, os.W_OK):
        raise OutputError(f"{target.parent}: not writable")
    temporary = _temporary_path(target)
    progress = Progress(bytes_total=sum(p.stat().st_size for p in paths))
    report = _Report()
    workers = workers or os.cpu_count() or 1
    lock = lock_target(target, wait=wait, on_wait=on_wait)  # BusyError while another build writes it
    try:
        _remove_leftovers(target)
        con = duckdb.connect(str(temporary))
        con.execute("SET enable_progress_bar = false")  # the build draws its own bar, on stderr
    except BaseException as error:
        lock.release()
        if isinstance(error, duckdb.Error):
            raise OutputError(f"{target}: cannot create the database ({error})") from None
        raise
    try:
        # DuckDB would otherwise cache up to most of the machine's memory as the file grows; a
        # fixed cap keeps the build's footprint independent of the input size.
        con.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")
        create_schema(con)
        # Small inputs are cut finer so every worker gets work.
        size = chunk_bytes or min(MAX_CHUNK_BYTES, max(MIN_CHUNK_BYTES, progress.bytes_total // (4 * workers)))
        inputs: list[_Input] = []
        _load(con, _chunks(paths, progress, inputs, size), workers, reader, batch_games, progress, inputs,
              on_progress, _spool_path(temporary), report.warnings.append)
        _input_report(inputs, report)
        if _not_pgn(con, report) == 0:
            raise InputError("; ".join(report.rejected + report.warnings) or
                             "no games found in " + ", ".join(str(p) for p in paths))
        mainline = con.execute("SELECT coalesce(sum(mainline_positions), 0) FROM games").fetchall()[0][0]
        rowmap.write(con)
        seconds = time.perf_counter() - started
        _write_build_info(con, paths, workers, seconds, reader)
        con.execute("CHECKPOINT")
        con.close()
        os.replace(temporary, target)
        Path(f"{temporary}.wal").unlink(missing_ok=True)
    except BaseException:
        con.close()
        temporary.unlink(missing_ok=True)
        Path(f"{temporary}.wal").unlink(missing_ok=True)
        raise
    finally:
        shutil.rmtree(_spool_path(temporary), ignore_errors=True)
        lock.release()
    return BuildSummary(target, len(paths), progress.games, progress.positions, int(mainline), progress.errors,
                        seconds, tuple(report.warnings), tuple(report.rejected))


def _load(con: duckdb.DuckDBPyConnection, pieces: Iterator[tuple[Chunk, int]], workers: int, reader: str,
          batch_games: int, progress: Progress, inputs: list[_Input],
          on_progress: Callable[[Progress], None] | None, spool: Path, warn: Callable[[str], None]) -> None:
    """Parse ``pieces`` and insert their games in order, numbered on from the games before
    (``warn`` hears of a parse worker lost on the way).

    Many batches go in one transaction, on one DuckDB thread: DuckDB then compresses each full
    row group once, straight into the file, instead of logging every insert to its write-ahead
    log and compressing it again at each checkpoint (measured on 20,000 games: 2.4x less CPU for
    the inserts, and 14% smaller). A transaction holds on to what it inserted until it commits,
    so one commits every COMMIT_POSITIONS rows: memory stays flat whatever the input's size.
    """
    con.execute(f"SET threads = {LOAD_THREADS}")
    schema = con.sql("SELECT * FROM positions LIMIT 0").to_arrow_table().schema
    con.execute("BEGIN TRANSACTION")
    uncommitted = 0
    for chunk, bytes_done, (count, parts) in _parsed(pieces, workers, reader, schema, batch_games, spool, warn):
        for games, spooled, errors in parts:
            positions = unspooled(spooled)
            _insert(con, games, positions, errors, progress.games)
            if isinstance(spooled, str):
                os.unlink(spooled)
            uncommitted += positions.num_rows
            progress.positions += positions.num_rows
            progress.errors += errors.num_rows
        progress.games += count
        inputs[chunk.source].games += count
        progress.bytes_done = bytes_done
        if uncommitted >= COMMIT_POSITIONS:
            con.execute("COMMIT")
            con.execute("BEGIN TRANSACTION")
            uncommitted = 0
        if on_progress:
            on_progress(progress)
    con.execute("COMMIT")
    con.execute("RESET threads")


def _resolve_reader(reader: str) -> str:
    if reader not in READERS:
        raise InputError(f"unknown reader {reader!r} (one of {', '.join(READERS)})")
    available = compiled_reader_available()
    if reader == "compiled" and not available:
        raise InputError("the compiled reader is not installed (pip install rust-pgn-reader-python-binding); "
                         "use --reader python-chess")
    return "compiled" if reader == "compiled" or (reader == "auto" and available) else "python-chess"


def _parsed(pieces: Iterator[tuple[Chunk, int]], workers: int, reader: str, schema: pa.Schema, batch_games: int,
            spool: Path, warn: Callable[[str], None]):
    """(piece, bytes done, parsed piece) in input order: in this process, or by worker processes
    (:mod:`cqlindex.ingest.pool`)."""
    if workers > 1:
        yield from parsed_by_workers(pieces, workers, reader, schema, batch_games, spool, warn)
        return
    for chunk, done in pieces:
        yield chunk, done, parse_chunk(chunk, reader, schema, batch_games)


def _insert(con: duckdb.DuckDBPyConnection, games, positions, errors, games_before: int) -> None:
    """Insert a worker's tables, its game numbers (from 1) moved on by ``games_before``."""
    for name, table in (("games", games), ("positions", positions), ("errors", errors)):
        if table.num_rows:
            con.register("_batch", table)
            con.execute(f"INSERT INTO {name} BY NAME SELECT * REPLACE (gamenumber + ? AS gamenumber) FROM _batch",
                        [games_before])
            con.unregister("_batch")


def _write_build_info(con: duckdb.DuckDBPyConnection, paths: list[Path], workers: int, seconds: float,
                      reader: str) -> None:
    import chess

    info = {
        "cqlindex_version": __version__,
        "schema_version": SCHEMA_VERSION,
        "python_chess_version": chess.__version__,
        "duckdb_version": duckdb.__version__,
        "inputs": "\n".join(str(p) for p in paths),
        "workers": str(workers),
        "reader": reader,
        "build_seconds": f"{seconds:.3f}",
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    con.executemany("INSERT INTO build_info VALUES (?, ?)", list(info.items()))
