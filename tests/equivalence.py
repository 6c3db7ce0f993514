"""Pairs of queries a seed or the manual says are equivalent, run on one engine against the evaluator."""

from __future__ import annotations

from pathlib import Path

from cqlindex.exec.run import run


def assert_same_matches(db: Path, engine: str, query: str, same_as: str) -> None:
    """``query`` on ``engine`` matches the very positions ``same_as`` matches on the Python engine (variations on)."""
    got = run(db, query, variations=True, engine=engine).matches
    assert got == run(db, same_as, variations=True, engine="python").matches
