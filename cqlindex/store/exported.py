"""An export directory (``cqlindex export``) read back as a DuckDB connection, without copying it.

The Spark engine plans its query and writes its output formats (PGN, records, HTML) from the
same files Spark reads: each table is a view over its Parquet folder, with the macros of
schema/views.sql, so the planner and the writers see the columns of an index.
"""

from __future__ import annotations

from pathlib import Path

from cqlindex.errors import DatabaseError
from cqlindex.store.duckdb_light import duckdb
from cqlindex.store.schema import schema_sql

#: The tables the planner and the evaluator read.
NEEDED = ("games", "positions")


def exported_tables(directory: Path) -> list[str]:
    """The tables of an export directory (a folder of Parquet files each); DatabaseError if it is not one."""
    if not directory.is_dir():
        raise DatabaseError(f"{directory}: not a directory written by cqlindex export (make one with: "
                            f"cqlindex export GAMES.duckdb {directory})")
    tables = sorted(p.name for p in directory.iterdir() if p.is_dir() and any(p.glob("*.parquet")))
    missing = [t for t in NEEDED if t not in tables]
    if missing:
        raise DatabaseError(f"{directory}: not a cqlindex export (no Parquet folder {', '.join(missing)}); "
                            f"write one with: cqlindex export GAMES.duckdb {directory}")
    return tables


def open_exported(directory: Path) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB whose tables are views over the export's Parquet files."""
    tables = exported_tables(directory)
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    for table in tables:
        pattern = str((directory / table).resolve() / "*.parquet").replace("'", "''")
        con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet('{pattern}')")
    con.execute(schema_sql("views.sql"))
    return con
