"""The reference evaluator on every game: :func:`cqlindex.exec.run.run` with ``engine="python"``.

Kept as a name of its own because the evaluator's tests (and users comparing engines) ask for
the reference by it; there is one ``run`` and this only chooses its engine.
"""

from __future__ import annotations

from pathlib import Path

from cqlindex.exec.result import QueryResult
from cqlindex.exec.run import run as run_query


def run(db: str | Path, text: str, *, variations: bool | None = None, source: str = "<query>",
        gamenumbers: tuple[int, int] | None = None,
        matchcount: tuple[int, int | None] | None = None) -> QueryResult:
    """Parse ``text`` and evaluate it on every game of the index at ``db``."""
    return run_query(db, text, variations=variations, source=source, gamenumbers=gamenumbers,
                     matchcount=matchcount, engine="python")
