"""``add``: an index of A with B added is, table by table, the index one build of A and B makes;
and a kill -9 in the middle of an add leaves the previous index exactly as it was, and usable."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cqlindex.exec.run import run
from cqlindex.ingest.append import add
from cqlindex.ingest.pipeline import build
from cqlindex.store.database import connect
from tests.conftest import shared_path

#: Every shared data file is added once onto an index of another.
PAIRS = [("data/games/lichess-474.pgn", "data/studies/cql6-sample.pgn"),
         ("data/games/otb-twic-01-232games.pgn", "data/annotated/dortmund.pgn")]
TABLES = ("games", "positions", "errors", "square_masks", "square_transforms", "game_rows")
#: What differs between any two builds: when and how long, not what.
BUILD_TIMES = ("build_seconds", "built_at", "workers")


def _rows(db: Path) -> dict[str, list]:
    con = connect(db)
    try:
        tables = {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in TABLES}
        tables["build_info"] = con.execute("SELECT key, value FROM build_info WHERE key NOT IN "
                                           f"({', '.join('?' * len(BUILD_TIMES))}) ORDER BY key",
                                           list(BUILD_TIMES)).fetchall()
        tables["columns"] = con.execute("SELECT table_name, column_name, data_type FROM information_schema.columns "
                                        "ORDER BY ALL").fetchall()
        return tables
    finally:
        con.close()


@pytest.mark.parametrize("first, second", PAIRS, ids=lambda p: Path(p).stem)
def test_add_equals_one_build_of_both(first: str, second: str, tmp_path: Path) -> None:
    a, b = str(shared_path(first)), str(shared_path(second))
    build([a], tmp_path / "added.duckdb", workers=2)
    summary = add(tmp_path / "added.duckdb", [b], workers=2)
    build([a, b], tmp_path / "both.duckdb", workers=2)
    added, both = _rows(tmp_path / "added.duckdb"), _rows(tmp_path / "both.duckdb")
    assert summary.games == sum(1 for row in both["games"] if row[-5] == b)  # source_file
    for table in both:
        assert added[table] == both[table], table
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_killed_add_leaves_the_index_as_it_was(tmp_path: Path) -> None:
    db = tmp_path / "games.duckdb"
    build([str(shared_path("data/games/lichess-474.pgn"))], db, workers=1)
    before, matches = _digest(db), run(db, "mate").matches
    more = str(shared_path("data/annotated/dortmund.pgn"))
    child = subprocess.Popen([sys.executable, "-m", "cqlindex", "add", str(db), more, "--workers", "1", "-q"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob(".games.duckdb.adding-*/new.duckdb*")) and time.monotonic() < deadline:
        assert child.poll() is None, "the add ended before it could be killed"
        time.sleep(0.05)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert _digest(db) == before
    assert run(db, "mate").matches == matches
    add(db, [more], workers=1)  # the next add clears what the killed one left
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    con = connect(db)
    try:
        games = con.execute("SELECT count(*), max(gamenumber) FROM games").fetchone()
    finally:
        con.close()
    assert games[0] == games[1] > 474


def test_add_command_reports_the_added_games(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cqlindex.cli import app

    samples = Path(__file__).resolve().parents[1] / "samples"
    db = tmp_path / "s.duckdb"
    build([str(samples / "gnuchess-300.pgn")], db, workers=1)
    result = CliRunner().invoke(app, ["add", str(db), str(samples / "classics.pgn")])
    assert result.exit_code == 0, result.output
    assert "added 7 games" in result.output
    missing = CliRunner().invoke(app, ["add", str(tmp_path / "none.duckdb"), str(samples / "classics.pgn")])
    assert missing.exit_code == 3 and "no such database" in missing.output
