"""One record per matching position, with what a reader needs to find it again.

The record carries both identities (gamenumber, positionid, as the reference CQL engine numbers
them), where the position is in the game (ply, the move number its PGN shows, the SAN of the
move that led there, and whether it lies in the main line or a variation, how deep), its FEN
(the schema's ``fen`` macro, so SQL users get the same string), and the game's players, result,
year, event, site, date and ECO.

The move number is the one a score sheet shows (the schema's ``fullmove`` macro): a game set up
from a FEN at move 29 shows ``29. Qg5#``. CQL's ``movenumber`` filter counts from 1 in every
game, which is right for searching and wrong for reading.

The records come out of DuckDB as Arrow tables (:mod:`cqlindex.output.stream`, a batch of games
at a time); the writers of :mod:`cqlindex.output.formats` turn them into CSV or JSON without a
detour through Python rows.
"""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from cqlindex.store.duckdb_light import duckdb

FIELDS = ("gamenumber", "positionid", "ply", "movenumber", "wtm", "mainline", "depth", "san", "fen", "white", "black",
          "result", "year", "event", "site", "date", "eco", "move_from", "move_to")


def match_table(con: duckdb.DuckDBPyConnection, matches: Mapping[int, list[int]]) -> pa.Table:
    """The matching positions as an Arrow table with the columns :data:`FIELDS`: games in the
    order of ``matches`` (gamenumber, or the query's sort values), positions in positionid order.
    (:func:`cqlindex.output.stream.record_batches` yields the same a batch at a time.)"""
    from cqlindex.output.stream import record_batches

    return pa.concat_tables(record_batches(con, matches))


def match_records(con: duckdb.DuckDBPyConnection, matches: Mapping[int, list[int]]) -> list[dict]:
    """:func:`match_table` as one dict per matching position."""
    return match_table(con, matches).to_pylist()


def move_label(record: dict) -> str:
    """The move that led to the record's position as a score sheet writes it (``23. Qxf7#``, ``23... Kh8``).

    Empty at a start position. The position after White's move has Black to move and still
    White's move number, so a White-to-move position was reached by Black's move of the number before.
    """
    if not record["san"]:
        return ""
    if record["wtm"]:
        return f"{record['movenumber'] - 1}... {record['san']}"
    return f"{record['movenumber']}. {record['san']}"


def line_label(record: dict) -> str:
    """Where the position lies: empty in the main line, else ``variation`` (with its depth when nested)."""
    if record.get("mainline", True):
        return ""
    depth = record.get("depth") or 1
    return "variation" if depth <= 1 else f"variation, depth {depth}"


def game_rows(records: list[dict]) -> list[dict]:
    """Per matching game: players, result, year, the first matching move (marked when it lies in a
    variation) and how many positions matched, how many of them in variations."""
    games: dict[int, dict] = {}
    for record in records:
        game = games.get(record["gamenumber"])
        if game is None:
            where = line_label(record)
            games[record["gamenumber"]] = game = {
                "gamenumber": record["gamenumber"], "white": record["white"], "black": record["black"],
                "result": record["result"], "date": record["date"], "year": record["year"],
                "first_match": (move_label(record) or "start") + (f" ({where})" if where else ""),
                "positions": 0, "in_variations": 0}
        game["positions"] += 1
        game["in_variations"] += not record["mainline"]
    return list(games.values())
