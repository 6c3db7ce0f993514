"""The index as Parquet files laid out for a cluster (Spark, Trino, DuckDB anywhere).

Each table is a directory of Parquet files. The tables with a ``gamenumber`` column are cut
into files by game-number range, the same ranges for every table (``part-00003`` of
``positions`` and of ``games`` hold the same games), each file sorted by game number in row
groups of a bounded size: a reader skips files and row groups by their game-number statistics,
and a cluster reads the files in parallel. Unsigned columns are written as the next wider
signed type, which every engine reads (the values do not change).

Beside the data: ``schema.sql`` and ``load.sql`` (DuckDB: run both, in any directory, the paths
are absolute; ``IMPORT DATABASE`` takes one file per table and so no longer fits), ``spark.sql`` (a temporary view per table) and
``trino.sql`` (an external Hive table per table), both from the export's absolute path or a
``base_path`` given for where the files will live (``s3://...``, ``hdfs://...``). ``schema.sql``
takes the macros and views from schema/views.sql, in its working order (some use others).
"""

from __future__ import annotations

from pathlib import Path

import duckdb
from sqlglot import exp

from cqlindex.errors import DatabaseError, OutputError
from cqlindex.store import rowmap
from cqlindex.store.schema import schema_sql

#: Rows of positions per file: a file is a cluster's unit of parallel work.
ROWS_PER_FILE = 2_000_000
#: Rows per row group: the unit a reader skips by its game-number statistics.
ROW_GROUP_ROWS = 122_880
_WIDER = {"UTINYINT": "SMALLINT", "USMALLINT": "INTEGER", "UINTEGER": "BIGINT", "UBIGINT": "DECIMAL(20, 0)"}
_ORDER = {"positions": "gamenumber, positionid", "errors": "gamenumber, line"}


