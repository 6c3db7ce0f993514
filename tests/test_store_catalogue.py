"""The catalogue lookups every query makes at start (:func:`cqlindex.store.database.table_names`,
:func:`~cqlindex.store.database.has_column`), read from ``duckdb_tables()``, ``duckdb_views()``
and ``duckdb_columns()`` instead of ``information_schema`` (issue 16: start-up). They must see
what the views saw: tables and views (an exported index is views) of the main schema, and
nothing of another attached database."""

from __future__ import annotations

import duckdb

from cqlindex.store.database import has_column, table_names


def test_tables_and_views_of_the_main_schema_only(tmp_path) -> None:
    con = duckdb.connect()
    con.execute("CREATE TABLE games (gamenumber INTEGER, playable BOOLEAN)")
    con.execute("CREATE VIEW positions AS SELECT 1 AS gamenumber, 2 AS white_attacks")
    con.execute("CREATE SCHEMA other")
    con.execute("CREATE TABLE other.errors (gamenumber INTEGER)")
    con.execute(f"ATTACH '{tmp_path / 'else.duckdb'}' AS elsewhere")
    con.execute("CREATE TABLE elsewhere.main.errors (gamenumber INTEGER, bad_move VARCHAR)")
    assert table_names(con) == {"games", "positions"}
    assert has_column(con, "games", "playable") and has_column(con, "positions", "white_attacks")
    assert not has_column(con, "games", "white_attacks")
    assert not has_column(con, "errors", "bad_move")  # only in the other database
    assert not has_column(con, "nosuch", "gamenumber")
