"""A parse worker lost in the middle of a build: its pieces are read again, once, and the summary says so."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from cqlindex.errors import InputError
from cqlindex.ingest import pool, worker
from cqlindex.ingest.pipeline import build

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "gnuchess-300.pgn"

# The stand-in worker below is handed to forked workers by name; they see these as set here.
_real_parse_chunk = worker.parse_chunk
_MARKER: Path | None = None

pytestmark = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                                reason="the stand-in worker reaches the workers by fork")


@pytest.fixture(autouse=True)
def _forked_workers(monkeypatch) -> None:
    monkeypatch.setattr(pool, "START_METHOD", "fork")


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


def test_workers_are_not_forked_from_the_build(monkeypatch) -> None:
    """The build's process runs DuckDB's threads: a fork of it inherits their locks (CI saw the
    workers crash so). The stand-in fixture above is undone here."""
    monkeypatch.setattr(pool, "START_METHOD", None)
    workers = pool._pool(1)
    try:
        assert workers._mp_context.get_start_method() != "fork"
    finally:
        workers.shutdown()


def test_a_script_without_a_main_guard_builds_once(tmp_path: Path) -> None:
    """Workers started clean re-import the main script unless it is hidden from them; a script
    whose top level builds would then build again in every worker."""
    script = tmp_path / "script.py"
    script.write_text("import cqlindex.api as api\n"
                      f"api.build({str(SAMPLE)!r}, {str(tmp_path / 'x.duckdb')!r}, workers=2)\n"
                      "print('built')\n")
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["built"]


class _BreaksOnThirdSubmit:
    """A pool whose third submission finds it broken, as when a worker dies while the build is
    still handing out pieces (the pieces submitted before are read as usual)."""

    submits = 0

    def __init__(self, real) -> None:
        self.real = real

    def submit(self, *args, **kwargs):
        type(self).submits += 1
        if type(self).submits == 3:
            raise pool.BrokenProcessPool("a child process terminated abruptly")
        return self.real.submit(*args, **kwargs)

    def shutdown(self, *args, **kwargs):
        return self.real.shutdown(*args, **kwargs)


def test_a_pool_found_broken_while_handing_out_pieces_costs_nothing_but_a_warning(tmp_path: Path,
                                                                                   monkeypatch) -> None:
    reference = build([str(SAMPLE)], tmp_path / "reference.duckdb", workers=2, chunk_bytes=16_384)
    real_pool = pool._pool
    _BreaksOnThirdSubmit.submits = 0
    monkeypatch.setattr(pool, "_pool", lambda workers: _BreaksOnThirdSubmit(real_pool(workers)))
    summary = build([str(SAMPLE)], tmp_path / "lost.duckdb", workers=2, chunk_bytes=16_384)
    assert _BreaksOnThirdSubmit.submits > 3
    assert [w for w in summary.warnings if "a parse worker ended abruptly" in w], summary.warnings
    assert _positions(tmp_path / "lost.duckdb") == _positions(tmp_path / "reference.duckdb")
