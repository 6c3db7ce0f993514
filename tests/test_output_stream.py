"""The streaming record writers against the writer they replaced, byte for byte, on real indexes.

The reference below is the former writer kept as the oracle: every record drawn by one SQL
statement with the schema's ``fen`` and ``fullmove`` macros, sorted as a whole, then serialised
whole (DuckDB's ``to_json`` per record, pyarrow's ``write_csv``). The streaming writer cuts the
matches into batches and draws the FEN placement with numpy; small batch sizes here put batch
boundaries inside every result, so a record lost, doubled or reordered at a boundary shows.
"""

from __future__ import annotations

import io
from pathlib import Path

import pyarrow as pa
import pyarrow.csv
import pytest
from typer.testing import CliRunner

from cqlindex.cli import app
from cqlindex.exec.run import run
from cqlindex.output.records import match_table
from cqlindex.output.placement import placements
from cqlindex.output import stream
from cqlindex.output.stream import record_batches, write_records
from cqlindex.store.database import connect

REPO = Path(__file__).resolve().parents[1]

_REFERENCE = (
    "SELECT p.gamenumber, p.positionid, p.ply, fullmove(p) AS movenumber, p.wtm, p.mainline, p.depth, p.san, "
    "fen(p) AS fen, g.white, g.black, g.result, g.year, g.event, g.site, g.date, g.eco, "
    "CASE WHEN p.move_from IS NULL THEN NULL ELSE chr(97 + p.move_from % 8) || chr(49 + p.move_from // 8) END "
    "AS move_from, "
    "CASE WHEN p.move_to IS NULL THEN NULL ELSE chr(97 + p.move_to % 8) || chr(49 + p.move_to // 8) END AS move_to "
    "FROM _matches m JOIN positions p ON p.gamenumber = m.gamenumber AND p.positionid = m.positionid "
    "JOIN games g ON g.gamenumber = p.gamenumber ORDER BY m.rank, p.positionid")


def reference_table(con, matches: dict[int, list[int]]) -> pa.Table:
    pairs = pa.table({"gamenumber": pa.array([g for g, ids in matches.items() for _ in ids], pa.int32()),
                      "positionid": pa.array([i for ids in matches.values() for i in ids], pa.int32()),
                      "rank": pa.array([r for r, ids in enumerate(matches.values()) for _ in ids], pa.int32())})
    con.register("_matches", pairs)
    try:
        return con.sql(_REFERENCE).to_arrow_table()
    finally:
        con.unregister("_matches")


def reference_text(con, matches: dict[int, list[int]], shape: str) -> str:
    table = reference_table(con, matches)
    if shape == "csv":
        buffer = io.BytesIO()
        pyarrow.csv.write_csv(table, buffer)
        return buffer.getvalue().decode("utf-8")
    con.register("_records", table)
    try:
        lines = [row[0] for row in con.execute("SELECT to_json(r)::VARCHAR FROM _records r").fetchall()]
    finally:
        con.unregister("_records")
    if shape == "ndjson":
        return "".join(line + "\n" for line in lines)
    return "[\n" + ",\n".join(lines) + "\n]\n"


@pytest.fixture(scope="module")
def indexes(build_db, tmp_path_factory) -> dict[str, Path]:
    from cqlindex.ingest.pipeline import build

    gnuchess = tmp_path_factory.mktemp("stream") / "gnuchess.duckdb"
    build([str(REPO / "samples" / "gnuchess-300.pgn")], gnuchess)
    return {"studies": build_db("data/studies/cql6-sample.pgn"), "lichess": build_db("data/games/lichess-474.pgn"),
            "gnuchess": gnuchess}


#: (index, query, variations): every position with variations and set-up FENs; a sort that puts
#: games out of gamenumber order; en passant and castling changes; a query nothing matches.
#: Every game of the two game collections with -m slow (CI's slow stage): 20 s of writing.
CASES = [("studies", "true", True), ("studies", 'sort min "pieces" #[Aa] check', True),
         pytest.param("lichess", "true", False, marks=pytest.mark.slow),
         ("lichess", "move enpassant or move o-o-o", False),
         pytest.param("gnuchess", "true", False, marks=pytest.mark.slow), ("gnuchess", "Ka1 Kh8", False)]


