"""The columnar engine run at every position of an index, not only at a plan's candidates.

The family tables' check (tests/filters/differential.py) compares this with the tree-walker's
answer it has already computed for the row, so a kernel that is wrong where the planner would
have hidden it still fails, and the tree-walker, the costly side, runs once per row and cell.
"""

from __future__ import annotations

import duckdb
import numpy as np

from cqlindex.columnar.core import Columnar, blocker, needed_facts, reads_games
from cqlindex.columnar.frame import load
from cqlindex.exec.run import with_collection_size
from cqlindex.query.prepare import prepare


def plain_body(text: str) -> bool:
    """Whether the query's matches are its body's (no header range or game filter acting on whole games)."""
    header = prepare(text, "<query>").query.header
    return header.matchcount is None and header.gamenumber is None and header.result is None


def columnar_everywhere(db, text: str, variations: bool) -> dict[int, list[int]] | None:
    """The positions where the body matches, by the columnar engine at every position of every
    game (None when it does not take the query; NotColumnar when a value stops it at run time)."""
    prepared = prepare(text, "<query>", variations=variations)
    if blocker(prepared.query, prepared.expansions) is not None:
        return None
    con = duckdb.connect(str(db), read_only=True)
    try:
        prepared = with_collection_size(con, prepared)
        games = [g for (g,) in con.execute("SELECT gamenumber FROM games ORDER BY gamenumber").fetchall()]
        frame = load(con, games, variations, needed_facts(prepared.query, prepared.expansions),
                     games=reads_games(prepared.query, prepared.expansions))
        holds = Columnar(prepared.query, variations, prepared.expansions).matches(frame, np.arange(frame.size))
    finally:
        con.close()  # after the evaluation: a frame reads the moves when a kernel first asks
    out: dict[int, list[int]] = {}
    for game, position in zip(frame.gamenumber[holds].tolist(), frame.positionid[holds].tolist()):
        out.setdefault(game, []).append(position)
    return out
