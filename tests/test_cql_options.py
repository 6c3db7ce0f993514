"""The reference CQL engine's command-line options on ``cqlindex query``.

Each CQL-style invocation must find exactly what the library finds for the query and
parameters the option stands for; the rewriting rules themselves are tested as plain functions.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import chess.pgn
import pytest
from typer.testing import CliRunner

from cqlindex.cli import app
from cqlindex.cql_options import compose, join_ranges, parse_range
from cqlindex.errors import CqlSyntaxError, InputError
from cqlindex.exec.run import run

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "gnuchess-300.pgn"
runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    from cqlindex.ingest.pipeline import build

    out = tmp_path_factory.mktemp("options") / "gnuchess-300.duckdb"
    build([str(SAMPLE)], out, workers=1)
    return out


def query(*args: str):
    result = runner.invoke(app, ["query", *map(str, args)])
    assert result.exit_code == 0, result.output
    return result


def games_of(result) -> list[int]:
    lines = [line for line in result.stdout.splitlines() if line and not line.startswith("<")]
    return [int(g) for g in lines[0].split()] if lines else []


# --- the rules click cannot declare --------------------------------------------------------------

JOIN_CASES = [
    (["-gamenumber", "3", "5", "check"], ["-gamenumber", "3-5", "check"]),
    (["-gamenumber", "3", "check"], ["-gamenumber", "3", "check"]),
    (["-g", "7", "9"], ["-g", "7-9"]),
    (["--gamenumber", "2", "4"], ["--gamenumber", "2-4"]),
    (["--gamenumber", "2-4"], ["--gamenumber", "2-4"]),
    (["-matchcount", "2"], ["-matchcount", "2"]),
    (["-MatchCount", "2", "10", "mate"], ["-MatchCount", "2-10", "mate"]),
    (["-year", "1990", "2000", "-variations"], ["-year", "1990-2000", "-variations"]),
    (["-cql", "-flip", "-matchstring", "-silent"], ["-cql", "-flip", "-matchstring", "-silent"]),
    (["db", "Ka1 kh8", "--variations"], ["db", "Ka1 kh8", "--variations"]),
]


@pytest.mark.parametrize("args, expected", JOIN_CASES)
def test_join_ranges(args: list[str], expected: list[str]) -> None:
    assert join_ranges(args) == expected


def test_a_range_option_needs_a_number() -> None:
    with pytest.raises(InputError, match="-gamenumber A"):
        join_ranges(["-gamenumber", "check"])


RANGE_CASES = [
    ("5", False, (5, 5)),
    ("5", True, (5, None)),
    ("3-9", False, (3, 9)),
    ("3-9", True, (3, 9)),
]


@pytest.mark.parametrize("text, open_ended, expected", RANGE_CASES)
def test_parse_range(text: str, open_ended: bool, expected) -> None:
    assert parse_range(text, "--x", open_ended=open_ended) == expected


@pytest.mark.parametrize("text", ["9-3", "a", "1-2-3", "-4", ""])
def test_parse_range_refuses(text: str) -> None:
    with pytest.raises(InputError):
        parse_range(text, "--x", open_ended=False)


COMPOSE_CASES = [
    ("check", [], [], "check"),
    ("check", ["mate"], [], "check\nmate"),
    ("", ["mate"], [], "mate"),
    ("Ka1", [], ["flipcolor"], "flipcolor {\nKa1\n}"),
    ("Ka1 // a comment", [], ["flip"], "flip {\nKa1 // a comment\n}"),
    ("cql(variations) Ka1", ["check"], ["flipcolor", "shift"], "cql(variations) shift {\nflipcolor {\nKa1\ncheck\n}\n}"),
]


@pytest.mark.parametrize("text, append, wrap, expected", COMPOSE_CASES)
def test_compose(text: str, append: list[str], wrap: list[str], expected: str) -> None:
    assert compose(text, "<q>", append=append, wrap=wrap) == expected


def test_compose_reports_the_users_own_error_where_it_is() -> None:
    with pytest.raises(CqlSyntaxError) as error:
        compose("Ka1\n  Kz9", "<q>", wrap=["flip"])
    assert (error.value.span.line, error.value.span.col) == (2, 3)


# --- end to end: each option finds what the library finds --------------------------------------

# (CQL-style arguments after the index, the query text and run() parameters they stand for)
EQUIVALENT = [
    (["check"], "check", {}),
    (["-variations", "check"], "check", {"variations": True}),
    (["check", "-mainline"], "check", {"variations": False}),
    (["-gamenumber", "10", "60", "check"], "check", {"gamenumbers": (10, 60)}),
    (["-gamenumber", "17", "check"], "check", {"gamenumbers": (17, 17)}),
    (["-g", "1", "40", "Q == 0"], "Q == 0", {"gamenumbers": (1, 40)}),
    (["-matchcount", "12", "check"], "check", {"matchcount": (12, None)}),
    (["-matchcount", "3", "5", "check"], "check", {"matchcount": (3, 5)}),
    (["check", "-cql", "Q"], "check\nQ", {}),
    (["-cql", "Q == 0"], "Q == 0", {}),
    (["-flipcolor", "Kg1"], "flipcolor {Kg1}", {}),
    (["-flip", "Ka1"], "flip {Ka1}", {}),
    (["-shift", "Pa2 Pb3"], "shift {Pa2 Pb3}", {}),
    (["--flip", "--shift", "Ka1"], "shift {flip {Ka1}}", {}),
    (["-flipcolor", "-cql", "check", "Q == 0"], "flipcolor {Q == 0 check}", {}),
    (["-Variations", "-GameNumber", "5", "90", "check"], "check", {"variations": True, "gamenumbers": (5, 90)}),
]


@pytest.mark.parametrize("args, text, params", EQUIVALENT, ids=[" ".join(c[0]) for c in EQUIVALENT])
def test_option_finds_what_the_library_finds(db: Path, args: list[str], text: str, params: dict) -> None:
    expected = list(run(db, text, **params).matches)
    assert games_of(query(db, *args, "--format", "summary")) == expected
    assert games_of(query("-i", db, *args, "--format", "summary")) == expected


def test_the_options_change_the_result(db: Path) -> None:
    """The table above means something only if the options are not all ignored."""
    plain = list(run(db, "check").matches)
    assert list(run(db, "check", gamenumbers=(10, 60)).matches) != plain
    assert list(run(db, "check", matchcount=(12, None)).matches) != plain
    assert list(run(db, "flipcolor {Kg1}").matches) != list(run(db, "Kg1").matches)


def test_output_matchstring_silent_and_summary(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.pgn"
    result = query("-i", db, "-o", out, "-matchstring", "Found", "check")
    expected = run(db, "check")
    assert result.stdout.startswith(f"{len(expected.matches)} matches of 300 games in ")
    with out.open(encoding="utf-8") as handle:
        games = list(iter(lambda: chess.pgn.read_game(handle), None))
    assert [int(g.comment.split("Game number ")[1]) for g in games] == list(expected.matches)
    assert sum(node.comment == "Found" for g in games for node in g.mainline()) == expected.positions

    silent = tmp_path / "silent.pgn"
    query("-i", db, "-output", silent, "-silent", "check")
    text = silent.read_text()
    assert "Game number" not in text and "CQL" not in text and text.count("[Event ") == len(expected.matches)


def test_quiet_leaves_out_the_summary_line(db: Path, tmp_path: Path) -> None:
    result = query(db, "check", "-o", tmp_path / "q.pgn", "-quiet")
    assert result.output == ""
    assert "Game number" in (tmp_path / "q.pgn").read_text()  # CQL's quiet keeps the header comments


def test_showmatches_prints_each_game(db: Path) -> None:
    result = query(db, "check", "-showmatches", "--format", "count")
    shown = [int(line.strip("<>")) for line in result.stdout.splitlines() if line.startswith("<")]
    assert shown == list(run(db, "check").matches) and shown


def test_header_parameters_apply(db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """cql(output F matchstring S silent ...) in the query does what the options do."""
    monkeypatch.chdir(tmp_path)
    query(db, 'cql(output found.pgn matchstring "here") check')
    assert "{ here }" in (tmp_path / "found.pgn").read_text()


def test_query_as_a_cql_file_and_the_pgn_as_input(db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """cql -i games.pgn query.cql: the index built for games.pgn is found beside it."""
    pgn = tmp_path / "games.pgn"
    shutil.copy(SAMPLE, pgn)
    shutil.copy(db, tmp_path / "games.duckdb")
    (tmp_path / "checks.cql").write_text("cql() check\n")
    monkeypatch.chdir(tmp_path)
    result = query("-i", "games.pgn", "checks.cql", "--format", "summary")
    assert games_of(result) == list(run(db, "check").matches)


def test_the_index_named_by_the_query_header(db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """cqlindex query query.cql, where the file says cql(input games.pgn): as cql query.cql does."""
    shutil.copy(SAMPLE, tmp_path / "games.pgn")
    shutil.copy(db, tmp_path / "games.duckdb")
    (tmp_path / "q.cql").write_text("cql(input games.pgn) check\n")
    monkeypatch.chdir(tmp_path)
    assert games_of(query("q.cql", "--format", "summary")) == list(run(db, "check").matches)
    assert games_of(query("-f", "q.cql", "--format", "summary")) == list(run(db, "check").matches)
    (tmp_path / "none.cql").write_text("cql() check\n")
    result = runner.invoke(app, ["query", "none.cql"])
    assert result.exit_code != 0 and "which index?" in result.output and "Traceback" not in result.output


def test_a_pgn_without_an_index_says_how_to_build_one(tmp_path: Path) -> None:
    pgn = tmp_path / "new.pgn"
    shutil.copy(SAMPLE, pgn)
    result = runner.invoke(app, ["query", "-i", str(pgn), "check"])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "cqlindex build" in result.output and "new.duckdb" in result.output


@pytest.mark.parametrize("args, words", [
    (["-gamenumber", "check"], "-gamenumber A [B]"),
    (["--gamenumber", "9-3", "check"], "range is empty"),
    (["--matchcount", "x", "check"], "--matchcount A [B]"),
    (["--matchcount", "1-x", "check"], "--matchcount A [B]"),
    (["-flip", "Ka1 {"], "expected '}'"),
    # an unknown one-dash option is named as typed, not as click's short option (-v)
    (["-variation", "check"], "No such option: -variation (did you mean -variations?)"),
    (["-Matchcnt", "2", "check"], "No such option: -Matchcnt (did you mean -matchcount?)"),
    (["-zzz", "check"], "No such option: -zzz"),
])
def test_bad_options_are_one_clear_message(db: Path, args: list[str], words: str) -> None:
    result = runner.invoke(app, ["query", str(db), *args])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert words in result.output
