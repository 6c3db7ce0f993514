"""The connection a Database keeps open (cqlindex/store/kept.py): cheap queries, never stale ones."""

from __future__ import annotations

import time
from pathlib import Path

import duckdb

import cqlindex
from cqlindex.store import kept
from cqlindex.store.database import connect

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "samples" / "gnuchess-300.pgn"


def _games(db: cqlindex.Database) -> int:
    return db.sql("SELECT count(*) AS n FROM games").column("n").to_pylist()[0]


def test_an_index_rebuilt_in_place_is_read_anew(tmp_path: Path) -> None:
    small, big = tmp_path / "small.pgn", tmp_path / "big.pgn"
    text = SAMPLE.read_text()
    games = text.split("\n\n[Event ")
    small.write_text(games[0] + "\n")
    big.write_text(text)
    index = tmp_path / "i.duckdb"
    first = cqlindex.build(small, index, workers=1)
    assert len(first.query("initial").games) == 1
    second = cqlindex.build(big, index, workers=1)  # renamed over the file the first one keeps open
    assert len(second.query("initial").games) == 300
    assert len(first.query("initial").games) == 300  # the older object reads the new file too
    assert _games(first) == 300


def test_the_sandbox_does_not_outlive_its_call(tmp_path: Path) -> None:
    db = cqlindex.build(SAMPLE, tmp_path / "i.duckdb", workers=1)
    assert db.query("check").games
    assert _games(db) == 300
    assert db.query("check").games  # the kept connection comes back, without the sandbox's locks
    con = connect(db.path)
    try:
        assert con.execute("SELECT current_setting('lock_configuration'), "
                           "current_setting('enable_external_access')").fetchall() == [(False, True)]
    finally:
        con.close()


def test_a_query_finds_the_instance_open_and_the_last_holder_closes_it(tmp_path: Path) -> None:
    index = tmp_path / "i.duckdb"
    cqlindex.build(SAMPLE, index, workers=1)
    db = cqlindex.open(index)
    key = kept._KEPT and next(iter(kept._KEPT))
    assert key == str(index.resolve())
    began = time.perf_counter()
    connect(index).close()
    assert time.perf_counter() - began < 0.5
    del db
    assert str(index.resolve()) not in kept._KEPT
    duckdb.connect(str(index)).close()  # read-write: no read-only instance is left in the process
