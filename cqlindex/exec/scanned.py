"""The columnar engine over the rows a plan's WHERE selects, without the planner (issue 34: start-up).

A row-local query that SQL only narrows (``ray (Q k)``: SQL finds the positions with a queen and
a king, the columnar engine the ray between them) is confirmed by the columnar engine reading
the rows the plan's WHERE selects (:func:`cqlindex.exec.run.run`). That WHERE, a string, is all
of the plan the confirmation needs, so :mod:`cqlindex.exec.plan_cache` keeps it, and
:func:`cqlindex.exec.cached.run_query` runs it again in a later process through
:func:`confirm_where`, without importing sqlglot or the planner (~0.15 s of a fresh process's
~0.4). Only where a kernel gives games back (a batch it cannot take on) is the query planned
after all, for those games' candidates and the tree-walking evaluator, as the planning run does.
"""

from __future__ import annotations

from cqlindex.exec.game_rows import from_arrays
from cqlindex.exec.result import QueryResult
from cqlindex.exec.timeout import Deadline


def confirm_where(con, prepared, where: str, result: QueryResult, deadline: Deadline,
                  facts: dict | None = None) -> list[int]:
    """The columnar engine over the rows ``where`` selects, batch by batch, each game's matches
    kept in ``result``; the games it gives back (from the batch a kernel could not take on).
    ``facts``: the SQL of the facts the query reads, as a kept plan holds it (None: built here)."""
    from cqlindex.columnar.run import confirm

    read: list[int] = []
    found: list[tuple] = []
    bulk = not result.keys and prepared.query.header.matchcount is None  # each game as it comes
    left, _ = confirm(con, prepared, prepared.variations, None, result.keep, deadline, row_local=True,
                      where=where, rows_read=read, facts=facts,
                      keep_rows=(lambda games, ids: found.append((games, ids))) if bulk else None)
    if found:
        import numpy as np

        result.keep_all(from_arrays(np.concatenate([g for g, _ in found]), np.concatenate([i for _, i in found])))
    result.candidates = sum(read)
    return left
