"""What a reader sees of a match: the PGN's move numbers, and where a match in a variation lies.

Games set up from a FEN keep the FEN's move numbers (the 1834 game in samples/classics.pgn starts
at move 28 and ends ``29. Qg5#``; CQL's ``movenumber`` says 2, right for the filter, wrong for a
reader). Matches in variations say so in every shape a person reads: records, table, HTML.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import chess.pgn
import pytest
from typer.testing import CliRunner

from cqlindex.cli import app
from cqlindex.exec.run import run
from cqlindex.output.formats import Format, Options, write
from cqlindex.output.records import match_records
from cqlindex.store.database import connect

CLASSICS = Path(__file__).resolve().parents[1] / "samples" / "classics.pgn"
FROM_FEN = 5  # De la Bourdonnais - McDonnell, from move 28
DEMO = 7  # the mate lies only in a variation
runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    from cqlindex.ingest.pipeline import build

    out = tmp_path_factory.mktemp("display") / "classics.duckdb"
    build([str(CLASSICS)], out, workers=1)
    return out


def records(db: Path, text: str, **params) -> list[dict]:
    con = connect(db)
    try:
        return match_records(con, run(db, text, **params).matches)
    finally:
        con.close()


def test_a_game_from_a_fen_keeps_its_move_numbers(db: Path) -> None:
    [mate] = [r for r in records(db, "mate") if r["gamenumber"] == FROM_FEN]
    assert mate["movenumber"] == 29 and mate["fen"].endswith(" 29") and mate["san"] == "Qg5#"
    with CLASSICS.open() as handle:
        games = list(iter(lambda: chess.pgn.read_game(handle), None))
    assert mate["fen"] == games[FROM_FEN - 1].end().board().fen(en_passant="fen")
    # every position of every game, main line and variations: the FEN python-chess gives
    con = connect(db)
    try:
        fens = dict(((g, p), f) for g, p, f in con.execute(
            "SELECT gamenumber, positionid, fen(p) FROM positions p").fetchall())
    finally:
        con.close()
    for number, game in enumerate(games, start=1):
        nodes, stack = [], [game]
        while stack:  # positionid order: pre-order, the main continuation first
            node = stack.pop()
            nodes.append(node)
            stack.extend(reversed(node.variations))
        assert [fens[number, i] for i in range(len(nodes))] == [n.board().fen(en_passant="fen") for n in nodes], number


def test_the_table_and_the_page_show_the_pgns_numbers(db: Path) -> None:
    result = run(db, "mate")
    con = connect(db)
    try:
        table, page = io.StringIO(), io.StringIO()
        write(con, result, Format.table, table, Options(width=200))
        write(con, result, Format.html, page, Options())
    finally:
        con.close()
    assert "29. Qg5#" in table.getvalue() and "2. Qg5#" not in table.getvalue().replace("29. Qg5#", "")
    assert re.search(r'data-gamenumber="5".*?<span class="move">29\. Qg5#</span>', page.getvalue(), re.DOTALL)


def test_cqls_movenumber_filter_is_unchanged(db: Path) -> None:
    """The display moved to the PGN's numbers; the filter still counts from 1, as CQL does."""
    assert FROM_FEN in run(db, "mate movenumber == 2").matches
    assert FROM_FEN not in run(db, "mate movenumber == 29").matches


def test_world_championship_game_6(build_db) -> None:
    db = build_db("data/annotated/world-matches.pgn")
    [mate] = [r for r in records(db, "mate gamenumber == 6")]
    assert (mate["movenumber"], mate["san"], mate["fen"].split()[-1]) == (29, "Qg5#", "29")


def test_variation_matches_are_marked_in_records(db: Path) -> None:
    mates = records(db, "mate", variations=True)
    demo = [r for r in mates if r["gamenumber"] == DEMO]
    assert [(r["mainline"], r["depth"], r["san"]) for r in demo] == [(False, 1, "Qxf7#")]
    assert all(r["mainline"] and r["depth"] == 0 for r in mates if r["gamenumber"] != DEMO)


def test_variation_matches_are_marked_in_the_table_json_and_csv(db: Path) -> None:
    def query(*args: str) -> str:
        result = runner.invoke(app, ["query", str(db), "mate", "--variations", *args])
        assert result.exit_code == 0, result.output
        return result.stdout

    result = run(db, "mate", variations=True)
    con = connect(db)
    try:
        table = io.StringIO()
        write(con, result, Format.table, table, Options(width=200))
    finally:
        con.close()
    [row] = [line for line in table.getvalue().splitlines() if line.startswith("│ 7 ")]
    assert "4. Qxf7# (variation)" in row and "1 (1 in variations)" in row
    [record] = [json.loads(line) for line in query("--format", "ndjson").splitlines()
                if json.loads(line)["gamenumber"] == DEMO]
    assert record["mainline"] is False and record["depth"] == 1
    [row] = [r for r in csv.DictReader(io.StringIO(query("--format", "csv"))) if r["gamenumber"] == str(DEMO)]
    assert (row["mainline"], row["depth"]) == ("false", "1")


def test_the_study_shows_nested_variations(db: Path) -> None:
    """The Reti study: every king move of White in its lines, at depth 0, 1 and 2."""
    found = records(db, "gamenumber == 6 move previous from K", variations=True)
    assert {r["depth"] for r in found} == {0, 1}
    deeper = records(db, "gamenumber == 6 depth == 2", variations=True)
    assert deeper and all(not r["mainline"] for r in deeper)
