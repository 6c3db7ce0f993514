"""What the serve tests share: the samples' index, built once per test process, and the CLI's
own output for a query, the reference every server answer is held to."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: A query that runs for many seconds on the samples (every pair of positions of every game):
#: what the timeout and cancel tests stop.
SLOW = "echo (s t) {s & t}"

@pytest.fixture(scope="session")
def sample_db(tmp_path_factory) -> Path:
    from cqlindex.ingest.pipeline import build

    db = tmp_path_factory.mktemp("serve") / "sample.duckdb"
    build([str(p) for p in sorted((REPO / "samples").glob("*.pgn"))], db, workers=2)
    return db

def cli(*args: str) -> subprocess.CompletedProcess:
    """``cqlindex ARGS`` in a fresh interpreter, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "cqlindex", *args], capture_output=True, cwd=REPO, timeout=300)
