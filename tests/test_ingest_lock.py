"""One build per target: a second build is refused (exit 75) or waits, and neither loses its work."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from cqlindex.errors import BusyError
from cqlindex.ingest.lock import lock_path, lock_target

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "gnuchess-300.pgn"


def test_a_held_target_is_refused_then_free_again(tmp_path: Path) -> None:
    target = tmp_path / "x.duckdb"
    first = lock_target(target)
    assert lock_path(target).exists()
    with pytest.raises(BusyError, match=r"another build \(process \d+\) is writing this index.*--wait"):
        lock_target(target)
    first.release()
    first.release()  # idempotent
    assert not lock_path(target).exists()
    lock_target(target).release()
    assert list(tmp_path.iterdir()) == []


def test_a_waiting_build_gets_the_lock_when_it_is_released(tmp_path: Path) -> None:
    target = tmp_path / "x.duckdb"
    first = lock_target(target)
    heard: list[str] = []
    got = threading.Event()

    def second() -> None:
        lock_target(target, wait=True, on_wait=heard.append).release()
        got.set()

    thread = threading.Thread(target=second)
    thread.start()
    time.sleep(0.3)
    assert not got.is_set()
    first.release()
    thread.join(10)
    assert got.is_set()
    assert heard and "waiting for another build" in heard[0]


def _cli_build(source: Path, output: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "cqlindex", "build", str(source), "-o", str(output), "--quiet",
                             *extra], cwd=output.parent, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for_temporary(proc: subprocess.Popen, output: Path) -> None:
    deadline = time.monotonic() + 60
    while not list(output.parent.glob(f".{output.name}.building-*")):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no temporary database appeared within 60 s"
        time.sleep(0.02)


#: Copies of the sample the first build reads (4.4 s with one worker here; 4 copies took 1.2 s).
COPIES = 40


@pytest.mark.parametrize("wait", [False, True], ids=["refused", "waits"])
def test_two_builds_of_one_target(tmp_path: Path, wait: bool) -> None:
    big = tmp_path / "big.pgn"
    # Long enough a build for a second one to start meanwhile, with room to spare: with 4 copies
    # the first build once ended before the second had started (CI, after builds got faster).
    big.write_bytes(SAMPLE.read_bytes() * COPIES)
    output = tmp_path / "x.duckdb"
    first = _cli_build(big, output, "--workers", "1")
    try:
        _wait_for_temporary(first, output)
        second = subprocess.run([sys.executable, "-m", "cqlindex", "build", str(SAMPLE), "-o", str(output),
                                 "--quiet", "--workers", "1", *(["--wait"] if wait else [])],
                                cwd=tmp_path, capture_output=True, text=True, timeout=600)
        _, first_err = first.communicate(timeout=600)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert first.returncode == 0, first_err
    assert "Traceback" not in first_err + second.stderr
    if wait:
        assert second.returncode == 0, second.stderr
        assert "waiting for another build" in second.stderr
        games = 300  # the second build ran after the first and replaced its index
    else:
        assert second.returncode == 75, second.stderr
        assert f"{output}: another build" in second.stderr
        games = 300 * COPIES
    import duckdb

    con = duckdb.connect(str(output), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM games").fetchone()[0] == games
    finally:
        con.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.pgn", "x.duckdb"]