def export_parquet(con: duckdb.DuckDBPyConnection, directory: Path, *, base_path: str | None = None,
                   rows_per_file: int = ROWS_PER_FILE) -> dict[str, int]:
    """Write every table of the index under ``directory`` (created; must be empty); rows per table."""
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise OutputError(f"{directory}: exists and is not an empty directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError(f"{directory}: cannot write ({error.strerror})") from None
    local = str(directory.resolve())
    base = (base_path or local).rstrip("/")
    tables = _tables(con)
    ranges = _game_ranges(con, rows_per_file)
    counts = {}
    try:
        for table, columns in tables.items():
            (directory / table).mkdir()
            select = ", ".join(_exported(name, kind) for name, kind in columns)
            order = _ORDER.get(table, "gamenumber") if "gamenumber" in dict(columns) else "ALL"
            parts = ranges if "gamenumber" in dict(columns) else [None]
            for number, span in enumerate(parts):
                where = "" if span is None else f" WHERE gamenumber BETWEEN {span[0]} AND {span[1]}"
                target = _literal(str(directory / table / f"part-{number:05d}.parquet"))
                con.execute(f'COPY (SELECT {select} FROM "{table}"{where} ORDER BY {order}) TO {target} '
                            f"(FORMAT parquet, ROW_GROUP_SIZE {ROW_GROUP_ROWS})")
            counts[table] = con.execute(f'SELECT count(*) FROM "{table}"').fetchall()[0][0]
    except duckdb.IOException as error:
        raise OutputError(f"{directory}: cannot write ({str(error).splitlines()[0]})") from None
    except duckdb.Error as error:
        raise DatabaseError(f"export failed: {str(error).splitlines()[0]}") from None
    ddl = [row[0] for row in con.execute(
        "SELECT sql FROM duckdb_tables() WHERE schema_name = 'main' AND table_name <> ? ORDER BY table_name",
        [rowmap.TABLE]).fetchall()]
    _write(directory / "schema.sql", "\n".join(ddl) + "\n\n" + schema_sql("views.sql"))
    _write(directory / "load.sql", "".join(
        f"INSERT INTO {table} SELECT * FROM read_parquet({_literal(local + '/' + table + '/*.parquet')});\n"
        for table in tables))
    _write(directory / "spark.sql", spark_sql(tables, base))
    _write(directory / "trino.sql", trino_sql(tables, base))
    return counts


def table_names(directory: Path) -> list[str]:
    """The tables of an export directory (one sub-directory of Parquet files each)."""
    return sorted(p.name for p in directory.iterdir() if p.is_dir() and any(p.glob("*.parquet")))


def spark_sql(tables: dict[str, list[tuple[str, str]]], base: str) -> str:
    """A temporary view per table over its Parquet directory: ``spark-sql -i spark.sql`` or statement by statement."""
    lines = [f"-- cqlindex export: every table as a Spark view over the Parquet files under {base}",
             "-- run: spark-sql -i spark.sql, then the SQL of: cqlindex query DB QUERY --explain --dialect spark"]
    for table in tables:
        lines.append(f"CREATE OR REPLACE TEMPORARY VIEW {table} USING parquet OPTIONS "
                     f"(path {_literal(base + '/' + table)});")
    return "\n".join(lines) + "\n"


def trino_sql(tables: dict[str, list[tuple[str, str]]], base: str) -> str:
    """An external table per table for Trino's Hive connector (its catalog and schema chosen by the caller)."""
    lines = [f"-- cqlindex export: every table as an external Hive table over the Parquet files under {base}",
             "-- run: trino --catalog hive --schema SCHEMA -f trino.sql, then the SQL of: "
             "cqlindex query DB QUERY --explain --dialect trino"]
    for table, columns in tables.items():
        body = ",\n".join(f"  {exp.to_identifier(name, quoted=True).sql('trino')} {_trino_type(kind)}" for name, kind in columns)
        lines.append(f"CREATE TABLE IF NOT EXISTS {table} (\n{body}\n) WITH (external_location = "
                     f"{_literal(base + '/' + table)}, format = 'PARQUET');")
    return "\n".join(lines) + "\n"


def _tables(con: duckdb.DuckDBPyConnection) -> dict[str, list[tuple[str, str]]]:
    rows = con.execute(
        "SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c JOIN "
        "information_schema.tables t ON t.table_name = c.table_name AND t.table_schema = c.table_schema "
        "WHERE c.table_schema = 'main' AND t.table_type = 'BASE TABLE' "
        "ORDER BY c.table_name, c.ordinal_position").fetchall()
    tables: dict[str, list[tuple[str, str]]] = {}
    for table, name, kind in rows:
        if table != rowmap.TABLE:  # row ids of this file: meaningless in another store
            tables.setdefault(table, []).append((name, kind))
    return tables


def _game_ranges(con: duckdb.DuckDBPyConnection, rows_per_file: int) -> list[tuple[int, int]]:
    """Consecutive game-number ranges holding about ``rows_per_file`` positions each (at least one range)."""
    rows = con.execute(
        "WITH per_game AS (SELECT g.gamenumber, coalesce(count(p.positionid), 0) AS n FROM games g "
        "LEFT JOIN positions p ON p.gamenumber = g.gamenumber GROUP BY g.gamenumber), "
        "running AS (SELECT gamenumber, (sum(n) OVER (ORDER BY gamenumber) - n) // ? AS part FROM per_game) "
        "SELECT min(gamenumber), max(gamenumber) FROM running GROUP BY part ORDER BY part",
        [max(1, rows_per_file)]).fetchall()
    if not rows:
        return [(0, 0)]
    low = con.execute("SELECT least((SELECT min(gamenumber) FROM positions), (SELECT min(gamenumber) FROM errors))"
                      ).fetchall()[0][0]
    high = con.execute("SELECT greatest((SELECT max(gamenumber) FROM positions), (SELECT max(gamenumber) FROM "
                       "errors))").fetchall()[0][0]
    # Rows whose game number lies outside the games table (none in a sound index) still land in a file.
    ranges = [list(r) for r in rows]
    ranges[0][0] = min(ranges[0][0], low if low is not None else ranges[0][0])
    ranges[-1][1] = max(ranges[-1][1], high if high is not None else ranges[-1][1])
    for previous, current in zip(ranges, ranges[1:]):
        previous[1] = current[0] - 1
    return [(a, b) for a, b in ranges]


def _exported(name: str, kind: str) -> str:
    quoted = exp.to_identifier(name).sql("duckdb")
    return f"CAST({quoted} AS {_WIDER[kind]}) AS {quoted}" if kind in _WIDER else quoted


def _trino_type(kind: str) -> str:
    kind = _WIDER.get(kind, kind)
    if kind.startswith("MAP("):
        return "map(varchar, varchar)"
    return exp.DataType.build(kind, dialect="duckdb").sql("trino")


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
