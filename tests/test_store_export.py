"""The index as Parquet: the planner's SQL over the exported files finds what it finds in the index."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from cqlindex.cli import app
from cqlindex.errors import OutputError
from cqlindex.exec.run import plan_for, run
from cqlindex.store.database import connect
from cqlindex.store.export import export_parquet

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "gnuchess-300.pgn"
# Queries whose plan is exact: the SQL alone gives the matches, so running it elsewhere is the whole query.
EXACT = ["check", "flip {Kg1 kg8}", "Q == 0 and R > 1", "move from K to g1", "child: check"]


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> tuple[Path, Path]:
    from cqlindex.ingest.pipeline import build

    root = tmp_path_factory.mktemp("export")
    db = root / "games.duckdb"
    build([str(SAMPLE)], db, workers=1)
    con = connect(db)
    try:
        counts = export_parquet(con, root / "parquet")
    finally:
        con.close()
    assert counts["games"] == 300 and counts["positions"] > 20000
    return db, root / "parquet"


@pytest.mark.parametrize("text", EXACT)
def test_the_plan_runs_on_the_parquet_files(exported, text: str) -> None:
    db, directory = exported
    plan = plan_for(db, text, portable=True)  # a copy of the tables: no row ids of the index's storage
    assert plan.exact, text
    con = duckdb.connect()
    for table in ("games", "positions"):
        path = str(directory / table / "*.parquet").replace("'", "''")
        con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet('{path}')")
    rows = con.execute(plan.sql).fetchall()
    expected = run(db, text).matches
    assert rows and rows == [(g, p) for g, ids in expected.items() for p in ids]


def test_schema_and_load_rebuild_the_index_from_any_directory(exported, tmp_path: Path, monkeypatch) -> None:
    db, directory = exported
    monkeypatch.chdir(tmp_path)
    copy = duckdb.connect(str(tmp_path / "copy.duckdb"))
    for script in ("schema.sql", "load.sql"):
        copy.execute((directory / script).read_text())
    copy.close()
    assert run(tmp_path / "copy.duckdb", "check").matches == run(db, "check").matches
    con = connect(tmp_path / "copy.duckdb")  # the macros came back, in working order
    assert con.execute("SELECT fen(p) FROM positions p WHERE positionid = 0 LIMIT 1").fetchone()[0].startswith("rnbqkbnr/")
    original = connect(db)
    try:
        for table in ("games", "positions", "errors", "build_info", "square_masks", "square_transforms"):
            assert con.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall() == \
                original.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall(), table
    finally:
        original.close()
        con.close()


def test_files_hold_game_number_ranges(tmp_path: Path, exported) -> None:
    """Small files: every table with game numbers is cut at the same ranges, sorted, the unsigned widened."""
    import pyarrow.parquet as pq

    db, _ = exported
    con = connect(db)
    try:
        export_parquet(con, tmp_path / "out", rows_per_file=5000, base_path="s3://bucket/chess")
    finally:
        con.close()
    files = sorted((tmp_path / "out" / "positions").glob("*.parquet"))
    assert len(files) == 5 == len(list((tmp_path / "out" / "games").glob("*.parquet")))
    previous = 0
    for file in files:
        numbers = pq.read_table(file, columns=["gamenumber"]).column(0).to_pylist()
        games = pq.read_table(tmp_path / "out" / "games" / file.name, columns=["gamenumber"]).column(0).to_pylist()
        assert numbers == sorted(numbers) and numbers[0] > previous and set(numbers) == set(games)
        previous = numbers[-1]
        stats = pq.ParquetFile(file).metadata.row_group(0).column(0).statistics
        assert stats.has_min_max and stats.min == numbers[0]
    assert str(pq.read_schema(files[0]).field("move_from").type) == "int16"
    spark = (tmp_path / "out" / "spark.sql").read_text()
    trino = (tmp_path / "out" / "trino.sql").read_text()
    for table in ("games", "positions", "errors", "build_info", "square_masks", "square_transforms"):
        assert f"VIEW {table} USING parquet OPTIONS (path 's3://bucket/chess/{table}')" in spark
        assert f"external_location = 's3://bucket/chess/{table}'" in trino
    assert '"move_from" SMALLINT' in trino and '"tags" map(varchar, varchar)' in trino
    load = (tmp_path / "out" / "load.sql").read_text()
    assert f"read_parquet('{(tmp_path / 'out').resolve()}/positions/*.parquet')" in load
    # The row-id map describes the index file's storage, not the export's: it stays behind.
    schema = (tmp_path / "out" / "schema.sql").read_text()
    assert "game_rows" not in spark + trino + load + schema and not (tmp_path / "out" / "game_rows").exists()


def test_export_refuses_a_directory_with_files(exported, tmp_path: Path) -> None:
    db, _ = exported
    (tmp_path / "old.txt").write_text("keep me")
    con = connect(db)
    with pytest.raises(OutputError, match="not an empty directory"):
        export_parquet(con, tmp_path)
    assert (tmp_path / "old.txt").read_text() == "keep me"


def test_export_command(exported, tmp_path: Path) -> None:
    db, _ = exported
    result = CliRunner().invoke(app, ["export", str(db), str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "positions 24,369 rows" in result.output
    assert (tmp_path / "out" / "positions" / "part-00000.parquet").stat().st_size > 100_000
    assert str((tmp_path / "out").resolve() / "games") in (tmp_path / "out" / "spark.sql").read_text()


def test_export_command_with_a_base_path(exported, tmp_path: Path) -> None:
    db, _ = exported
    result = CliRunner().invoke(app, ["export", str(db), str(tmp_path / "out"), "--base-path", "s3://bucket/chess"])
    assert result.exit_code == 0, result.output
    for script in ("spark.sql", "trino.sql"):
        text = (tmp_path / "out" / script).read_text()
        assert "s3://bucket/chess/games" in text and str(tmp_path) not in text, script


def test_explain_in_another_dialect(exported) -> None:
    db, _ = exported
    result = CliRunner().invoke(app, ["query", str(db), "flip {Ka1 kh8}", "--explain", "--dialect", "spark"])
    assert result.exit_code == 0, result.output
    assert "(spark SQL)" in result.output and "FROM positions" in result.output
    bad = CliRunner().invoke(app, ["query", str(db), "check", "--explain", "--dialect", "nosuch"])
    assert bad.exit_code != 0 and "unknown SQL dialect" in bad.output and "Traceback" not in bad.output
