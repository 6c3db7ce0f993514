"""The SQL sandbox of ``cqlindex sql`` and ``Database.sql``: every escape refused, the index untouched.

Each escape below worked on the unsandboxed code (issue 14's probe); each must now fail with
a DatabaseError (CLI: one line, exit 3) and leave the index's bytes exactly as they were.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

import cqlindex
from cqlindex.cli import app
from cqlindex.errors import DatabaseError

PGN = """[Event "sandbox"]
[White "a"]
[Black "b"]
[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0

[Event "sandbox"]
[White "c"]
[Black "d"]
[Result "0-1"]

1. f3 e5 2. g4 Qh4# 0-1
"""


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("sandbox")
    (root / "games.pgn").write_text(PGN)
    cqlindex.build(root / "games.pgn", root / "games.duckdb", workers=1)
    cqlindex.build(root / "games.pgn", root / "other.duckdb", workers=1)
    return root / "games.duckdb"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def escapes(index: Path) -> dict[str, str]:
    """Issue 14's escapes, by name: each did what it says on the unsandboxed code."""
    other = index.with_name("other.duckdb")
    return {
        "copy onto the index": f"COPY (SELECT 1) TO '{index}'",
        "copy elsewhere": f"COPY (SELECT 1 AS x) TO '{index.with_name('out.csv')}'",
        "attach read-write and drop": f"ATTACH '{other}' AS v (READ_WRITE); DROP TABLE v.games",
        "read_csv": "SELECT * FROM read_csv('/etc/passwd')",
        "read_text": "SELECT * FROM read_text('/etc/passwd')",
        "glob": "SELECT * FROM glob('/etc/*')",
        "a file as a table": "SELECT * FROM '/etc/passwd'",
        "export database": f"EXPORT DATABASE '{index.with_name('exported')}'",
        "install": "INSTALL httpfs",
        "load": "LOAD httpfs",
        "set external access back": "SET enable_external_access = true",
        "unlock": "SET lock_configuration = false",
        "pragma write": "PRAGMA enable_profiling",
        "create": "CREATE TABLE t AS SELECT 1",
        "insert": "INSERT INTO build_info VALUES ('k', 'v')",
        "drop": "DROP TABLE errors",
        "detach": "DETACH games",
        "checkpoint via a write": "DELETE FROM games; CHECKPOINT",
    }


NAMES = list(escapes(Path("x.duckdb")))


@pytest.mark.parametrize("name", NAMES)
def test_api_refuses_each_escape(index: Path, name: str) -> None:
    sql = escapes(index)[name]
    before, other = digest(index), digest(index.with_name("other.duckdb"))
    with pytest.raises(DatabaseError):
        cqlindex.open(index).sql(sql)
    assert digest(index) == before
    assert digest(index.with_name("other.duckdb")) == other
    assert not index.with_name("out.csv").exists() and not index.with_name("exported").exists()


@pytest.mark.parametrize("name", NAMES)
def test_cli_refuses_each_escape(index: Path, name: str) -> None:
    sql = escapes(index)[name]
    before = digest(index)
    result = CliRunner().invoke(app, ["sql", str(index), sql])
    assert isinstance(result.exception, SystemExit), result.output
    assert result.exit_code == DatabaseError.exit_code, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cqlindex:"), result.output
    assert "Traceback" not in result.output
    assert digest(index) == before


def test_reading_statements_still_run(index: Path) -> None:
    db = cqlindex.open(index)
    assert db.sql("SELECT count(*) AS n FROM games").column("n").to_pylist() == [2]
    assert db.sql("SELECT count(*) AS n FROM positions WHERE is_mate AND gamenumber = ?", [2]).column(
        "n").to_pylist() == [1]
    assert db.sql("DESCRIBE games").num_rows > 5
    assert db.sql("EXPLAIN SELECT 1").num_rows >= 1
    # a sort big enough to want temporary storage still runs with external access off
    assert db.sql("SELECT zobrist FROM positions ORDER BY zobrist DESC LIMIT 1").num_rows == 1


def test_a_refusal_names_the_statement_type(index: Path) -> None:
    with pytest.raises(DatabaseError, match="INSERT statements are not allowed"):
        cqlindex.open(index).sql("SELECT 1; INSERT INTO build_info VALUES ('k', 'v')")
    with pytest.raises(DatabaseError, match="--allow-files"):
        cqlindex.open(index).sql("SELECT * FROM read_csv('/etc/passwd')")


def test_duckdb_errors_become_database_errors_with_the_query(index: Path) -> None:
    with pytest.raises(DatabaseError, match="no_such_column") as caught:
        cqlindex.open(index).sql("SELECT no_such_column FROM games")
    assert "in: SELECT no_such_column FROM games" in str(caught.value)
    with pytest.raises(DatabaseError):
        cqlindex.open(index).sql("SELEC 1")


def test_allow_files_reads_and_writes_files_but_never_the_index(index: Path, tmp_path: Path) -> None:
    db = cqlindex.open(index)
    before = digest(index)
    target = tmp_path / "mates.csv"
    db.sql(f"COPY (SELECT gamenumber FROM positions WHERE is_mate ORDER BY 1) TO '{target}' (HEADER)",
           allow_files=True)
    assert target.read_text().split() == ["gamenumber", "1", "2"]
    back = db.sql(f"SELECT count(*) AS n FROM read_csv('{target}')", allow_files=True)
    assert back.column("n").to_pylist() == [2]
    with pytest.raises(DatabaseError, match="overwrite the index"):
        db.sql(f"COPY (SELECT 1) TO '{index}'", allow_files=True)
    with pytest.raises(DatabaseError):
        db.sql("CREATE TABLE t AS SELECT 1", allow_files=True)
    assert digest(index) == before


def test_cli_allow_files(index: Path, tmp_path: Path) -> None:
    target = tmp_path / "n.csv"
    result = CliRunner().invoke(app, ["sql", str(index), f"COPY (SELECT 7 AS n) TO '{target}'", "--allow-files"])
    assert result.exit_code == 0, result.output
    assert target.read_text().split() == ["n", "7"]
