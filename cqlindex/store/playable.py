"""The games a query leaves out unless asked: those the build marked ``playable = false``.

A game of a variant CQL does not know (crazyhouse, atomic, ...) is read as standard chess, so
its positions and moves are not what was played; a block of text that is not a game has only
the start position. Both are kept (game numbers are shared with the reference engine, and the
errors table says why), but a query that found them would report wrong matches.
"""

from __future__ import annotations

from cqlindex.store.database import has_column
from cqlindex.store.duckdb_light import duckdb


def unplayable_games(con: duckdb.DuckDBPyConnection) -> frozenset[int]:
    """Game numbers marked unplayable; none in an index built before the mark existed."""
    if not has_column(con, "games", "playable"):
        return frozenset()
    return frozenset(g for (g,) in con.execute("SELECT gamenumber FROM games WHERE NOT playable").fetchall())
