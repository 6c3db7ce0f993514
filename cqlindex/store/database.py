"""Open an existing cqlindex database and describe it.

Read-only by default: ``cqlindex sql`` and queries must never change an index, and DuckDB
lets any number of read-only readers share a file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cqlindex.errors import DatabaseError
from cqlindex.store.duckdb_light import duckdb
from cqlindex.store.schema import SCHEMA_VERSION

_TABLES = ("games", "positions", "errors", "square_transforms", "square_masks", "build_info")


def connect(path: str | Path, *, read_only: bool = True, checked: bool = True) -> duckdb.DuckDBPyConnection:
    """A connection to the cqlindex database at ``path``; DatabaseError if it is not one.

    ``checked=False`` leaves out the catalog queries that tell a cqlindex index of this schema
    (~10 ms of a fresh process's start-up), for a file known to have passed them unchanged since:
    a plan kept for that very file (:mod:`cqlindex.exec.plan_cache` keys it by its identity)."""
    path = Path(path)
    if not path.exists():
        raise DatabaseError(f"{path}: no such database (build one with: cqlindex build GAMES.pgn -o {path})")
    if path.is_dir():
        raise DatabaseError(f"{path}: is a directory, not a database")
    try:
        con = duckdb.connect(str(path), read_only=read_only)
    except duckdb.Error as error:
        raise DatabaseError(f"{path}: not a DuckDB database ({first_line(error)})") from None
    # Past two seconds DuckDB draws a progress bar on stdout, into the result files, pipes and
    # notebooks of whoever called us; nothing that reads an index wants it.
    con.execute("SET enable_progress_bar = false")
    # A query's rows go back to (gamenumber, positionid) by an ASOF join on the row map
    # (store/rowmap.py). When DuckDB expects under 64 rows on its left it runs that join as a
    # nested loop over the whole map, and its guess for filters that pin the board is far too
    # low: -fen of the start position with '[Aa]==32' at 34 M positions guessed ~28 rows, found
    # 437,148 and took 555 s instead of under 1. Always the sorted merge: ~10-20 ms more at worst.
    con.execute("SET asof_loop_join_threshold = 0")
    if not checked:
        return con
    present = table_names(con)
    missing = [t for t in _TABLES if t not in present]
    if missing:
        con.close()
        raise DatabaseError(f"{path}: not a cqlindex database (no table {', '.join(missing)})")
    versions = con.execute("SELECT value FROM build_info WHERE key = 'schema_version'").fetchall()
    if versions and versions[0][0] != SCHEMA_VERSION:
        # Queries read columns an older build did not write: say so instead of failing in SQL.
        con.close()
        raise DatabaseError(f"{path}: built by another cqlindex version (schema {versions[0][0]}, this one reads "
                            f"{SCHEMA_VERSION}); rebuild it: cqlindex build GAMES.pgn -o {path}")
    return con


class Opening:
    """:func:`connect` run on a thread of its own, for a fresh process to import what it needs
    meanwhile (issue 34: start-up). DuckDB lets go of the GIL while it opens a file and reads
    its catalog (~30-60 ms of a query's start), so the imports, Python, go on beside it; a
    connection made on one thread serves any other. :meth:`result` is the connection, or the
    error :func:`connect` raised; :meth:`close` closes a connection no one took."""

    def __init__(self, path: str | Path, **options: bool) -> None:
        import threading

        self._out: dict[str, Any] = {}
        self._thread = threading.Thread(target=self._open, args=(path, options), daemon=True,
                                        name="cqlindex-connect")
        self._thread.start()

    def _open(self, path: str | Path, options: dict[str, bool]) -> None:
        try:
            self._out["con"] = connect(path, **options)
        except BaseException as error:  # handed to the caller by result()
            self._out["error"] = error

    def result(self) -> duckdb.DuckDBPyConnection:
        self._thread.join()
        if "error" in self._out:
            raise self._out.pop("error")
        return self._out.pop("con")

    def close(self) -> None:
        """Wait for the opening and close what it opened, unless :meth:`result` handed it out."""
        self._thread.join()
        con = self._out.pop("con", None)
        if con is not None:
            con.close()


def table_names(con: duckdb.DuckDBPyConnection) -> set[str]:
    """The tables and views of the index's main schema (an exported index is views). Read from
    ``duckdb_tables()`` and ``duckdb_views()``: the ``information_schema`` views cost several
    times more on every query's start (issue 16)."""
    return {row[0] for row in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' "
        "UNION ALL SELECT view_name FROM duckdb_views() "
        "WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal").fetchall()}


def columns(con: duckdb.DuckDBPyConnection, table: str) -> set[str]:
    """The columns of ``table`` (or view) of the index's main schema: what a plan may read
    depends on the build (older builds and exports lack some)."""
    return {row[0] for row in con.execute(
        "SELECT column_name FROM duckdb_columns() WHERE database_name = current_database() "
        "AND schema_name = 'main' AND table_name = ?", [table]).fetchall()}


def has_column(con: duckdb.DuckDBPyConnection, table: str, column: str) -> bool:
    """Whether ``table`` (or view) of the index's main schema has ``column`` (older builds lack some)."""
    return bool(con.execute(
        "SELECT count(*) FROM duckdb_columns() WHERE database_name = current_database() "
        "AND schema_name = 'main' AND table_name = ? AND column_name = ?", [table, column]).fetchall()[0][0])


def summary(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """Counts, build parameters and the tables with their columns."""
    games, positions, mainline = con.execute(
        "SELECT count(*), coalesce(sum(positions), 0), coalesce(sum(mainline_positions), 0) FROM games").fetchall()[0]
    errors = con.execute("SELECT count(*) FROM errors").fetchall()[0][0]
    games_with_errors = con.execute("SELECT count(DISTINCT gamenumber) FROM errors").fetchall()[0][0]
    build = dict(con.execute("SELECT key, value FROM build_info ORDER BY key").fetchall())
    columns: dict[str, list[dict[str, str]]] = {}
    for table, column, dtype in con.execute(
            "SELECT table_name, column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = 'main' ORDER BY table_name, ordinal_position").fetchall():
        columns.setdefault(table, []).append({"name": column, "type": dtype})
    return {
        "games": int(games),
        "positions": int(positions),
        "mainline_positions": int(mainline),
        "errors": int(errors),
        "games_with_errors": int(games_with_errors),
        "build": build,
        "tables": columns,
    }


def macros(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """The SQL macros schema/views.sql defines, with their parameters, by name."""
    rows = con.execute("SELECT DISTINCT function_name, parameters FROM duckdb_functions() "
                       "WHERE function_type IN ('macro', 'table_macro') AND NOT internal "
                       "ORDER BY function_name").fetchall()
    return [{"name": name, "parameters": list(parameters)} for name, parameters in rows]


def first_line(error: Exception) -> str:
    """The first line of DuckDB's message (its later lines repeat the SQL or suggest alternatives)."""
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
