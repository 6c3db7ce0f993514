"""What the serve tests share: the samples' index, built once per test process, and the CLI's
own output for a query, the reference every server answer is held to."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: A query that runs for many seconds on the samples (every pair of pairs of positions of every
#: game, on either post-filter): what the timeout and cancel tests stop.
SLOW = "echo (s t) echo (u v) s & v"

@pytest.fixture(scope="session")
def sample_db(tmp_path_factory) -> Path:
    from cqlindex.ingest.pipeline import build

    db = tmp_path_factory.mktemp("serve") / "sample.duckdb"
    build([str(p) for p in sorted((REPO / "samples").glob("*.pgn"))], db, workers=2)
    return db

def cli(*args: str) -> subprocess.CompletedProcess:
    """``cqlindex ARGS`` in a fresh interpreter, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "cqlindex", *args], capture_output=True, cwd=REPO, timeout=300)


@contextmanager
def running_server(db: Path, *args: str) -> Iterator[tuple[str, str]]:
    """``cqlindex serve DB --port 0 ARGS`` as a user starts it: its URL and the line that said it;
    stopped with Ctrl-C at the end (a failure if it does not stop)."""
    process = subprocess.Popen([sys.executable, "-m", "cqlindex", "serve", str(db), "--port", "0", *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
    try:
        line = process.stdout.readline()
        found = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
        assert found, (line, process.stderr.read() if process.poll() is not None else "")
        yield found.group(1), line
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            pytest.fail("the server did not stop on Ctrl-C")
