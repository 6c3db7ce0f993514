"""Ctrl-C during a query: a one-line message, exit code 130, and nothing left behind.

The command runs as a real process (SIGINT goes to it as from a terminal), interrupted once it
has the index open, that is while it searches; the query (``echo`` over games with variations)
would run for minutes otherwise.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


def opened(pid: int, path: Path) -> bool:
    try:
        return any(os.readlink(f"/proc/{pid}/fd/{fd}") == str(path) for fd in os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="needs /proc to see when the query runs")
@pytest.mark.parametrize("engine", ["sql", "python"])
def test_ctrl_c_during_a_query(build_db, tmp_path: Path, engine: str) -> None:
    index = build_db("data/annotated/chess-informant-sample.pgn", workers=1)
    out = tmp_path / "found.pgn"
    before = set(tmp_path.iterdir()) | set(index.parent.iterdir())
    process = subprocess.Popen([sys.executable, "-m", "cqlindex", "query", str(index), "echo (s t) s & t",
                                "--variations", "--engine", engine, "-o", str(out)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    waited = 0.0
    while not opened(process.pid, index.resolve()) and process.poll() is None and waited < 120:
        time.sleep(0.05)
        waited += 0.05
    time.sleep(0.5)  # into the search
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert stderr.strip() == "cqlindex: interrupted", stderr
    assert "Traceback" not in stdout + stderr
    assert set(tmp_path.iterdir()) | set(index.parent.iterdir()) == before  # no output, no temporary file
