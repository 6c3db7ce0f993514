"""Turn replayed games into Arrow tables whose columns are named as in schema/tables.sql.

Rows are accumulated column by column in plain lists (cheap appends in the parse workers) and
become one Arrow table per batch; DuckDB then inserts them ``BY NAME`` and casts to the
declared types, so the DDL stays the only place that states a column's type.
"""

from __future__ import annotations

import re

import pyarrow as pa

from cqlindex.board.squares import to_signed
from cqlindex.ingest.replay import ReplayedGame
from cqlindex.ingest.source import RawGame

_BITBOARD_COLUMNS = ("wk", "wq", "wr", "wb", "wn", "wp", "bk", "bq", "br", "bb", "bn", "bp")
_POSITION_COLUMNS = (
    "gamenumber", "positionid", "parent", "child_index", "children", "last_descendant", "mainline",
    "depth", "ply", "movenumber", "wtm", *_BITBOARD_COLUMNS, "castling_rights", "ep_square",
    "halfmove_clock", "move_from", "move_to", "move_piece", "captured", "promotion", "castle",
    "en_passant", "null_move", "san", "is_check", "is_mate", "is_stalemate", "legal_moves",
    "comment", "comment_before", "nags", "zobrist",
)
_GAME_COLUMNS = (
    "gamenumber", "event", "site", "date", "round", "white", "black", "result", "year",
    "white_elo", "black_elo", "eco", "tags", "start_fen", "chess960", "positions",
    "mainline_positions", "source_file", "byte_offset", "line", "errors",
)
_ERROR_COLUMNS = ("source_file", "gamenumber", "line", "message")
_YEAR = re.compile(r"^\s*(\d{3,4})")
_INT = re.compile(r"^\s*(\d{1,5})\s*$")
_INT16_MAX = 32767


def _year(date: str | None) -> int | None:
    match = _YEAR.match(date or "")
    return int(match.group(1)) if match else None


def _small_int(text: str | None) -> int | None:
    match = _INT.match(text or "")
    value = int(match.group(1)) if match else None
    return value if value is not None and 0 < value <= _INT16_MAX else None


class RowBatch:
    """Columns of games, positions and errors for a run of consecutive games."""

    def __init__(self) -> None:
        self.games: dict[str, list] = {name: [] for name in _GAME_COLUMNS}
        self.positions: dict[str, list] = {name: [] for name in _POSITION_COLUMNS}
        self.errors: dict[str, list] = {name: [] for name in _ERROR_COLUMNS}

    def add(self, gamenumber: int, raw: RawGame, game: ReplayedGame) -> None:
        """Append one game; ``raw`` says where it came from, ``game`` what it holds."""
        headers = game.headers
        nodes = game.nodes
        black_starts = not nodes[0].white_to_move
        mainline_count = sum(1 for d in game.depth if d == 0)
        g = self.games
        for key, tag in (("event", "Event"), ("site", "Site"), ("date", "Date"), ("round", "Round"),
                         ("white", "White"), ("black", "Black"), ("result", "Result"), ("eco", "ECO")):
            g[key].append(headers.get(tag))
        g["gamenumber"].append(gamenumber)
        g["year"].append(_year(headers.get("Date")))
        g["white_elo"].append(_small_int(headers.get("WhiteElo")))
        g["black_elo"].append(_small_int(headers.get("BlackElo")))
        g["tags"].append(list(headers.items()))
        g["start_fen"].append(game.start_fen)
        g["chess960"].append(game.chess960)
        g["positions"].append(len(nodes))
        g["mainline_positions"].append(mainline_count)
        g["source_file"].append(raw.file)
        g["byte_offset"].append(raw.offset)
        g["line"].append(raw.line)
        g["errors"].append(len(game.errors))
        for line, message in game.errors:
            self.errors["source_file"].append(raw.file)
            self.errors["gamenumber"].append(gamenumber)
            self.errors["line"].append(raw.line + line - 1)
            self.errors["message"].append(message)

        p = self.positions
        count = len(nodes)
        p["gamenumber"].extend([gamenumber] * count)
        p["positionid"].extend(range(count))
        p["child_index"].extend(game.child_index)
        p["last_descendant"].extend(game.last_descendant)
        p["depth"].extend(game.depth)
        p["mainline"].extend(d == 0 for d in game.depth)
        ids = game.positionid
        bitboard_columns = [p[name] for name in _BITBOARD_COLUMNS]
        parent, children, ply, movenumber, wtm = p["parent"], p["children"], p["ply"], p["movenumber"], p["wtm"]
        for node in nodes:
            parent.append(ids[node.parent] if node.parent >= 0 else None)
            children.append(len(node.children))
            ply.append(node.ply)
            movenumber.append((node.ply + black_starts) // 2 + 1)
            wtm.append(node.white_to_move)
            for column, bb in zip(bitboard_columns, node.bitboards):
                column.append(bb - 0x10000000000000000 if bb >> 63 else bb)
        for name in ("ep_square", "halfmove_clock", "move_from", "move_to", "move_piece", "captured",
                     "promotion", "castle", "en_passant", "null_move", "san", "comment", "comment_before",
                     "nags"):
            p[name].extend(getattr(node, name) for node in nodes)
        p["castling_rights"].extend(to_signed(node.castling_rights) for node in nodes)
        p["is_check"].extend(node.check for node in nodes)
        p["is_mate"].extend(node.check and not node.legal_moves for node in nodes)
        p["is_stalemate"].extend(not node.check and not node.legal_moves for node in nodes)
        p["legal_moves"].extend(node.legal_moves for node in nodes)
        p["zobrist"].extend(to_signed(node.zobrist) for node in nodes)

    def to_arrow(self) -> tuple[pa.Table, pa.Table, pa.Table]:
        """(games, positions, errors) as Arrow tables."""
        games = dict(self.games)
        tags = pa.array(games.pop("tags"), type=pa.map_(pa.string(), pa.string()))
        games_table = pa.table({**games, "tags": tags})
        positions = dict(self.positions)
        nags = pa.array(positions.pop("nags"), type=pa.list_(pa.int32()))
        positions_table = pa.table({**positions, "nags": nags})
        return games_table, positions_table, pa.table(self.errors, schema=_ERROR_SCHEMA)


_ERROR_SCHEMA = pa.schema([("source_file", pa.string()), ("gamenumber", pa.int32()), ("line", pa.int32()),
                           ("message", pa.string())])
