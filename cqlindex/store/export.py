"""The index as Parquet files, for engines beyond one machine (Spark, Trino, ...).

DuckDB's own ``EXPORT DATABASE`` writes one Parquet file per table plus ``schema.sql`` and
``load.sql``, so ``IMPORT DATABASE`` rebuilds the index and any Parquet reader sees the same
columns the planner's SQL uses; ``cqlindex query --explain --dialect spark`` prints that SQL for
Spark. DuckDB writes the macros in alphabetical order, which breaks those that use a later one
(``board_fen`` uses ``piece_at``), so the macros and views in ``schema.sql`` are replaced by
schema/views.sql, the file that defined them, in its working order.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from cqlindex.errors import DatabaseError, OutputError
from cqlindex.store.schema import schema_sql


def export_parquet(con: duckdb.DuckDBPyConnection, directory: Path) -> dict[str, int]:
    """Write every table of the index under ``directory`` (created; must be empty); rows per table."""
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise OutputError(f"{directory}: exists and is not an empty directory")
    literal = "'" + str(directory).replace("'", "''") + "'"
    try:
        con.execute(f"EXPORT DATABASE {literal} (FORMAT parquet)")
    except duckdb.IOException as error:
        raise OutputError(f"{directory}: cannot write ({str(error).splitlines()[0]})") from None
    except duckdb.Error as error:
        raise DatabaseError(f"export failed: {str(error).splitlines()[0]}") from None
    exported = directory / "schema.sql"
    tables_only = [line for line in exported.read_text(encoding="utf-8").splitlines()
                   if line.strip() and not line.startswith(("CREATE MACRO", "CREATE VIEW"))]
    exported.write_text("\n".join(tables_only) + "\n\n" + schema_sql("views.sql"), encoding="utf-8")
    tables = [row[0] for row in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' AND table_type = 'BASE TABLE' "
        "ORDER BY table_name").fetchall()]
    return {table: con.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0] for table in tables}
