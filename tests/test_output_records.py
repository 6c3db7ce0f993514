"""Match records and the query command's table/JSON/CSV/count formats, checked against python-chess."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import chess
import chess.pgn
import pytest
from typer.testing import CliRunner

from cqlindex.cli import app
from cqlindex.exec.run import run
from cqlindex.output.records import FIELDS, game_rows, match_records
from cqlindex.store.database import connect
from tests.conftest import shared_path

LICHESS = "data/games/lichess-474.pgn"
QUERY = "flipcolor {btm mate move previous from N}"
runner = CliRunner()


@pytest.fixture(scope="module")
def games() -> list[chess.pgn.Game]:
    with shared_path(LICHESS).open(encoding="utf-8") as handle:
        return [g for g in iter(lambda: chess.pgn.read_game(handle), None)]


def test_records_match_the_replayed_games(build_db, games) -> None:
    db = build_db(LICHESS)
    matches = run(db, "mate").matches
    con = connect(db)
    try:
        records = match_records(con, matches)
    finally:
        con.close()
    assert [(r["gamenumber"], r["positionid"]) for r in records] == [(g, p) for g, ids in matches.items() for p in ids]
    for record in records:
        game = games[record["gamenumber"] - 1]
        node = game.end()  # a mate ends the main line: positionid == ply on the main line
        assert record["ply"] == node.ply() == record["positionid"]
        assert record["fen"] == node.board().fen(en_passant="fen")
        assert record["san"] == node.san()
        assert record["white"] == game.headers["White"] and record["result"] == game.headers["Result"]


def test_game_rows_name_the_first_matching_move() -> None:
    common = {"white": "a", "black": "b", "result": "*", "date": "1972.07.??", "year": 1972}
    records = [{"gamenumber": 3, "ply": 4, "movenumber": 3, "wtm": True, "san": "Nf6", "mainline": True, "depth": 0,
                **common},
               {"gamenumber": 3, "ply": 5, "movenumber": 3, "wtm": False, "san": "Bc4", "mainline": False, "depth": 1,
                **common},
               {"gamenumber": 1, "ply": 0, "movenumber": 1, "wtm": True, "san": None, "white": "c", "black": "d",
                "result": "1-0", "date": "????.??.??", "year": None, "mainline": True, "depth": 0},
               {"gamenumber": 5, "ply": 7, "movenumber": 4, "wtm": False, "san": "Qxf7#", "mainline": False,
                "depth": 2, **common}]
    assert game_rows(records) == [
        {"gamenumber": 3, "white": "a", "black": "b", "result": "*", "date": "1972.07.??", "year": 1972,
         "first_match": "2... Nf6", "positions": 2, "in_variations": 1},
        {"gamenumber": 1, "white": "c", "black": "d", "result": "1-0", "date": "????.??.??", "year": None,
         "first_match": "start", "positions": 1, "in_variations": 0},
        {"gamenumber": 5, "white": "a", "black": "b", "result": "*", "date": "1972.07.??", "year": 1972,
         "first_match": "4. Qxf7# (variation, depth 2)", "positions": 1, "in_variations": 1}]


def _query(db: Path, *args: str):
    result = runner.invoke(app, ["query", str(db), QUERY, *args])
    assert result.exit_code == 0, result.output
    return result


def test_formats_agree(build_db, tmp_path: Path) -> None:
    db = build_db(LICHESS)
    expected = run(db, QUERY).matches
    pairs = [(g, p) for g, ids in expected.items() for p in ids]
    assert pairs, "the query must match something for this test to mean anything"
    assert _query(db, "--format", "summary").stdout.split() == [str(g) for g in expected]
    ndjson = [json.loads(line) for line in _query(db, "--format", "ndjson").stdout.splitlines()]
    assert [(r["gamenumber"], r["positionid"]) for r in ndjson] == pairs
    assert json.loads(_query(db, "--format", "json").stdout) == ndjson
    rows = list(csv.DictReader(io.StringIO(_query(db, "--format", "csv").stdout)))
    assert list(rows[0]) == list(FIELDS) and [int(r["positionid"]) for r in rows] == [p for _, p in pairs]
    assert _query(db, "--format", "count").stdout.split() == [str(len(expected)), "games", str(len(pairs)),
                                                              "positions"]
    table = _query(db, "--format", "table").stdout
    assert all(str(g) in table for g in expected) and "first match" in table
    out = tmp_path / "m.ndjson"
    _query(db, "--format", "ndjson", "-o", str(out))
    assert [json.loads(line) for line in out.read_text().splitlines()] == ndjson
    # the suffix of -o picks the format when --format is not given
    for suffix, parse in ((".json", json.loads), (".jsonl", lambda t: [json.loads(x) for x in t.splitlines()])):
        _query(db, "-o", str(tmp_path / f"m{suffix}"))
        assert parse((tmp_path / f"m{suffix}").read_text()) == ndjson
    _query(db, "-o", str(tmp_path / "m.csv"))
    assert list(csv.DictReader((tmp_path / "m.csv").open())) == rows
    # html: a board per matching position, at most --boards per game
    page = tmp_path / "m.html"
    _query(db, "-o", str(page), "--boards", "1")
    assert page.read_text().count('<figure class="board"') == len(expected)
    _query(db, "--format", "html", "-o", str(page))
    assert page.read_text().count('<figure class="board"') == sum(min(len(ids), 12) for ids in expected.values())


def test_sorted_output_in_every_format(build_db) -> None:
    """sort puts the games in order of their values, and every format follows that order."""
    db = build_db(LICHESS)
    text = "sort ply mate"
    order = list(run(db, text).matches)
    assert order != sorted(order)
    result = runner.invoke(app, ["query", str(db), text, "--format", "ndjson"])
    games = list(dict.fromkeys(json.loads(line)["gamenumber"] for line in result.stdout.splitlines()))
    assert games == order
    summary = runner.invoke(app, ["query", str(db), text, "--format", "summary", "--limit", "2"])
    assert summary.stdout.split() == [str(g) for g in order[:2]]


def test_limit_keeps_the_first_games(build_db) -> None:
    db = build_db(LICHESS)
    every = run(db, "mate").matches
    result = runner.invoke(app, ["query", str(db), "mate", "--limit", "3", "--format", "ndjson"])
    assert result.exit_code == 0
    assert sorted({json.loads(line)["gamenumber"] for line in result.stdout.splitlines()}) == list(every)[:3]


def test_unwritable_output_is_a_clear_error(build_db, tmp_path: Path) -> None:
    result = runner.invoke(app, ["query", str(build_db(LICHESS)), "mate", "--format", "csv", "-o",
                                 str(tmp_path / "missing" / "x.csv")])
    assert result.exit_code == 2
    assert "cannot write" in result.output and "Traceback" not in result.output


def test_pgn_is_the_default_for_a_pgn_file_and_marks_every_match(build_db, tmp_path: Path) -> None:
    db = build_db(LICHESS)
    expected = run(db, "check btm").matches
    out = tmp_path / "checks.pgn"
    result = runner.invoke(app, ["query", str(db), "check btm", "-o", str(out), "--matchstring", "HIT"])
    assert result.exit_code == 0, result.output
    with out.open(encoding="utf-8") as handle:
        written = list(iter(lambda: chess.pgn.read_game(handle), None))
    assert len(written) == len(expected)
    for game, (gamenumber, ids) in zip(written, expected.items()):
        assert f"Game number {gamenumber}" in game.comment
        marked = [node.ply() for node in game.mainline() if "HIT" in node.comment]
        assert marked == ids  # main line: positionid is the ply
