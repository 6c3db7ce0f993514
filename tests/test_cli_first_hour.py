"""What a new user meets in the first hour: where the PGN output reads its games from, what -o
writes, a quiet DuckDB, and the small things (version, -q, help, exit codes, sql from a file or
stdin with parameters, -showmatches in a pipe, typed info)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import chess.pgn
import pytest
import typer.main
from typer.testing import CliRunner

from cqlindex.cli import app
from cqlindex.exec.run import run
from cqlindex.store.database import connect
from cqlindex.store.duckdb_light import duckdb  # the module cqlindex connects through

CLASSICS = Path(__file__).resolve().parents[1] / "samples" / "classics.pgn"
runner = CliRunner()


def invoke(*args, **kwargs):
    return runner.invoke(app, [str(a) for a in args], **kwargs)


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("firsthour") / "classics.duckdb"
    assert invoke("build", CLASSICS, "-o", out, "--workers", "1", "-q").exit_code == 0
    return out


# --- 5: the index names its PGN sources so that any directory finds them -----------------------

def test_sources_are_stored_as_absolute_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copy(CLASSICS, tmp_path / "games.pgn")
    monkeypatch.chdir(tmp_path)
    assert invoke("build", "games.pgn", "-o", "games.duckdb", "--workers", "1", "-q").exit_code == 0
    con = connect(tmp_path / "games.duckdb")
    try:
        sources = {row[0] for row in con.execute("SELECT DISTINCT source_file FROM games").fetchall()}
    finally:
        con.close()
    assert sources == {str(tmp_path / "games.pgn")}
    # from another directory the PGN output reads the original file: comments and all, nothing rebuilt
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    result = invoke("query", tmp_path / "games.duckdb", "mate", "-o", "mates.pgn")
    assert result.exit_code == 0 and "rebuilt" not in result.output
    assert "{ The queen too. }" in (elsewhere / "mates.pgn").read_text()


def test_an_old_index_with_relative_sources_finds_them_beside_it(tmp_path: Path, monkeypatch) -> None:
    """Indexes built before stored the path as given; it is tried from here, then from the index's folder."""
    folder = tmp_path / "collection"
    folder.mkdir()
    shutil.copy(CLASSICS, folder / "games.pgn")
    monkeypatch.chdir(folder)
    from cqlindex.ingest.pipeline import build

    build(["games.pgn"], folder / "games.duckdb", workers=1)  # the pipeline as old CLIs called it
    con = duckdb.connect(str(folder / "games.duckdb"))
    con.execute("UPDATE games SET source_file = 'games.pgn'")
    con.close()
    monkeypatch.chdir(tmp_path)
    result = invoke("query", folder / "games.duckdb", "mate", "-o", "mates.pgn")
    assert result.exit_code == 0 and "rebuilt" not in result.output, result.output
    assert "{ The queen too. }" in (tmp_path / "mates.pgn").read_text()


# --- 7: -o writes PGN whatever the file is called, as CQL does -------------------------------------

@pytest.mark.parametrize("name", ["out.txt", "out", "found.cqo"])
def test_output_to_an_unknown_suffix_is_pgn(db: Path, tmp_path: Path, name: str) -> None:
    out = tmp_path / name
    result = invoke("query", db, "mate", "-o", out)
    assert result.exit_code == 0, result.output
    with out.open() as handle:
        games = list(iter(lambda: chess.pgn.read_game(handle), None))
    assert [int(g.comment.split("Game number ")[1]) for g in games] == list(run(db, "mate").matches)
    assert result.stdout.startswith(f"{len(games)} matches of 7 games")


# --- 8: DuckDB's progress bar is off on every connection that reads an index ---------------------

