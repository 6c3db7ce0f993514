"""A streamed run (:mod:`cqlindex.exec.streamed`) writes what the held run writes, a range at a time.

The ranges are made small here (a few thousand positions) so that the 300 sample games span
a dozen of them: the bytes of every streamed shape must equal those the held run (the path the
output tests check) gives, for exact plans, plans the evaluator confirms, a window plan, matchcount
and gamenumber ranges; and the search must not run ahead of the writer.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from typer.testing import CliRunner

import cqlindex.exec.rows as rows
import cqlindex.exec.streamed as streamed
from cqlindex.cli import app
from cqlindex.exec.run import run
from cqlindex.exec.streamed import run_streamed
from cqlindex.output.formats import STREAMED, Format, Options, write
from cqlindex.output.stream import write_records
from cqlindex.store.database import connect

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "gnuchess-300.pgn"
RANGE = 2_000  # positions a range: 13 ranges over the sample


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    from cqlindex.ingest.pipeline import build

    path = tmp_path_factory.mktemp("streamed") / "g.duckdb"
    build([str(SAMPLE)], path, workers=1)
    return path


@pytest.fixture()
def small_ranges(monkeypatch):
    monkeypatch.setattr(rows, "BATCH_POSITIONS", RANGE)


def _written(db: Path, result, fmt: Format) -> str:
    out = io.StringIO()
    con = connect(db)
    try:
        write(con, result, fmt, out, Options(matchstring="M"))
    finally:
        con.close()
    return out.getvalue()


@pytest.mark.parametrize("query, params", [
    ("true", {}),                                  # every position: every range has matches
    ("check", {"matchcount": (2, 4)}),             # exact, matchcount cuts games
    ("mate", {"gamenumbers": (40, 260)}),          # few matches, a gamenumber span across ranges
    ("Qd1 btm", {}),                               # narrowed? whichever: the evaluator's answer is the held one
    ("line --> check --> check", {}),              # a window plan (batched), the evaluator confirms
    ('check comment("seen")', {}),                 # comments, written with their games
])
def test_streamed_output_is_the_held_output_byte_for_byte(db, small_ranges, query, params) -> None:
    for fmt in sorted(STREAMED, key=lambda f: f.value):
        held = run(db, query, **params)
        streamed_result = run_streamed(db, query, **params)
        assert streamed_result.pending is not None or not held.matches  # it streams
        assert _written(db, streamed_result, fmt) == _written(db, held, fmt), (query, fmt)
        assert streamed_result.matching_games == len(held.matches)
        assert streamed_result.positions == held.positions
        assert streamed_result.games_examined == held.games_examined


def test_a_sorted_query_is_held(db, small_ranges) -> None:
    result = run_streamed(db, "check sort ply")
    assert result.pending is None and list(result.matches) == list(run(db, "check sort ply").matches)


def test_the_search_runs_a_range_ahead_of_the_writer_at_most(db, small_ranges, monkeypatch) -> None:
    searched: list[tuple[int, int]] = []
    real = streamed.range_sqls

    def counted(con, select, batched):  # each range's SQL is written as the search comes to it
        sql = real(con, select, batched)

        def one(low, high):
            searched.append((low, high))
            return sql(low, high)
        return one

    monkeypatch.setattr(streamed, "range_sqls", counted)
    result = run_streamed(db, "true")
    assert len(searched) == 1  # the first range, found before anything is written
    seen = []

    class Out(io.StringIO):
        def write(self, text):  # the first record is written before the second range is searched
            seen.append(len(searched))
            return super().write(text)

    con = connect(db)
    try:
        write_records(con, result.pairs(), "ndjson", Out(), size=100)
    finally:
        con.close()
    assert seen[0] <= 2 and len(searched) > 10
    assert result.matching_games == 300


def test_the_command_line_streams_and_counts_what_it_wrote(db, small_ranges, tmp_path) -> None:
    held = run(db, "check")
    out = tmp_path / "c.ndjson"
    done = CliRunner().invoke(app, ["query", str(db), "check", "-o", str(out)])
    assert done.exit_code == 0, done.output
    assert out.read_text() == _written(db, held, Format.ndjson)
    assert f"{len(held.matches)} matches of 300 games in " in done.stdout
    assert f"({held.positions} matching positions)" in done.stdout
