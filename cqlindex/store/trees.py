"""Game trees rebuilt from the index, for the CQL evaluator.

The evaluator must never re-read the PGN: the build already paid for replaying every move, and
the index is the one input a query can count on. So trees come back from the ``positions``
rows, a batch of candidate games at a time, with one query per batch and table: memory stays
bounded by the batch and round trips by the number of batches. Rows become objects column by
column (Arrow reinterprets the signed bitboards as unsigned in one vectorised cast), which
keeps the per-position Python work to one constructor call.

A python-chess board is rebuilt only when a filter asks for one (:meth:`Position.board`):
most CQL filters read the bitboards directly, and a board costs far more than a row.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING

from cqlindex.errors import DatabaseError

if TYPE_CHECKING:  # imported where used: the parser imports this module (through the evaluator's context)
    import chess
    import pyarrow as pa

    from cqlindex.store.duckdb_light import duckdb

_BITBOARD_COLUMNS = ("wk", "wq", "wr", "wb", "wn", "wp", "bk", "bq", "br", "bb", "bn", "bp")
# Position's constructor arguments, in order, as the columns they come from. children, the
# bitboard tuple and the game-level board arguments are spliced in while building rows.
_HEAD_COLUMNS = ("positionid", "parent")
_MIDDLE_COLUMNS = ("ply", "movenumber", "depth", "mainline", "wtm")
_TAIL_COLUMNS = ("castling_rights", "ep_square", "halfmove_clock", "move_from", "move_to", "move_piece",
                 "captured", "promotion", "castle", "en_passant", "null_move", "san", "is_check", "is_mate",
                 "is_stalemate", "legal_moves", "comment", "nags", "last_descendant")
_UNSIGNED_COLUMNS = frozenset((*_BITBOARD_COLUMNS, "castling_rights"))
_POSITION_COLUMNS = ("gamenumber", *_HEAD_COLUMNS, *_MIDDLE_COLUMNS, *_BITBOARD_COLUMNS, *_TAIL_COLUMNS)
_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1  # games.gamenumber is an INTEGER
_GAME_COLUMNS = ("gamenumber", "tags", "result", "white", "black", "event", "site", "date", "year", "white_elo",
                 "black_elo", "eco", "chess960", "start_fen")


@dataclass(slots=True)
class Position:
    """One node of a game tree: a ``positions`` row, bitboards and castling rights unsigned."""

    id: int                       # positionid
    parent: int | None            # parent positionid, None at the root
    children: list[int]           # child positionids in child_index order (0 = main continuation)
    ply: int
    movenumber: int               # CQL's: the start position is move 1 whatever the FEN says
    depth: int
    mainline: bool
    wtm: bool
    bitboards: tuple[int, ...]    # 12 unsigned python-chess ints, K Q R B N P k q r b n p
    castling_rights: int          # python-chess's mask, unsigned
    ep_square: int | None         # python-chess's raw ep_square (set after every double step)
    halfmove_clock: int
    move_from: int | None         # the move that led here; None at the root
    move_to: int | None
    move_piece: int | None
    captured: int | None
    promotion: int | None
    castle: int | None
    en_passant: bool
    null_move: bool
    san: str | None
    is_check: bool
    is_mate: bool
    is_stalemate: bool
    legal_moves: int
    comment: str | None
    nags: list[int] | None
    last_descendant: int          # descendants are ids id+1 .. last_descendant of the loaded tree
    _chess960: bool = field(default=False, repr=False, compare=False)
    _fullmove_offset: int = field(default=0, repr=False, compare=False)  # FEN fullmove - 1
    _board: chess.Board | None = field(default=None, repr=False, compare=False)
    #: Squares of each piece-letter set asked for here (see filters/sets/python.occupancy).
    _occupancies: dict | None = field(default=None, repr=False, compare=False)

    def board(self) -> chess.Board:
        """The python-chess board of this position (built once, then shared: copy it to change it).

        It has no move stack. Its FEN and polyglot key are those of the position the build saw;
        ``fullmove_number`` is ``movenumber``, shifted by the set-up FEN's fullmove number when
        that is not 1.
        """
        board = self._board
        if board is None:
            import chess

            wk, wq, wr, wb, wn, wp, bk, bq, br, bb, bn, bp = self.bitboards
            board = chess.Board(None, chess960=self._chess960)
            board.kings = wk | bk
            board.queens = wq | bq
            board.rooks = wr | br
            board.bishops = wb | bb
            board.knights = wn | bn
            board.pawns = wp | bp
            white = wk | wq | wr | wb | wn | wp
            black = bk | bq | br | bb | bn | bp
            board.occupied_co[chess.WHITE] = white
            board.occupied_co[chess.BLACK] = black
            board.occupied = white | black
            board.turn = self.wtm
            board.castling_rights = self.castling_rights
            board.ep_square = self.ep_square
            board.halfmove_clock = self.halfmove_clock
            board.fullmove_number = self.movenumber + self._fullmove_offset
            self._board = board
        return board


@dataclass(slots=True)
class GameTree:
    """One game: its ``games`` row and its positions, ``positions[i].id == i``."""

    gamenumber: int
    headers: dict[str, str]       # every tag of the game
    result: str | None
    white: str | None
    black: str | None
    event: str | None
    site: str | None
    date: str | None
    year: int | None
    white_elo: int | None
    black_elo: int | None
    eco: str | None
    chess960: bool
    positions: list[Position]     # loaded main-line only: ids 0..L, children restricted to the main line
    #: Comments of the positions not loaded (a main-line load asked for the game's whole text, as
    #: ``hhdb cooked`` reads it): the rest of the game's text, without its tree.
    other_comments: tuple[str, ...] = ()

    def mainline(self) -> list[Position]:
        """The main line, root first (follows child 0 from the root)."""
        positions = self.positions
        line = [positions[0]]
        children = positions[0].children
        while children:
            node = positions[children[0]]
            line.append(node)
            children = node.children
        return line


def load_games(con: duckdb.DuckDBPyConnection, gamenumbers: Iterable[int] | None = None, *,
               variations: bool = True, batch_size: int = 2000, texts: bool = False) -> Iterator[GameTree]:
    """GameTrees in gamenumber order; gamenumbers=None means all games.

    Loads ``batch_size`` games at a time (one query for their games rows, one for their
    positions), so memory is bounded by the batch. Unknown gamenumbers are skipped, repeated
    ones yield their game once. With ``variations=False`` only main-line positions are loaded:
    ids 0..L, children lists hold only the main continuation, and ``last_descendant`` is L;
    ``texts`` then adds the comments of the other positions (``GameTree.other_comments``).
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, not {batch_size}")
    if gamenumbers is None:
        # Ranges of gamenumbers, not a list of them: gamenumbers are unique integers, so a range
        # of batch_size numbers holds at most batch_size games, and nothing grows with the index.
        low, high = con.execute("SELECT min(gamenumber), max(gamenumber) FROM games").fetchall()[0]
        if low is None:
            return
        for first in range(low, high + 1, batch_size):
            yield from _load_batch(con, "gamenumber BETWEEN ? AND ?", [first, min(first + batch_size - 1, high)],
                                   variations, texts)
        return
    # The range lets DuckDB skip row groups (rows are stored in gamenumber order); the list
    # picks the games inside it.
    numbers = iter(sorted({g for g in map(int, gamenumbers) if _INT32_MIN <= g <= _INT32_MAX}))
    while batch := list(islice(numbers, batch_size)):
        yield from _load_batch(con, "gamenumber BETWEEN ? AND ? AND gamenumber IN (SELECT unnest(?::INTEGER[]))",
                               [batch[0], batch[-1], batch], variations, texts)


