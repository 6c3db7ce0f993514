"""Ad-hoc SQL on an index (``cqlindex sql``, ``Database.sql``) that cannot reach past it.

A read-only connection alone is not a sandbox: DuckDB can still read any file (``read_csv``,
``read_text``, ``glob``), write any file (``COPY ... TO``, ``EXPORT DATABASE``: onto the index
itself, even), attach another database read-write, and install or load extensions. So three
layers, each enough for most escapes and together for all of them:

1. DuckDB's own switches, set right after connecting: ``enable_external_access = false``
   (no file, network or extension access outside the open database) and then
   ``lock_configuration = true`` (no statement can switch it back, nor change any other setting).
2. The statement types, as DuckDB itself classifies them (:meth:`extract_statements`), not
   a regular expression over the text: only reading statements run; one that writes is refused
   with its type named before anything runs.
3. The connection is read-only, so even a statement that got through could not change the index.

``allow_files`` is the user's explicit opt-in for their own machine: external access stays on
and ``COPY``/``EXPORT`` are allowed, but never onto the index's own file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import duckdb
import pyarrow as pa

from cqlindex.errors import DatabaseError
from cqlindex.exec.timeout import Deadline, interrupted, running
from cqlindex.store.database import connect, first_line

_R = TypeVar("_R")
_T = duckdb.StatementType
#: Statements that only read: queries (DESCRIBE, SHOW and SUMMARIZE are SELECTs), plans, table
#: functions and pragmas (a pragma that would change a setting meets the locked configuration).
READING = frozenset({_T.SELECT, _T.EXPLAIN, _T.CALL, _T.PRAGMA})
#: Statements that write files: allowed only with ``allow_files``.
FILE_WRITING = frozenset({_T.COPY, _T.EXPORT})
_HINT = "cqlindex sql reads the index and nothing else; --allow-files (allow_files=True) lets SQL read and write files"


def open_sandboxed(path: str | Path, *, allow_files: bool = False) -> duckdb.DuckDBPyConnection:
    """A read-only connection to the index at ``path`` with external access off (unless
    ``allow_files``) and the configuration locked."""
    con = connect(path)
    try:
        if not allow_files:
            con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
    except duckdb.Error as error:
        con.close()
        raise DatabaseError(f"{path}: cannot lock the SQL sandbox ({first_line(error)})") from None
    return con


def check_statements(con: duckdb.DuckDBPyConnection, sql: str, *, allow_files: bool = False,
                     index: Path | None = None) -> None:
    """Refuse ``sql`` unless every statement in it only reads (or, with ``allow_files``, writes
    a file that is not the index); DatabaseError names the first one refused."""
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as error:
        raise wrap(error, sql) from None
    if not statements:
        raise DatabaseError("SQL error: no statement to run")
    allowed = READING | FILE_WRITING if allow_files else READING
    for statement in statements:
        kind = statement.type
        if kind not in allowed:
            name = kind.name.replace("_", " ")
            extra = f" ({_HINT})" if kind in FILE_WRITING else ""
            raise DatabaseError(f"refused: {name} statements are not allowed, the index is read-only{extra}: "
                                f"{_excerpt(statement.query)}")
        if kind in FILE_WRITING and index is not None and _names_file(statement.query, index):
            raise DatabaseError(f"refused: {kind.name} would overwrite the index itself: {_excerpt(statement.query)}")


def run_table(path: str | Path, sql: str, params: list | dict | None = None, *,
              allow_files: bool = False, timeout: float | None = None) -> pa.Table:
    """Run ``sql`` in the sandbox on the index at ``path``; the last statement's result as Arrow.

    ``timeout`` (seconds) interrupts DuckDB when it is up: QueryTimeout, as for CQL queries."""
    def fetch(con: duckdb.DuckDBPyConnection) -> pa.Table:
        relation = con.sql(sql, params=params or None)
        return pa.table({}) if relation is None else relation.to_arrow_table()

    return _execute(path, sql, fetch, allow_files=allow_files, timeout=timeout)


def run_rows(path: str | Path, sql: str, params: list | dict | None = None, *,
             allow_files: bool = False, timeout: float | None = None) -> tuple[list[str], list[tuple]]:
    """Run ``sql`` in the sandbox with ``params`` bound; column names and rows of its last
    statement (for the CLI). ``timeout`` as in :func:`run_table`."""
    def fetch(con: duckdb.DuckDBPyConnection) -> tuple[list[str], list[tuple]]:
        cursor = con.execute(sql, params) if params else con.execute(sql)
        if cursor.description is None:
            return [], []
        return [d[0] for d in cursor.description], cursor.fetchall()

    return _execute(path, sql, fetch, allow_files=allow_files, timeout=timeout)


def _execute(path: str | Path, sql: str, fetch: Callable[[duckdb.DuckDBPyConnection], _R], *,
             allow_files: bool, timeout: float | None) -> _R:
    """Open the sandbox, vet every statement, then ``fetch`` the result under the deadline; any
    DuckDB complaint but the deadline's interrupt comes out as a DatabaseError naming the SQL."""
    con = open_sandboxed(path, allow_files=allow_files)
    try:
        check_statements(con, sql, allow_files=allow_files, index=Path(path))
        with running(con, Deadline(timeout), sql):
            try:
                return fetch(con)
            except duckdb.Error as error:
                if interrupted(error):
                    raise
                raise wrap(error, sql) from None
    finally:
        con.close()


def wrap(error: duckdb.Error, sql: str) -> DatabaseError:
    """DuckDB's complaint as a DatabaseError that says which SQL it was about."""
    message = f"SQL error: {first_line(error)}"
    if isinstance(error, duckdb.PermissionException) or "disabled by configuration" in str(error):
        message += f" ({_HINT})"
    elif "configuration has been locked" in str(error):
        message += " (settings are locked in cqlindex sql)"
    return DatabaseError(f"{message}; in: {_excerpt(sql, 80)}")


def _names_file(sql: str, index: Path) -> bool:
    """Whether a string literal of ``sql`` names ``index`` (relative to the working directory)."""
    target = index.resolve()
    for start, kind in duckdb.tokenize(sql):
        if kind != duckdb.token_type.string_const:
            continue
        literal = _string_at(sql, start)
        if literal and Path(literal).expanduser().resolve() == target:
            return True
    return False


def _string_at(sql: str, start: int) -> str:
    """The value of the quoted string literal that starts at ``start``."""
    quote = sql[start]
    out, i = [], start + 1
    while i < len(sql):
        if sql[i] == quote:
            if sql[i + 1:i + 2] == quote:
                out.append(quote)
                i += 2
                continue
            break
        out.append(sql[i])
        i += 1
    return "".join(out)


def _excerpt(sql: str, width: int = 120) -> str:
    flat = " ".join(sql.split())
    return flat if len(flat) <= width else flat[:width - 1] + "…"