@pytest.mark.parametrize("name, query, variations", CASES)
def test_streamed_records_equal_the_former_writer(indexes, name, query, variations) -> None:
    db = indexes[name]
    matches = run(db, query, variations=variations).matches
    con = connect(db)
    try:
        for shape in ("ndjson", "json", "csv"):
            expected = reference_text(con, matches, shape)
            for size in (97, 65536):
                out = io.StringIO()
                write_records(con, matches, shape, out, size)
                assert out.getvalue() == expected, (shape, size)
    finally:
        con.close()


def _spy_sparse_rows(monkeypatch) -> list:
    """What each batch's :func:`stream._sparse_rows` answered (None: read by range)."""
    answers: list = []
    original = stream._sparse_rows

    def spy(*args):
        answers.append(original(*args))
        return answers[-1]

    monkeypatch.setattr(stream, "_sparse_rows", spy)
    return answers


@pytest.mark.parametrize("descending, size", [(False, stream.BATCH_ROWS), (True, 7)])
def test_games_far_apart_are_read_by_row_id_and_give_the_same_records(indexes, monkeypatch, descending, size) -> None:
    # A page of a result with games from all over the index (the server's first page, say):
    # the batch is read by row id, not by scanning every game between its first and last. The
    # rows come in the index's order and each is given back its game's rank: a result in an
    # order of its own (the last game first, as a sort may put it) keeps it, each game its own
    # tags; with a few positions a batch, batch boundaries fall between the games.
    db = indexes["gnuchess"]
    everything = run(db, "true").matches
    matches = {g: everything[g][-2:] for g in sorted(everything, reverse=descending) if g % 30 == 1}
    assert len(matches) >= 8
    answers = _spy_sparse_rows(monkeypatch)
    con = connect(db)
    try:
        for shape in ("ndjson", "json", "csv"):
            out = io.StringIO()
            write_records(con, matches, shape, out, size)
            assert out.getvalue() == reference_text(con, matches, shape), shape
        assert match_table(con, matches).equals(reference_table(con, matches))
    finally:
        con.close()
    assert answers and all(ids is not None for ids in answers)
    assert sum(len(ids) for ids in answers) == 4 * sum(len(ids) for ids in matches.values())


def test_consecutive_games_are_read_by_range(indexes, monkeypatch) -> None:
    db = indexes["gnuchess"]
    matches = run(db, "true").matches
    answers = _spy_sparse_rows(monkeypatch)
    con = connect(db)
    try:
        out = io.StringIO()
        write_records(con, matches, "ndjson", out, 5000)
    finally:
        con.close()
    assert answers and all(ids is None for ids in answers)


def test_match_table_equals_the_former_table_types_included(indexes) -> None:
    db = indexes["studies"]
    matches = run(db, "true", variations=True).matches
    con = connect(db)
    try:
        expected = reference_table(con, matches)
        assert expected.num_rows > 20000
        got = match_table(con, matches)
        assert got.schema.equals(expected.schema)
        assert got.equals(expected)
        assert sum(t.num_rows for t in record_batches(con, matches, 1000)) == expected.num_rows
    finally:
        con.close()


def test_placements_of_empty_and_full_boards() -> None:
    empty = [pa.array([0], pa.int64())] * 12
    assert placements(empty).to_pylist() == ["8/8/8/8/8/8/8/8"]
    every = -1  # all 64 bits: every square a white king
    boards = [pa.array([every], pa.int64())] + [pa.array([0], pa.int64())] * 11
    assert placements(boards).to_pylist() == ["/".join(["KKKKKKKK"] * 8)]
    h8 = [pa.array([0], pa.int64())] * 11 + [pa.array([-(1 << 63)], pa.int64())]  # a black pawn on h8
    assert placements(h8).to_pylist() == ["7p/8/8/8/8/8/8/8"]


def test_cli_writes_the_same_bytes_as_the_former_writer(indexes, tmp_path) -> None:
    db = indexes["gnuchess"]
    matches = run(db, "check").matches
    con = connect(db)
    try:
        expected = {shape: reference_text(con, matches, shape) for shape in ("ndjson", "json", "csv")}
    finally:
        con.close()
    for shape, text in expected.items():
        target = tmp_path / f"out.{shape}"
        result = CliRunner().invoke(app, ["query", str(db), "check", "-o", str(target)])
        assert result.exit_code == 0, result.output
        assert target.read_bytes() == text.encode("utf-8")