def load_positions(con: duckdb.DuckDBPyConnection, candidates: dict[int, list[int]], *,
                   batch_size: int = 2000) -> Iterator[GameTree]:
    """Only the given positions of the given games, as GameTrees whose other positions are None.

    For filters that look at the current position alone (no parent, child, ``:``, ``find``,
    ``line``, move played...): the planner's candidates are often a small part of their games,
    and reading just those rows costs a fraction of rebuilding whole trees. ``candidates`` maps
    gamenumber -> positionids; ``positions[id]`` is set for those ids only, with no children.
    """
    import pyarrow as pa

    from cqlindex.store.duckdb_light import relations

    con = relations(con)  # Arrow in (the candidates) and out (the rows)
    numbers = sorted(candidates)
    for first in range(0, len(numbers), batch_size):
        batch = numbers[first:first + batch_size]
        pairs = pa.table({"gamenumber": pa.array([g for g in batch for _ in candidates[g]], pa.int32()),
                          "positionid": pa.array([i for g in batch for i in candidates[g]], pa.int32())})
        con.register("_wanted", pairs)
        try:
            games = con.execute(f"SELECT {', '.join(_GAME_COLUMNS)} FROM games WHERE gamenumber IN "
                                "(SELECT DISTINCT gamenumber FROM _wanted) ORDER BY gamenumber").fetchall()
            table = con.sql(f"SELECT {', '.join('p.' + c for c in _POSITION_COLUMNS)} FROM positions p "
                            "JOIN _wanted w ON p.gamenumber = w.gamenumber AND p.positionid = w.positionid "
                            "ORDER BY p.gamenumber, p.positionid").to_arrow_table()
        finally:
            con.unregister("_wanted")
        columns = {name: _to_list(name, table.column(name)) for name in _POSITION_COLUMNS}
        yield from _sparse_trees(games, columns)


