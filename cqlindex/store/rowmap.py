"""``game_rows``: the map from the row ids of ``positions`` back to (gamenumber, positionid).

Why it exists: a query that SQL decides needs only to know which positions match. Selecting
their gamenumber and positionid makes DuckDB decompress those two columns in nearly every
vector it scans, 0.1-0.2 s per query on 34 M positions against 0.2-1.0 s for the scan itself
(issue 16); selecting the row id costs nothing beyond the scan. The build writes positions in
(gamenumber, positionid) order, one game after another, so each game's rows are consecutive
and a row id maps back through the first row of its game (an ASOF join on ``first_row``).

Trusting that order would answer wrong the day it broke, so :func:`write` checks it on every
row, once the rows are committed (a transaction's own rows carry provisional row ids), and
writes the map only where it holds; :func:`holds` checks on each query that the map still
covers the table as it is. The map describes this file's storage: an export leaves it out.
"""

from __future__ import annotations

import weakref

from cqlindex.store.duckdb_light import duckdb

TABLE = "game_rows"


def write(con: duckdb.DuckDBPyConnection) -> bool:
    """Rewrite the map for the committed rows of ``positions``; whether their order allowed it.

    An index built before the map has no table for it and is left as it is (read the slower way).
    """
    if not _tables_present(con, TABLE):
        return False
    con.execute(f"DELETE FROM {TABLE}")
    # A game's rows are consecutive and in positionid order exactly when rowid - positionid is
    # the same on all of them and its positionids are 0 .. count - 1 (row ids are unique).
    con.execute("CREATE TEMP TABLE _spans AS SELECT gamenumber, min(rowid - positionid) AS first_row, "
                "count(*) AS positions, min(rowid - positionid) = max(rowid - positionid) AND min(positionid) = 0 "
                "AND max(positionid) = count(*) - 1 AS consecutive FROM positions GROUP BY gamenumber")
    try:
        scattered = con.execute("SELECT count(*) FILTER (WHERE NOT consecutive) FROM _spans").fetchall()[0][0]
        if scattered:
            return False
        con.execute(f"INSERT INTO {TABLE} SELECT gamenumber, first_row, positions FROM _spans ORDER BY first_row")
        return True
    finally:
        con.execute("DROP TABLE _spans")


def holds(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the map covers ``positions`` as it is: both are tables of this file (not views
    over an export) and the map counts every row. A map left behind by hand edits that change
    the number of rows is thus ignored. Kept per connection: the planner, the executor and each
    range of a streamed run ask, and what a reading connection sees does not change."""
    if con not in _HOLDS:
        _HOLDS[con] = _covers(con)
    return _HOLDS[con]


#: Whether the map holds, per connection.
_HOLDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _covers(con: duckdb.DuckDBPyConnection) -> bool:
    if not _tables_present(con, "positions", TABLE):
        return False
    mapped, rows = con.execute(f"SELECT (SELECT sum(positions) FROM {TABLE}), (SELECT count(*) FROM positions)"
                               ).fetchall()[0]
    return mapped is not None and mapped == rows


def mapped(rowids_sql: str, games: tuple[int, int] | None = None) -> str:
    """SQL giving (gamenumber, positionid) for the row ids ``r`` that ``rowids_sql`` selects.

    ``games``: the row ids are all of games in that range of gamenumbers (the caller knows it
    from the SQL), so only their part of the map is joined. DuckDB sorts the map side of an ASOF
    join on every run, ~10-20 ms for the 437,000 games of the benchmark's index even when no row
    matches: a query with ``-gamenumber``, and each range of a streamed run, pay for its range only.
    """
    table = TABLE if games is None else (f"(SELECT * FROM {TABLE} "
                                         f"WHERE gamenumber BETWEEN {int(games[0])} AND {int(games[1])})")
    return (f"SELECT _map.gamenumber, CAST(_hit.r - _map.first_row AS INTEGER) AS positionid "
            f"FROM ({rowids_sql}) AS _hit ASOF JOIN {table} AS _map ON _hit.r >= _map.first_row")


def _tables_present(con: duckdb.DuckDBPyConnection, *names: str) -> bool:
    found = con.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
                        "AND schema_name = 'main' AND list_contains(?, table_name)", [list(names)]).fetchall()[0][0]
    return found == len(names)
