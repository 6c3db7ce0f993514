"""One record per matching position, with what a reader needs to find it again.

The record carries both identities (gamenumber, positionid, as the reference CQL engine numbers
them), where the position is in the game (ply, move number, the SAN of the move that led
there), its FEN (the schema's ``fen`` macro, so SQL users get the same string), and the game's
players, result, event, site, date and ECO.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa

from cqlindex.errors import DatabaseError

FIELDS = ("gamenumber", "positionid", "ply", "movenumber", "wtm", "san", "fen", "white", "black", "result", "event",
          "site", "date", "eco", "move_from", "move_to")
_SQUARE = "CASE WHEN p.{0} IS NULL THEN NULL ELSE chr(97 + p.{0} % 8) || chr(49 + p.{0} // 8) END AS {0}"


def match_records(con: duckdb.DuckDBPyConnection, matches: dict[int, list[int]]) -> list[dict]:
    """Records of the matching positions: games in the order of ``matches`` (gamenumber, or the
    query's sort values), positions in positionid order."""
    pairs = pa.table({"gamenumber": pa.array([g for g, ids in matches.items() for _ in ids], pa.int32()),
                      "positionid": pa.array([i for ids in matches.values() for i in ids], pa.int32()),
                      "rank": pa.array([r for r, ids in enumerate(matches.values()) for _ in ids], pa.int32())})
    con.register("_matches", pairs)
    try:
        cursor = con.execute(
            "SELECT p.gamenumber, p.positionid, p.ply, p.movenumber, p.wtm, p.san, fen(p) AS fen, g.white, g.black, "
            f"g.result, g.event, g.site, g.date, g.eco, {_SQUARE.format('move_from')}, {_SQUARE.format('move_to')} "
            "FROM _matches m "
            "JOIN positions p ON p.gamenumber = m.gamenumber AND p.positionid = m.positionid "
            "JOIN games g ON g.gamenumber = p.gamenumber ORDER BY m.rank, p.positionid")
        rows = cursor.fetchall()
    except duckdb.CatalogException:
        raise DatabaseError("this index predates the fen macro; rebuild it with cqlindex build") from None
    finally:
        con.unregister("_matches")
    return [dict(zip(FIELDS, row)) for row in rows]


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


def game_rows(records: list[dict]) -> list[dict]:
    """Per matching game: players, result, year, the first matching move and how many positions matched."""
    games: dict[int, dict] = {}
    for record in records:
        game = games.get(record["gamenumber"])
        if game is None:
            games[record["gamenumber"]] = game = {
                "gamenumber": record["gamenumber"], "white": record["white"], "black": record["black"],
                "result": record["result"], "date": record["date"], "year": _year(record["date"]),
                "first_match": move_label(record) or "start", "positions": 0}
        game["positions"] += 1
    return list(games.values())


def _year(date: str | None) -> str | None:
    """The year of a PGN date ('1972.07.??' -> '1972'); None when it is unknown ('????')."""
    year = (date or "")[:4]
    return year if year.isdigit() else None