def _sparse_trees(games: list[tuple], columns: dict[str, list]) -> Iterator[GameTree]:
    n = len(columns["positionid"])
    gamenumber_column = columns["gamenumber"]
    offsets = {g[0]: _fullmove_offset(g[-1]) for g in games}
    chess960 = {g[0]: bool(g[12]) for g in games}
    rows = zip(
        *(columns[name] for name in _HEAD_COLUMNS),
        [[] for _ in range(n)],
        *(columns[name] for name in _MIDDLE_COLUMNS),
        zip(*(columns[name] for name in _BITBOARD_COLUMNS)),
        *(columns[name] for name in _TAIL_COLUMNS),
        (chess960[g] for g in gamenumber_column), (offsets[g] for g in gamenumber_column),
    )
    by_game: dict[int, list[Position]] = {}
    for gamenumber, position in zip(gamenumber_column, (Position(*row) for row in rows)):
        by_game.setdefault(gamenumber, []).append(position)
    for gamenumber, tags, result, white, black, event, site, date, year, white_elo, black_elo, eco, is960, _ \
            in games:
        found = by_game.get(gamenumber, [])
        sparse: list = [None] * (found[-1].id + 1 if found else 0)
        for position in found:
            sparse[position.id] = position
        yield GameTree(gamenumber, dict(tags) if tags else {}, result, white, black, event, site, date, year,
                       white_elo, black_elo, eco, bool(is960), sparse)


def _load_batch(con: duckdb.DuckDBPyConnection, where: str, params: list, variations: bool,
                texts: bool = False) -> Iterator[GameTree]:
    games = con.execute(f"SELECT {', '.join(_GAME_COLUMNS)} FROM games WHERE {where} ORDER BY gamenumber",
                        params).fetchall()
    if not games:
        return
    others: dict[int, tuple[str, ...]] = {}
    if texts and not variations:
        others = {g: tuple(c) for g, c in con.execute(
            f"SELECT gamenumber, list(comment ORDER BY positionid) FROM positions WHERE {where} AND NOT mainline "
            "AND comment IS NOT NULL GROUP BY gamenumber", params).fetchall()}
    if not variations:
        where += " AND mainline"
    from cqlindex.store.duckdb_light import relations

    table = relations(con).sql(f"SELECT {', '.join(_POSITION_COLUMNS)} FROM positions WHERE {where} "
                    "ORDER BY gamenumber, positionid", params=params).to_arrow_table()
    columns = {name: _to_list(name, table.column(name)) for name in _POSITION_COLUMNS}
    gamenumber_column = columns["gamenumber"]
    ids = columns["positionid"]
    n = len(ids)
    starts = [i for i, p in enumerate(ids) if p == 0]
    spans = list(zip(starts, starts[1:] + [n]))
    if not variations:
        # The stored last_descendant counts variation ids that were not loaded; on the main
        # line alone the descendants of p are p+1 .. L.
        last: list[int] = []
        for start, end in spans:
            last.extend([end - start - 1] * (end - start))
        columns["last_descendant"] = last
    by_number: dict[int, tuple[int, int]] = {}
    for start, end in spans:
        gamenumber = gamenumber_column[start]
        if ids[end - 1] != end - 1 - start or gamenumber_column[end - 1] != gamenumber:
            raise DatabaseError(f"game {gamenumber}: positionids are not 0..{end - 1 - start}")
        by_number[gamenumber] = (start, end)
    # Game-level board facts, repeated per position so that they ride in the constructor call.
    chess960 = [False] * n
    offsets = [0] * n
    for gamenumber, *_, is960, start_fen in games:
        start, end = by_number.get(gamenumber, (0, 0))
        if is960:
            chess960[start:end] = [True] * (end - start)
        offset = _fullmove_offset(start_fen)
        if offset:
            offsets[start:end] = [offset] * (end - start)
    rows = zip(
        *(columns[name] for name in _HEAD_COLUMNS),
        [[] for _ in range(n)],
        *(columns[name] for name in _MIDDLE_COLUMNS),
        zip(*(columns[name] for name in _BITBOARD_COLUMNS)),
        *(columns[name] for name in _TAIL_COLUMNS),
        chess960, offsets,
    )
    positions = [Position(*row) for row in rows]
    for gamenumber, tags, result, white, black, event, site, date, year, white_elo, black_elo, eco, is960, _ \
            in games:
        span = by_number.get(gamenumber)
        if span is None:
            raise DatabaseError(f"game {gamenumber}: no positions")
        tree = positions[span[0]:span[1]]
        for node in islice(tree, 1, None):
            tree[node.parent].children.append(node.id)  # ascending id = child_index order (pre-order)
        yield GameTree(gamenumber, dict(tags) if tags else {}, result, white, black, event, site, date, year,
                       white_elo, black_elo, eco, bool(is960), tree, others.get(gamenumber, ()))


def _to_list(name: str, column: pa.ChunkedArray) -> list:
    import pyarrow as pa

    if name in _UNSIGNED_COLUMNS:
        column = column.cast(pa.uint64(), safe=False)  # same 64 bits, read as python-chess reads them
    return column.to_pylist()


def _fullmove_offset(start_fen: str | None) -> int:
    """How far the set-up FEN's fullmove number is from CQL's movenumber 1."""
    if not start_fen:
        return 0
    fields = start_fen.split()
    try:
        return max(int(fields[5]), 1) - 1 if len(fields) >= 6 else 0
    except ValueError:
        return 0
