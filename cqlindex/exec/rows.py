"""The plan's (gamenumber, positionid) rows grouped per game, without a global sort in SQL.

The plan's SELECT ends in ``ORDER BY gamenumber, positionid`` so that, run anywhere (``--explain``,
Spark, Trino), its rows come in order. On DuckDB that sort costs more than the scan when many
rows match (issue 16), and a filtered scan of ``positions`` already yields its rows in storage
order, which the build writes in (gamenumber, positionid) order. So the rows are fetched
unsorted and checked: they are sorted only when they are not in order already (a join to
``games`` may shuffle them, or an index appended to out of order).

A few rows (most queries) are grouped in plain Python, which spares the start-up of numpy;
past :data:`FEW` rows the rest come as numpy arrays, checked, sorted and cut per game there.
"""

from __future__ import annotations

from sqlglot import exp

#: Rows grouped in plain Python; more than this and numpy takes over.
FEW = 8192


def grouped(con, select: exp.Select) -> tuple[dict[int, list[int]], int]:
    """Run ``select`` (gamenumber, positionid) without its ORDER BY; its rows as
    {gamenumber: [positionid, ...]} in (gamenumber, positionid) order, and their number."""
    unsorted = select.copy()
    unsorted.set("order", None)
    cursor = con.execute(unsorted.sql(dialect="duckdb"))
    head = cursor.fetchmany(FEW)
    if len(head) < FEW:
        if any(a >= b for a, b in zip(head, head[1:])):
            head.sort()
        found: dict[int, list[int]] = {}
        for game, position in head:
            found.setdefault(game, []).append(position)
        return found, len(head)
    return _grouped_arrays(head, cursor.fetchnumpy())


def _grouped_arrays(head: list[tuple[int, int]], rest: dict) -> tuple[dict[int, list[int]], int]:
    import numpy as np

    games = np.concatenate([np.fromiter((g for g, _ in head), np.int64, len(head)),
                            np.asarray(rest["gamenumber"], dtype=np.int64)])
    ids = np.concatenate([np.fromiter((i for _, i in head), np.int64, len(head)),
                          np.asarray(rest["positionid"], dtype=np.int64)])
    keys = (games << 32) | ids  # both are non-negative INTEGERs
    if (keys[1:] <= keys[:-1]).any():
        order = np.argsort(keys, kind="stable")
        games, ids = games[order], ids[order]
    starts = np.flatnonzero(games[1:] != games[:-1]) + 1
    bounds = [0, *starts.tolist(), len(games)]
    positions = ids.tolist()
    firsts = games[bounds[:-1]].tolist()
    return {game: positions[a:b] for game, a, b in zip(firsts, bounds[:-1], bounds[1:])}, len(games)
