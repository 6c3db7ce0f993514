"""Turn replayed games into Arrow tables whose columns are named as in schema/tables.sql.

A replayed game is a list of flat rows (see :mod:`cqlindex.ingest.replay`); a batch keeps those
rows and transposes them with ``zip(*rows)`` once, so no Python loop runs per column and row.
DuckDB then inserts the tables ``BY NAME`` and casts to the declared types, so the DDL stays
the only place that states a column's type.
"""

from __future__ import annotations

import re
from operator import itemgetter

import pyarrow as pa

from cqlindex.ingest.replay import (
    ATTACKS, BITBOARDS, CASTLING, CHECK, COMMENT, COMMENT_BEFORE, EP, HALFMOVE, LEGAL, MOVE, NAGS, PARENT, PLY,
    SAN, WTM, ZOBRIST, ReplayedGame,
)
from cqlindex.ingest.source import RawGame

_BITBOARD_COLUMNS = ("wk", "wq", "wr", "wb", "wn", "wp", "bk", "bq", "br", "bb", "bn", "bp")
_MOVE_COLUMNS = ("move_from", "move_to", "move_piece", "captured", "promotion", "castle", "en_passant", "null_move",
                 "capture_square", "rook_from", "rook_to")
_GAME_TAGS = (("event", "Event"), ("site", "Site"), ("date", "Date"), ("round", "Round"), ("white", "White"),
              ("black", "Black"), ("result", "Result"), ("eco", "ECO"))
_YEAR = re.compile(r"^\s*(\d{3,4})")
_INT = re.compile(r"^\s*(\d{1,5})\s*$")
_INT16_MAX = 32767
_ERROR_SCHEMA = pa.schema([("source_file", pa.string()), ("gamenumber", pa.int32()), ("line", pa.int32()),
                           ("message", pa.string())])


def _year(date: str | None) -> int | None:
    match = _YEAR.match(date or "")
    return int(match.group(1)) if match else None


def _small_int(text: str | None) -> int | None:
    match = _INT.match(text or "")
    value = int(match.group(1)) if match else None
    return value if value is not None and 0 < value <= _INT16_MAX else None


def _signed(values) -> pa.Array:
    """Unsigned 64-bit bitboards/keys as the signed BIGINTs with the same bits."""
    return pa.array(values, type=pa.uint64()).cast(pa.int64(), safe=False)


class RowBatch:
    """Games, positions and errors of a run of consecutive games."""

    def __init__(self) -> None:
        self.games: list[tuple] = []
        self.rows: list[list] = []
        self.tree: list[list[int]] = [[] for _ in range(6)]  # gamenumber, id, child, children, last, depth
        self.first_black: list[int] = []  # per position: 1 if its game starts with black to move
        self.errors: list[tuple] = []

    def add(self, gamenumber: int, raw: RawGame, game: ReplayedGame) -> None:
        """Append one game; ``raw`` says where it came from, ``game`` what it holds."""
        rows = game.rows
        count = len(rows)
        self.add_game(gamenumber, raw, game.headers, game.start_fen, game.chess960, count, game.depth.count(0),
                      len(game.errors))
        for line, message in game.errors:
            self.errors.append((raw.file, gamenumber, raw.line + line - 1, message))
        self.rows.extend(rows)
        tree = self.tree
        tree[0].extend([gamenumber] * count)
        tree[1].extend(range(count))
        tree[2].extend(game.child_index)
        tree[3].extend(game.children)
        tree[4].extend(game.last_descendant)
        tree[5].extend(game.depth)
        self.first_black.extend([0 if rows[0][WTM] else 1] * count)

    def add_game(self, gamenumber: int, raw: RawGame, headers: dict[str, str], start_fen: str | None,
                 chess960: bool, positions: int, mainline_positions: int, errors: int) -> None:
        """Append one games row (the compiled path adds its positions as a table of its own)."""
        self.games.append((
            gamenumber, *(headers.get(tag) for _, tag in _GAME_TAGS), _year(headers.get("Date")),
            _small_int(headers.get("WhiteElo")), _small_int(headers.get("BlackElo")), list(headers.items()),
            start_fen, chess960, positions, mainline_positions, raw.file, raw.offset, raw.line, errors,
        ))

    def to_arrow(self) -> tuple[pa.Table, pa.Table, pa.Table]:
        """(games, positions, errors) as Arrow tables."""
        return self._games_table(), self._positions_table(), self._errors_table()

    def _games_table(self) -> pa.Table:
        columns = list(zip(*self.games)) if self.games else [()] * 21
        names = ("gamenumber", *(name for name, _ in _GAME_TAGS), "year", "white_elo", "black_elo", "tags",
                 "start_fen", "chess960", "positions", "mainline_positions", "source_file", "byte_offset",
                 "line", "errors")
        arrays = {name: list(col) for name, col in zip(names, columns)}
        arrays["tags"] = pa.array(arrays["tags"], type=pa.map_(pa.string(), pa.string()))
        return pa.table(arrays)

    def _positions_table(self) -> pa.Table:
        rows = self.rows
        if not rows:
            return pa.table({"gamenumber": pa.array([], pa.int32())})
        col = [list(map(itemgetter(i), rows)) for i in range(ATTACKS + 1)]
        gamenumber, ids, child_index, children, last, depth = self.tree
        ply = col[PLY]
        arrays: dict[str, list | pa.Array] = {
            "gamenumber": gamenumber, "positionid": ids,
            "parent": [None if p < 0 else p for p in col[PARENT]],
            "child_index": child_index, "children": children, "last_descendant": last,
            "mainline": [d == 0 for d in depth], "depth": depth, "ply": ply,
            "movenumber": [(p + b) // 2 + 1 for p, b in zip(ply, self.first_black)],
            "wtm": col[WTM],
        }
        bitboards = col[BITBOARDS]
        for i, name in enumerate(_BITBOARD_COLUMNS):
            arrays[name] = _signed(list(map(itemgetter(i), bitboards)))
        arrays["castling_rights"] = _signed(col[CASTLING])
        arrays["ep_square"] = col[EP]
        arrays["halfmove_clock"] = col[HALFMOVE]
        moves = col[MOVE]
        for i, name in enumerate(_MOVE_COLUMNS):
            arrays[name] = list(map(itemgetter(i), moves))
        check, legal = col[CHECK], col[LEGAL]
        arrays.update({
            "san": col[SAN], "is_check": check,
            "is_mate": [c and not n for c, n in zip(check, legal)],
            "is_stalemate": [not c and not n for c, n in zip(check, legal)],
            "legal_moves": legal, "comment": col[COMMENT], "comment_before": col[COMMENT_BEFORE],
            "nags": pa.array(col[NAGS], type=pa.list_(pa.int32())),
            "zobrist": _signed(col[ZOBRIST]),
            "white_attacks": _signed(list(map(itemgetter(0), col[ATTACKS]))),
            "black_attacks": _signed(list(map(itemgetter(1), col[ATTACKS]))),
        })
        return pa.table(arrays)

    def _errors_table(self) -> pa.Table:
        columns = list(zip(*self.errors)) if self.errors else [[] for _ in range(4)]
        return pa.table([list(c) for c in columns], schema=_ERROR_SCHEMA)


