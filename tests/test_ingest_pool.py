"""A parse worker lost in the middle of a build: its pieces are read again, once, and the summary says so."""

from __future__ import annotations

import multiprocessing
import os
import signal
from pathlib import Path

import duckdb
import pytest

from cqlindex.errors import InputError
from cqlindex.ingest import worker
from cqlindex.ingest.pipeline import build

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "gnuchess-300.pgn"

# The stand-in worker below is handed to forked workers by name; they see these as set here.
_real_parse_chunk = worker.parse_chunk
_MARKER: Path | None = None

pytestmark = pytest.mark.skipif(multiprocessing.get_start_method() != "fork",
                                reason="the stand-in worker reaches the workers by fork")


def _killed_once(*args, **kwargs):
    """The worker's job, but the first call of the build kills its own process (as the
    out-of-memory killer would)."""
    try:
        _MARKER.touch(exist_ok=False)
    except FileExistsError:
        return _real_parse_chunk(*args, **kwargs)
    os.kill(os.getpid(), signal.SIGKILL)


def _killed_always(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)


def _positions(db: Path) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute("SELECT gamenumber, positionid, zobrist FROM positions ORDER BY ALL").fetchall()


def test_a_lost_worker_costs_nothing_but_a_warning(tmp_path: Path, monkeypatch) -> None:
    global _MARKER
    _MARKER = tmp_path / "killed"
    reference = build([str(SAMPLE)], tmp_path / "reference.duckdb", workers=2, chunk_bytes=16_384)
    assert reference.warnings == ()
    monkeypatch.setattr(worker, "parse_chunk", _killed_once)
    summary = build([str(SAMPLE)], tmp_path / "lost.duckdb", workers=2, chunk_bytes=16_384)
    assert _MARKER.exists()  # a worker was killed
    assert [w for w in summary.warnings if "a parse worker ended abruptly" in w], summary.warnings
    assert (summary.games, summary.positions) == (reference.games, reference.positions)
    assert _positions(tmp_path / "lost.duckdb") == _positions(tmp_path / "reference.duckdb")


def test_workers_lost_twice_end_the_build_with_a_message(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(worker, "parse_chunk", _killed_always)
    with pytest.raises(InputError, match="parse workers ended abruptly twice"):
        build([str(SAMPLE)], tmp_path / "lost.duckdb", workers=2, chunk_bytes=16_384)
    assert not (tmp_path / "lost.duckdb").exists()
