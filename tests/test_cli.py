"""The cqlindex command line: build, info, sql, their error messages and their help texts."""

from __future__ import annotations

import csv
import gzip
import io
import json
import shutil
from pathlib import Path

import duckdb
import pytest
import typer.main
from typer.testing import CliRunner

from cqlindex.cli import app

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "gnuchess-300.pgn"
SAMPLE_GAMES = 300
SAMPLE_POSITIONS = 24369

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def assert_ok(result) -> None:
    assert result.exception is None, (result.exception, result.output)
    assert result.exit_code == 0, result.output


def assert_one_line_error(result) -> str:
    """A failed command: non-zero exit, one line on the terminal, no traceback."""
    assert isinstance(result.exception, SystemExit), f"uncaught {result.exception!r}\n{result.output}"
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("cqlindex:"), lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cli") / "sample.duckdb"
    result = invoke("build", SAMPLE, "-o", out, "--workers", "1")
    assert_ok(result)
    return out


# --- build -------------------------------------------------------------------------------------

def test_build_with_output(tmp_path: Path) -> None:
    out = tmp_path / "games.duckdb"
    result = invoke("build", SAMPLE, "-o", out, "--workers", "1", "--quiet")
    assert_ok(result)
    assert out.exists()
    assert f"{SAMPLE_GAMES:,} games" in result.output
    assert f"{SAMPLE_POSITIONS:,} positions" in result.output
    assert "0 errors" in result.output
    con = duckdb.connect(str(out), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM games").fetchone()[0] == SAMPLE_GAMES
    finally:
        con.close()
    assert [p.name for p in tmp_path.iterdir()] == ["games.duckdb"]


def test_build_with_two_workers_and_long_option(tmp_path: Path) -> None:
    out = tmp_path / "two.duckdb"
    result = invoke("build", SAMPLE, "--output", out, "--workers", "2")
    assert_ok(result)
    assert out.exists()


@pytest.mark.parametrize("reader", ["python-chess", "compiled", "auto"])
def test_build_reader_option(tmp_path: Path, reader: str) -> None:
    out = tmp_path / f"{reader}.duckdb"
    result = invoke("build", SAMPLE, "-o", out, "--reader", reader, "--quiet")
    assert_ok(result)
    assert f"{SAMPLE_POSITIONS:,} positions" in result.output
    con = duckdb.connect(str(out), read_only=True)
    try:
        used = con.execute("SELECT value FROM build_info WHERE key = 'reader'").fetchall()
    finally:
        con.close()
    assert used == [("python-chess" if reader == "python-chess" else "compiled",)]


def test_build_default_output_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = invoke("build", SAMPLE, "--workers", "1")
    assert_ok(result)
    assert (tmp_path / "gnuchess-300.duckdb").exists()
    assert "gnuchess-300.duckdb" in result.output


def test_build_default_output_name_of_compressed_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "sample.pgn.gz"
    source.write_bytes(gzip.compress(SAMPLE.read_bytes()))
    monkeypatch.chdir(tmp_path)
    assert_ok(invoke("build", "sample.pgn.gz", "--workers", "1"))
    assert (tmp_path / "sample.duckdb").exists()


def test_build_default_output_name_of_a_glob(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copy(SAMPLE, tmp_path / "a.pgn")
    shutil.copy(SAMPLE, tmp_path / "b.pgn")
    monkeypatch.chdir(tmp_path)
    result = invoke("build", "*.pgn", "--workers", "1")
    assert_ok(result)
    assert (tmp_path / "all.duckdb").exists()
    assert f"{2 * SAMPLE_GAMES:,} games" in result.output


def test_build_replaces_an_existing_database(tmp_path: Path) -> None:
    out = tmp_path / "x.duckdb"
    assert_ok(invoke("build", SAMPLE, "-o", out, "--workers", "1"))
    assert_ok(invoke("build", SAMPLE, SAMPLE, "-o", out, "--workers", "1"))
    con = duckdb.connect(str(out), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM games").fetchone()[0] == 2 * SAMPLE_GAMES
    finally:
        con.close()


# --- info --------------------------------------------------------------------------------------

def test_info_text(sample_db: Path) -> None:
    result = invoke("info", sample_db)
    assert_ok(result)
    assert str(sample_db) in result.output
    assert f"{SAMPLE_GAMES:,}" in result.output
    assert f"{SAMPLE_POSITIONS:,}" in result.output
    lines = result.output.splitlines()
    for table, columns in (("games", 23), ("positions", 52), ("errors", 4), ("build_info", 2),
                           ("game_rows", 3)):
        assert any(line.split() == [table, str(columns), "columns"] for line in lines), table


@pytest.mark.parametrize("flag", ["--format", "-f"])
def test_info_json(sample_db: Path, flag: str) -> None:
    result = invoke("info", sample_db, flag, "json")
    assert_ok(result)
    data = json.loads(result.stdout)
    assert {"games", "positions", "mainline_positions", "errors"} <= set(data)
    assert data["games"] == SAMPLE_GAMES
    assert data["positions"] == SAMPLE_POSITIONS
    assert data["mainline_positions"] == SAMPLE_POSITIONS  # the sample has no variations
    assert data["errors"] == 0
    # build values typed as JSON wants them, not all strings
    assert data["build"]["workers"] == 1 and data["build"]["schema_version"] >= 1
    assert isinstance(data["build"]["build_seconds"], float) and data["build"]["cqlindex_version"] == "0.1.0"
    assert data["build"]["inputs"] == [str(SAMPLE)]
    assert "positions" in data["tables"]


# --- sql ---------------------------------------------------------------------------------------

QUERY = "SELECT gamenumber, white, result FROM games WHERE gamenumber <= 3 ORDER BY gamenumber"


def _expected_rows(db: Path) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(QUERY).fetchall()
    finally:
        con.close()


def test_sql_table(sample_db: Path) -> None:
    result = invoke("sql", sample_db, QUERY)
    assert_ok(result)
    for column in ("gamenumber", "white", "result"):
        assert column in result.stdout
    for _, white, _ in _expected_rows(sample_db):
        assert white in result.stdout
    assert "3 rows" in result.output


def test_sql_csv(sample_db: Path) -> None:
    result = invoke("sql", sample_db, QUERY, "--format", "csv")
    assert_ok(result)
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[0] == ["gamenumber", "white", "result"]
    assert [tuple(r) for r in rows[1:]] == [(str(g), w, r) for g, w, r in _expected_rows(sample_db)]


def test_sql_json(sample_db: Path) -> None:
    result = invoke("sql", sample_db, QUERY, "-f", "json")
    assert_ok(result)
    data = json.loads(result.stdout)
    assert data == [{"gamenumber": g, "white": w, "result": r} for g, w, r in _expected_rows(sample_db)]


def test_sql_count_positions(sample_db: Path) -> None:
    result = invoke("sql", sample_db, "SELECT count(*) AS n FROM positions", "--format", "csv")
    assert_ok(result)
    assert result.stdout.splitlines() == ["n", str(SAMPLE_POSITIONS)]


# --- errors: one line, non-zero exit, no traceback -----------------------------------------------

def test_build_missing_input(tmp_path: Path) -> None:
    line = assert_one_line_error(invoke("build", tmp_path / "missing.pgn", "-o", tmp_path / "x.duckdb"))
    assert "missing.pgn" in line
    assert not (tmp_path / "x.duckdb").exists()


@pytest.mark.parametrize("content", [b"", b"\n\n"], ids=["empty", "blank"])
def test_build_empty_input(tmp_path: Path, content: bytes) -> None:
    source = tmp_path / "empty.pgn"
    source.write_bytes(content)
    line = assert_one_line_error(invoke("build", source, "-o", tmp_path / "x.duckdb", "--workers", "1"))
    assert "no games" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.pgn"]


def test_build_input_is_a_directory(tmp_path: Path) -> None:
    assert_one_line_error(invoke("build", tmp_path, "-o", tmp_path / "x.duckdb"))


def test_build_unwritable_output_dir(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        try:
            (locked / "probe").touch()
        except PermissionError:
            target_dir = locked
        else:  # running as root: permission bits do not stop us; /proc/self refuses new files
            (locked / "probe").unlink()
            target_dir = Path("/proc/self")
        line = assert_one_line_error(invoke("build", SAMPLE, "-o", target_dir / "x.duckdb", "--workers", "1"))
        assert str(target_dir) in line
        assert not (target_dir / "x.duckdb").exists()
    finally:
        locked.chmod(0o755)


def test_build_output_dir_missing(tmp_path: Path) -> None:
    line = assert_one_line_error(invoke("build", SAMPLE, "-o", tmp_path / "nodir" / "x.duckdb"))
    assert "nodir" in line


def test_build_output_is_a_directory(tmp_path: Path) -> None:
    (tmp_path / "out.duckdb").mkdir()
    assert_one_line_error(invoke("build", SAMPLE, "-o", tmp_path / "out.duckdb"))


def test_build_corrupt_gzip_input(tmp_path: Path) -> None:
    source = tmp_path / "bad.pgn.gz"
    source.write_bytes(gzip.compress(SAMPLE.read_bytes())[:12] + b"\x00garbage\xff" * 200)
    assert_one_line_error(invoke("build", source, "-o", tmp_path / "x.duckdb", "--workers", "1"))
    assert not (tmp_path / "x.duckdb").exists()


def test_info_on_a_non_database_file(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.duckdb"
    bogus.write_text("this is not a database\n")
    assert_one_line_error(invoke("info", bogus))
    assert_one_line_error(invoke("info", SAMPLE))


def test_info_on_a_database_that_is_not_an_index(tmp_path: Path) -> None:
    other = tmp_path / "other.duckdb"
    con = duckdb.connect(str(other))
    con.execute("CREATE TABLE t (x INTEGER)")
    con.close()
    line = assert_one_line_error(invoke("info", other))
    assert "not a cqlindex database" in line


def test_index_of_another_schema_version_is_refused(sample_db: Path, tmp_path: Path) -> None:
    old = tmp_path / "old.duckdb"
    old.write_bytes(sample_db.read_bytes())
    con = duckdb.connect(str(old))
    con.execute("UPDATE build_info SET value = '2' WHERE key = 'schema_version'")
    con.close()
    for command in (("info", old), ("sql", old, "SELECT 1"), ("query", old, "check")):
        line = assert_one_line_error(invoke(*command))
        assert "schema 2" in line and "rebuild" in line, command


def test_info_missing_database(tmp_path: Path) -> None:
    line = assert_one_line_error(invoke("info", tmp_path / "none.duckdb"))
    assert "none.duckdb" in line
    assert not (tmp_path / "none.duckdb").exists()


def test_sql_bad_sql(sample_db: Path) -> None:
    line = assert_one_line_error(invoke("sql", sample_db, "SELEC count(*) FROM games"))
    assert "SQL" in line
    assert_one_line_error(invoke("sql", sample_db, "SELECT no_such_column FROM games"))


@pytest.mark.parametrize("statement", [
    "INSERT INTO build_info VALUES ('k', 'v')",
    "CREATE TABLE t (x INTEGER)",
    "DELETE FROM games",
    "UPDATE games SET white = 'x'",
    "DROP TABLE errors",
])
def test_sql_cannot_write(sample_db: Path, statement: str) -> None:
    before = sample_db.read_bytes()
    assert_one_line_error(invoke("sql", sample_db, statement))
    assert sample_db.read_bytes() == before
    result = invoke("sql", sample_db, "SELECT count(*) FROM games", "--format", "csv")
    assert_ok(result)
    assert result.stdout.splitlines()[1] == str(SAMPLE_GAMES)


def test_sql_on_a_missing_database(tmp_path: Path) -> None:
    assert_one_line_error(invoke("sql", tmp_path / "none.duckdb", "SELECT 1"))


@pytest.mark.parametrize("args", [["info", "x", "--format", "xml"], ["sql", "x", "SELECT 1", "--format", "xml"],
                                  ["build", "x.pgn", "--workers", "0"]])
def test_bad_option_values_are_usage_errors(args: list[str]) -> None:
    result = invoke(*args)
    assert isinstance(result.exception, SystemExit)
    assert result.exit_code == 2
    assert "Traceback" not in result.output


# --- help --------------------------------------------------------------------------------------

def test_every_command_and_option_has_help() -> None:
    group = typer.main.get_command(app)
    assert (group.help or "").strip()
    assert set(group.commands) == {"build", "add", "info", "sql", "query", "export", "filters", "serve"}
    missing = []
    for name, command in group.commands.items():
        if not (command.help or "").strip():
            missing.append(name)
        for param in command.params:
            if not (getattr(param, "help", None) or "").strip():
                missing.append(f"{name} {param.name}")
    assert not missing, f"no help text: {missing}"


def test_every_option_is_used_by_some_test() -> None:
    """Each option of each command is invoked somewhere in the tests, in one of its spellings."""
    group = typer.main.get_command(app)
    tests = "".join(path.read_text(encoding="utf-8") for path in Path(__file__).parent.glob("test_*.py"))
    unused = [f"{name} {param.opts[0]}" for name, command in group.commands.items() for param in command.params
              if param.opts[0].startswith("-")
              and not any(f'"{spelling}"' in tests for spelling in (*param.opts, *param.secondary_opts))]
    assert not unused, f"options no test uses: {unused}"


@pytest.mark.parametrize("command", [[], ["build"], ["info"], ["sql"], ["query"], ["export"]])
def test_help_output(command: list[str]) -> None:
    result = invoke(*command, "--help")
    assert_ok(result)
    assert "Usage" in result.output


def test_no_arguments_shows_help() -> None:
    result = invoke()
    assert "Usage" in result.output
    for name in ("build", "info", "sql", "query"):
        assert name in result.output


# --- query --------------------------------------------------------------------------------------

def test_query_lists_matching_games(sample_db: Path) -> None:
    result = invoke("query", sample_db, "check")
    assert_ok(result)
    games = [int(g) for g in result.stdout.split()]
    assert games and games == sorted(games)
    assert f"{len(games)} matches of {SAMPLE_GAMES} games in " in result.stderr  # CQL's closing line
    assert "matching positions)" in result.stderr


def test_query_ndjson(sample_db: Path) -> None:
    result = invoke("query", sample_db, "mate or stalemate", "--format", "ndjson")
    assert_ok(result)
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert all(set(row) >= {"gamenumber", "positionid"} for row in rows)


def test_query_from_file(sample_db: Path, tmp_path: Path) -> None:
    cql = tmp_path / "q.cql"
    cql.write_text("cql() // kings side by side\nk == orthogonal 1 K\n")
    assert_ok(invoke("query", sample_db, "-f", cql))


@pytest.mark.parametrize(("query", "words"), [
    ("check and", "<query>:1:10: syntax error"),
    ("{mate", "expected '}'"),
    ("similarposition", "syntax error"),
    ("3", "a number here is only asked whether it matches"),
])
def test_query_errors_show_where(sample_db: Path, query: str, words: str) -> None:
    result = invoke("query", sample_db, query)
    assert result.exit_code == 2
    assert words in result.stderr
    assert "^" in result.stderr
    assert "Traceback" not in result.output + result.stderr


def test_query_file_that_is_not_utf8(sample_db: Path, tmp_path: Path) -> None:
    cql = tmp_path / "latin1.cql"
    cql.write_bytes("// caf\xe9\ncheck\n".encode("latin-1"))
    assert "not UTF-8" in assert_one_line_error(invoke("query", sample_db, "-f", cql))


def test_info_schema_lists_columns_views_and_macros(sample_db: Path) -> None:
    result = invoke("info", sample_db, "--schema")
    assert_ok(result)
    for line in ("positions", "white_attacks", "positions_fen", "mainline_positions", "fen(pos)",
                 "piece_at(pos, sq)", "square_mask(set_name)", "transform_square(t, sq)"):
        assert line in result.output, line
    data = json.loads(invoke("info", sample_db, "--schema", "--format", "json").output)
    assert {"name": "fen", "parameters": ["pos"]} in data["macros"]
    assert any(c["name"] == "zobrist" for c in data["tables"]["positions"])

