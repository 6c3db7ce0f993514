"""Every output shape of a query result, written directly: the same games, in the result's order."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import chess.pgn
import pytest

from cqlindex.exec.run import run
from cqlindex.output.formats import Format, Options, default_format, write
from cqlindex.store.database import connect

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "gnuchess-300.pgn"
QUERY = 'check sort "length" ply'  # sorted: the order is not the gamenumber order


@pytest.fixture(scope="module")
def result_and_con(tmp_path_factory):
    from cqlindex.ingest.pipeline import build

    db = tmp_path_factory.mktemp("formats") / "g.duckdb"
    build([str(SAMPLE)], db, workers=1)
    result = run(db, QUERY)
    result.matches = dict(list(result.matches.items())[:25])
    assert list(result.matches) != sorted(result.matches)
    con = connect(db)
    yield result, con
    con.close()


def written(result_and_con, fmt: Format, **options) -> str:
    result, con = result_and_con
    out = io.StringIO()
    assert write(con, result, fmt, out, Options(**options)) == []
    return out.getvalue()


def test_every_format_keeps_the_result_order(result_and_con) -> None:
    result, _ = result_and_con
    order = list(result.matches)
    pairs = [(g, p) for g, ids in result.matches.items() for p in ids]
    assert written(result_and_con, Format.summary).split() == [str(g) for g in order]
    assert written(result_and_con, Format.count).split() == [str(len(order)), "games", str(len(pairs)), "positions"]
    ndjson = [json.loads(line) for line in written(result_and_con, Format.ndjson).splitlines()]
    assert [(r["gamenumber"], r["positionid"]) for r in ndjson] == pairs
    assert json.loads(written(result_and_con, Format.json)) == ndjson
    rows = list(csv.DictReader(io.StringIO(written(result_and_con, Format.csv))))
    assert [(int(r["gamenumber"]), int(r["positionid"])) for r in rows] == pairs
    table = written(result_and_con, Format.table, width=200)
    assert [int(line.split("│")[1]) for line in table.splitlines() if line.startswith("│")] == order
    page = written(result_and_con, Format.html, boards=1, summary="the closing line")
    assert [int(n) for n in re.findall(r'data-gamenumber="(\d+)"', page)] == order
    assert "the closing line" in page
    pgn = io.StringIO(written(result_and_con, Format.pgn, matchstring="M"))
    games = list(iter(lambda: chess.pgn.read_game(pgn), None))
    assert [int(g.comment.split("Game number ")[1].split(";")[0]) for g in games] == order


@pytest.mark.parametrize("output, terminal, expected", [
    (None, True, "table"), (None, False, "summary"), ("x.pgn", True, "pgn"), ("x.HTML", False, "html"),
    ("x.htm", False, "html"), ("x.json", True, "json"), ("x.ndjson", True, "ndjson"), ("x.jsonl", True, "ndjson"),
    ("x.csv", True, "csv"),
    # CQL's -o always writes PGN: a file whose suffix names no other format gets PGN
    ("x.txt", True, "pgn"), ("out", False, "pgn"), ("x.cqo", True, "pgn"),
])
def test_default_query_format(output: str | None, terminal: bool, expected: str) -> None:
    assert default_format(Path(output) if output else None, terminal).value == expected


