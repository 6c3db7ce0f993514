"""A build killed with SIGKILL takes its parse workers (and the fork server they come from) with it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "gnuchess-300.pgn"

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")


def _children(pid: int) -> set[int]:
    """Live (not zombie) processes whose parent is ``pid``."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.add(int(entry.name))
    return found


def _descendants(pid: int) -> set[int]:
    found, todo = set(), [pid]
    while todo:
        for child in _children(todo.pop()) - found:
            found.add(child)
            todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_killing_the_build_ends_its_workers(tmp_path: Path) -> None:
    source = tmp_path / "big.pgn"
    source.write_bytes(SAMPLE.read_bytes() * 20)
    proc = subprocess.Popen([sys.executable, "-m", "cqlindex", "build", str(source), "-o", str(tmp_path / "x.duckdb"),
                             "--quiet", "--workers", "2"], cwd=tmp_path, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        while len(workers) < 3:  # the fork server (on Linux) and two workers, at least
            assert proc.poll() is None, proc.stderr.read().decode(errors="replace")
            assert time.monotonic() < deadline, f"no two workers within 60 s: {workers}"
            workers = _descendants(proc.pid)
            time.sleep(0.05)
        time.sleep(0.5)  # let them get to work
        workers |= _descendants(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)  # the build alone, not its process group
        proc.wait(timeout=30)
        deadline = time.monotonic() + 5
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [w for w in workers if _alive(w)], "workers outlived the killed build by 5 s"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # whatever of this test's build is left
        except ProcessLookupError:
            pass
        proc.wait(timeout=30)
        proc.stderr.close()
