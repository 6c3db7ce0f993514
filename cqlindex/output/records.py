"""One record per matching position, with what a reader needs to find it again.

The record carries both identities (gamenumber, positionid, as the reference CQL engine numbers
them), where the position is in the game (ply, the move number its PGN shows, the SAN of the
move that led there, and whether it lies in the main line or a variation, how deep), its FEN
(the schema's ``fen`` macro, so SQL users get the same string), and the game's players, result,
year, event, site, date and ECO.

The move number is the one a score sheet shows (the schema's ``fullmove`` macro): a game set up
from a FEN at move 29 shows ``29. Qg5#``. CQL's ``movenumber`` filter counts from 1 in every
game, which is right for searching and wrong for reading.

The records come out of DuckDB as one Arrow table; the writers of :mod:`cqlindex.output.formats`
turn that table into CSV or JSON without a detour through Python rows.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa

from cqlindex.errors import DatabaseError

FIELDS = ("gamenumber", "positionid", "ply", "movenumber", "wtm", "mainline", "depth", "san", "fen", "white", "black",
          "result", "year", "event", "site", "date", "eco", "move_from", "move_to")
_SQUARE = "CASE WHEN p.{0} IS NULL THEN NULL ELSE chr(97 + p.{0} % 8) || chr(49 + p.{0} // 8) END AS {0}"
_SELECT = ("SELECT p.gamenumber, p.positionid, p.ply, fullmove(p) AS movenumber, p.wtm, p.mainline, p.depth, p.san, "
           "fen(p) AS fen, g.white, g.black, g.result, g.year, g.event, g.site, g.date, g.eco, "
           f"{_SQUARE.format('move_from')}, {_SQUARE.format('move_to')} "
           "FROM _matches m "
           "JOIN positions p ON p.gamenumber = m.gamenumber AND p.positionid = m.positionid "
           "JOIN games g ON g.gamenumber = p.gamenumber ORDER BY m.rank, p.positionid")


def match_table(con: duckdb.DuckDBPyConnection, matches: dict[int, list[int]]) -> pa.Table:
    """The matching positions as an Arrow table with the columns :data:`FIELDS`: games in the
    order of ``matches`` (gamenumber, or the query's sort values), positions in positionid order."""
    pairs = pa.table({"gamenumber": pa.array([g for g, ids in matches.items() for _ in ids], pa.int32()),
                      "positionid": pa.array([i for ids in matches.values() for i in ids], pa.int32()),
                      "rank": pa.array([r for r, ids in enumerate(matches.values()) for _ in ids], pa.int32())})
    con.register("_matches", pairs)
    try:
        return con.sql(_SELECT).to_arrow_table()
    except duckdb.CatalogException:
        raise DatabaseError("this index predates the fen and fullmove macros; rebuild it with cqlindex build") from None
    finally:
        con.unregister("_matches")


def match_records(con: duckdb.DuckDBPyConnection, matches: dict[int, list[int]]) -> list[dict]:
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
