"""The plan's (gamenumber, positionid) rows grouped per game, without a global sort in SQL.

The plan's SELECT ends in ``ORDER BY gamenumber, positionid`` so that, run anywhere (``--explain``,
Spark, Trino), its rows come in order. On DuckDB that sort costs more than the scan when many
rows match (issue 16), and a filtered scan of ``positions`` already yields its rows in storage
order, which the build writes in (gamenumber, positionid) order. So the rows are fetched
unsorted, as numpy arrays (DuckDB's fastest way out, several times cheaper than a Python tuple
per row), and checked: they are sorted only when they are not in order already (a join to
``games`` may shuffle them, or an index appended to out of order).
"""

from __future__ import annotations

import numpy as np
from sqlglot import exp


def grouped(con, select: exp.Select) -> tuple[dict[int, list[int]], int]:
    """Run ``select`` (gamenumber, positionid) without its ORDER BY; its rows as
    {gamenumber: [positionid, ...]} in (gamenumber, positionid) order, and their number."""
    unsorted = select.copy()
    unsorted.set("order", None)
    columns = con.sql(unsorted.sql(dialect="duckdb")).fetchnumpy()
    games, ids = (np.asarray(columns.pop(name)) for name in ("gamenumber", "positionid"))  # INTEGERs
    later = games[1:] > games[:-1]
    if not (later | ((games[1:] == games[:-1]) & (ids[1:] > ids[:-1]))).all():
        order = np.lexsort((ids, games))
        games, ids = games[order], ids[order]
        later = games[1:] > games[:-1]
    starts = np.flatnonzero(later) + 1
    bounds = [0, *starts.tolist(), len(games)]
    firsts = games[bounds[:-1]].tolist() if len(games) else []
    del games, later, starts
    return {game: ids[a:b].tolist() for game, a, b in zip(firsts, bounds[:-1], bounds[1:])}, len(ids)