def test_no_progress_bar_on_reading_connections(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # DuckDB turns its bar on by default in a terminal (off under pytest): start from "on", as a user's shell does
    real = duckdb.connect

    def loud(*args, **kwargs):
        con = real(*args, **kwargs)
        con.execute("SET enable_progress_bar = true")
        return con

    monkeypatch.setattr(duckdb, "connect", loud)
    con = connect(db)
    try:
        assert con.execute("SELECT current_setting('enable_progress_bar')").fetchone()[0] is False
    finally:
        con.close()
    import cqlindex

    index = cqlindex.open(db)
    assert index.sql("SELECT current_setting('enable_progress_bar') AS on").column("on").to_pylist() == [False]


# --- 9: papercuts -----------------------------------------------------------------------------

def test_version() -> None:
    from cqlindex import __version__

    result = invoke("--version")
    assert result.exit_code == 0 and result.stdout.strip() == f"cqlindex {__version__}"


def test_query_q_is_quiet(db: Path) -> None:
    loud = invoke("query", db, "mate", "--format", "count")
    quiet = invoke("query", db, "mate", "--format", "count", "-q")
    assert "matches of 7 games" in loud.output and "matches of" not in quiet.output
    assert quiet.stdout == loud.stdout == "5 games 5 positions\n"


@pytest.mark.parametrize("command", [[], ["build"], ["info"], ["sql"], ["query"], ["export"]])
def test_help_has_no_bool_placeholders(command: list[str]) -> None:
    result = invoke(*command, "--help")
    assert result.exit_code == 0 and "<bool>" not in result.stdout


def test_exit_codes(db: Path, tmp_path: Path) -> None:
    """3 for no index however it was named, 2 for a mistake in the command or the query."""
    shutil.copy(CLASSICS, tmp_path / "new.pgn")
    assert invoke("query", tmp_path / "missing.duckdb", "mate").exit_code == 3
    assert invoke("query", tmp_path / "new.pgn", "mate").exit_code == 3
    assert invoke("query", "-i", tmp_path / "new.pgn", "mate").exit_code == 3
    assert invoke("query", db, "mat").exit_code == 2
    assert invoke("query", db, "mate", "-threads", "2").exit_code == 2
    assert invoke("sql", db, "SELEC 1").exit_code == 3


SQL = "SELECT gamenumber, white FROM games WHERE year < ? ORDER BY gamenumber"


def test_sql_from_a_file_stdin_and_with_parameters(db: Path, tmp_path: Path) -> None:
    expected = [{"gamenumber": 2, "white": "Legal de Kermeur, Francois"},
                {"gamenumber": 5, "white": "De la Bourdonnais, Louis Charles Mahe"}]
    (tmp_path / "q.sql").write_text(SQL)
    by_file = invoke("sql", db, "--file", tmp_path / "q.sql", "--param", "1850", "--format", "json")
    assert json.loads(by_file.stdout) == expected
    by_stdin = invoke("sql", db, "-", "-p", "1850", "-f", "json", input=SQL)
    assert json.loads(by_stdin.stdout) == expected
    named = invoke("sql", db, "SELECT count(*) AS n FROM games WHERE white LIKE $who", "--param", "who=Anderssen%",
                   "-f", "json")
    assert json.loads(named.stdout) == [{"n": 2}]
    assert invoke("sql", db, "-", "-f", "json", input="").exit_code == 2


def test_showmatches_into_a_pipe_prints_one_form(db: Path) -> None:
    result = invoke("query", db, "mate", "-showmatches")
    lines = result.stdout.split()
    assert lines == [f"<{g}>" for g in run(db, "mate").matches]


def test_the_html_page_says_the_limit_and_its_sources(db: Path, tmp_path: Path) -> None:
    page = tmp_path / "m.html"
    assert invoke("query", db, "check", "--limit", "2", "-o", page).exit_code == 0
    text = page.read_text()
    assert "(--limit 2)" in text and str(db) in text and str(CLASSICS) in text
    assert invoke("query", db, "mate", "-o", page).exit_code == 0
    assert "--limit" not in page.read_text()


def test_info_json_values_are_typed(db: Path) -> None:
    build = json.loads(invoke("info", db, "--format", "json").stdout)["build"]
    assert build["workers"] == 1 and isinstance(build["build_seconds"], float)
    assert build["inputs"] == [str(CLASSICS)] and isinstance(build["duckdb_version"], str)


def test_matches_in_a_notebook(db: Path) -> None:
    import cqlindex

    matches = cqlindex.open(db).query("mate")
    assert repr(matches) == "<cqlindex.Matches 5 positions in 5 games of classics.duckdb for 'mate'>"
    page = matches._repr_html_()
    assert page.count("<tr>") == 1 + 5 and "29. Qg5#" in page and "Morphy, Paul" in page


def test_the_pandas_extra_is_declared() -> None:
    import tomllib

    config = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    assert any(req.startswith("pandas") for req in config["project"]["optional-dependencies"]["pandas"])


def test_every_first_hour_option_is_declared() -> None:
    group = typer.main.get_command(app)
    spellings = {name: {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
                 for name, command in group.commands.items()}
    assert {"--file", "--param", "-p"} <= spellings["sql"]
    assert {"-q", "-player", "-fen", "-reversecolor", "-noheader", "-nosettag", "-version"} <= spellings["query"]


def test_no_progress_bar_on_the_build_connection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The build draws its own bar on stderr; DuckDB's own would go to stdout, past two seconds of an insert.
    from cqlindex.ingest import pipeline

    real_connect, real_info = duckdb.connect, pipeline._write_build_info
    seen = []

    def loud(*args, **kwargs):
        con = real_connect(*args, **kwargs)
        con.execute("SET enable_progress_bar = true")
        return con

    def build_info(con, *args):
        seen.append(con.execute("SELECT current_setting('enable_progress_bar')").fetchone()[0])
        return real_info(con, *args)

    monkeypatch.setattr(duckdb, "connect", loud)
    monkeypatch.setattr(pipeline, "_write_build_info", build_info)
    pipeline.build([str(CLASSICS)], tmp_path / "c.duckdb", workers=1)
    assert seen and not any(seen)
