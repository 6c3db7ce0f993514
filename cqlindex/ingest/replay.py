"""Replay one game with python-chess and collect a row for every node of its tree.

The visitor rides on ``chess.pgn.read_game``'s own board: ``visit_move`` sees the position
before a move and ``visit_board`` the one after, so no ``GameNode`` tree is built and no move is
replayed twice. Nodes are collected in the order the PGN text gives them and numbered
afterwards in the reference engine's order (FACTS.md section 2: pre-order, the main
continuation before the variations), which is also what makes "descendant of" a range test on
``positionid`` .. ``last_descendant``.

Reading stops at the first move that cannot be played; everything before it is kept, as the
reference engine keeps a game up to its last legal position.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import chess
import chess.pgn

from cqlindex.board.facts import ZobristKeys, attack_maps, count_legal_moves, piece_bitboards
from cqlindex.board.san import san_without_suffix

_ZOBRIST = ZobristKeys()
_STANDARD_VARIANTS = {"", "standard", "chess", "normal", "classical", "from position", "chess 960",
                      "chess960", "fischerandom", "fischer random", "fischerrandom", "960", "freestyle"}


# A node is one flat list, in this order, so that a game's rows become columns with a single
# zip(*rows) and no per-attribute Python loop.
PARENT, PLY, WTM, BITBOARDS, CASTLING, EP, HALFMOVE, MOVE, SAN, CHECK, LEGAL, COMMENT, COMMENT_BEFORE, \
    NAGS, ZOBRIST, PIECE_KEY, ATTACKS = range(17)
#: MOVE is None at the root, else (from, to, piece, captured, promotion, castle, en_passant, null,
#: capture_square, rook_from, rook_to).
NO_MOVE = (None, None, None, None, None, None, False, False, None, None, None)
_NULL_MOVE = (None, None, None, None, None, None, False, True, None, None, None)
_CAPTURED, _CASTLE, _SQUARES = 3, 5, 8  # move fields read and filled by visit_board


@dataclass(slots=True)
class ReplayedGame:
    """What one game turns into: its tags, its nodes in pre-order, and what went wrong."""

    headers: dict[str, str]
    start_fen: str | None
    chess960: bool
    rows: list[list]  # pre-order; rows[i][PARENT] is the parent's positionid (-1 at the root)
    depth: list[int]
    last_descendant: list[int]
    child_index: list[int]
    children: list[int]
    errors: list[tuple[int, str]]  # (line within the game text, message)


class _LineCountingText(io.StringIO):
    """read_game reads line by line; counting the lines tells where an error happened."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.lineno = 0

    def readline(self, size: int = -1) -> str:  # type: ignore[override]
        self.lineno += 1
        return super().readline(size)


class _Headers(chess.pgn.Headers):
    """Reads every game on a standard board: variants CQL does not know are reported, not guessed."""

    unsupported: str | None = None

    def variant(self) -> type[chess.Board]:
        name = self.get("Variant", "").strip().lower()
        if name not in _STANDARD_VARIANTS and "960" not in name:
            self.unsupported = self.get("Variant")
        return chess.Board


class _Replay(chess.pgn.BaseVisitor[None]):
    def __init__(self, handle: _LineCountingText) -> None:
        self.handle = handle
        self.headers = _Headers({})  # only the tags the game has: no '?' for missing ones
        self.rows: list[list] = []
        self.children: list[list[int]] = []
        self.current = -1
        self.stack: list[int] = []
        self.pending_move: tuple | None = None
        self.pending_to = 0  # the move's own to-square (the rook's when python-chess castles king-takes-rook)
        self.pending_san: str | None = None
        self.pending_comment: str | None = None
        self.variation_started = False
        self.stopped = False
        self.errors: list[tuple[int, str]] = []
        self.start_fen: str | None = None
        self.chess960 = False

    def begin_headers(self) -> chess.pgn.Headers:
        return self.headers

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.headers[tagname] = tagvalue

    def parse_san(self, board: chess.Board, san: str) -> chess.Move:
        if self.stopped:
            raise ValueError("skipped")
        return super().parse_san(board, san)

    def handle_error(self, error: Exception) -> None:
        if self.stopped:
            return
        self.errors.append((self.handle.lineno, str(error)))
        # python-chess carries on after a bad move (skipping its variation) but may then play the
        # next moves on the wrong board; stop here so that every indexed position is right.
        self.stopped = True

    def begin_variation(self) -> None:
        if self.stopped or self.current < 0:
            return
        self.stack.append(self.current)
        self.current = self.rows[self.current][PARENT]
        self.variation_started = True

    def end_variation(self) -> None:
        if self.stack and not self.stopped:
            self.current = self.stack.pop()
            self.variation_started = False
            self.pending_comment = None  # a comment in an empty variation belongs to no move

    def visit_comment(self, comment: str) -> None:
        if self.stopped:
            return
        if self.variation_started:
            self.pending_comment = comment if self.pending_comment is None else self.pending_comment + " " + comment
        elif self.current >= 0:
            row = self.rows[self.current]
            row[COMMENT] = comment if row[COMMENT] is None else row[COMMENT] + " " + comment

    def visit_nag(self, nag: int) -> None:
        if self.current >= 0 and not self.stopped:
            row = self.rows[self.current]
            if row[NAGS] is None:
                row[NAGS] = [nag]
            else:
                row[NAGS].append(nag)

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        if self.stopped:
            return
        if not move:
            self.pending_move, self.pending_san = _NULL_MOVE, "--"
            return
        source, to = move.from_square, move.to_square
        piece = board.piece_type_at(source)
        castle = None
        en_passant = False
        if piece == chess.KING and board.is_castling(move):
            castle = 1 if board.is_kingside_castling(move) else 2
            to = chess.square(6 if castle == 1 else 2, chess.square_rank(source))
            captured = None
        elif piece == chess.PAWN and to == board.ep_square and board.is_en_passant(move):
            en_passant, captured = True, chess.PAWN
        else:
            captured = board.piece_type_at(to)
        # The last three fields are filled in by visit_board from the board python-chess made.
        self.pending_move = (source, to, piece, captured, move.promotion, castle, en_passant, False,
                             None, None, None)
        self.pending_to = move.to_square
        self.pending_san = san_without_suffix(board, move, piece, captured, castle)

    def visit_board(self, board: chess.Board) -> None:
        if self.stopped:
            return
        rows = self.rows
        if rows and self.pending_move is None:
            return  # python-chess also calls this after a token it could not use
        if not rows:
            fen = board.fen()
            self.start_fen = None if fen == chess.STARTING_FEN else fen
            self.chess960 = board.chess960
        bitboards = piece_bitboards(board)
        parent = self.current
        turn = board.turn
        rights = board.castling_rights
        ep = board.ep_square
        check = board.is_check()
        legal = count_legal_moves(board)
        move = self.pending_move
        if parent >= 0:
            parent_row = rows[parent]
            if move[_CAPTURED] is not None or move[_CASTLE]:
                move = _with_squares(move, parent_row[BITBOARDS], bitboards, turn, self.pending_to)
            piece_key = _ZOBRIST.pieces(bitboards, parent_row[BITBOARDS], parent_row[PIECE_KEY])
            san = self.pending_san
            if check and san != "--":
                san += "+" if legal else "#"
        else:
            piece_key = _ZOBRIST.pieces(bitboards)
            san = None
        comment_before = None
        if self.variation_started:
            comment_before, self.pending_comment = self.pending_comment, None
            self.variation_started = False
        index = len(rows)
        rows.append([
            parent, rows[parent][PLY] + 1 if parent >= 0 else 0, turn, bitboards, rights, ep,
            board.halfmove_clock, move, san, check, legal, None, comment_before, None,
            _ZOBRIST.full(piece_key, board), piece_key, attack_maps(board),
        ])
        self.children.append([])
        if parent >= 0:
            self.children[parent].append(index)
        self.pending_move = None
        self.current = index

    def result(self) -> None:
        return None


def _with_squares(move: tuple, before: tuple[int, ...], after: tuple[int, ...], turn: bool, move_to: int) -> tuple:
    """Fill capture_square, rook_from and rook_to from what python-chess's push changed.

    No rule of ours: the captured piece is the opponent's piece that vanished (so en passant
    needs no formula), and the castling rook is the mover's rook that left / arrived. In
    Chess960 the rook can stay where it is (rook f1, king e1 to g1); python-chess then encodes
    the move as king-takes-rook, so the move's own to-square is the rook's.
    """
    capture_square = rook_from = rook_to = None
    if move[_CAPTURED] is not None:
        them = 0 if turn else 6  # turn is now the side that was captured from
        gone = 0
        for i in range(them, them + 6):
            gone |= before[i] & ~after[i]
        capture_square = gone.bit_length() - 1 if gone else None
    if move[_CASTLE]:
        rook = 8 if turn else 2  # the mover's rooks
        left, arrived = before[rook] & ~after[rook], after[rook] & ~before[rook]
        if left and arrived:
            rook_from, rook_to = left.bit_length() - 1, arrived.bit_length() - 1
        else:
            rook_from = rook_to = move_to
    return move[:_SQUARES] + (capture_square, rook_from, rook_to)


def replay(text: str) -> ReplayedGame:
    """Replay one game's PGN text (as cut by :mod:`cqlindex.ingest.source`)."""
    handle = _LineCountingText(text)
    visitor = _Replay(handle)
    try:
        chess.pgn.read_game(handle, Visitor=lambda: visitor)
    except Exception as error:  # python-chess can raise on pathological input; keep what was read
        visitor.errors.append((handle.lineno, f"{type(error).__name__}: {error}"))
    if visitor.headers.unsupported:
        visitor.errors.insert(0, (1, f"unsupported variant {visitor.headers.unsupported!r}: read as standard chess"))
    if not visitor.rows:
        board = chess.Board()
        visitor.stopped = False
        visitor.pending_move = None
        fen = visitor.headers.get("FEN")
        if fen:
            try:
                board = chess.Board(fen, chess960=visitor.headers.is_chess960())
            except ValueError:
                pass
        visitor.visit_board(board)
    return _number(visitor)


def _number(visitor: _Replay) -> ReplayedGame:
    """Pre-order ids, variation depth, last descendant and child ordinal for every node."""
    rows = visitor.rows
    children = visitor.children
    n = len(rows)
    if all(len(c) <= 1 for c in children):  # no variations: text order is already pre-order
        for row in rows:
            row[MOVE] = row[MOVE] or NO_MOVE
        return ReplayedGame(dict(visitor.headers), visitor.start_fen, visitor.chess960, rows, [0] * n,
                            [n - 1] * n, [0] * n, [len(c) for c in children], visitor.errors)
    positionid = [0] * n
    depth = [0] * n
    last = [0] * n
    child_index = [0] * n
    order: list[int] = []
    stack = [0]
    while stack:
        i = stack.pop()
        positionid[i] = len(order)
        order.append(i)
        kids = children[i]
        for k in range(len(kids) - 1, -1, -1):
            c = kids[k]
            child_index[c] = k
            depth[c] = depth[i] + (1 if k else 0)
            stack.append(c)
    for i in reversed(order):
        last[i] = max(positionid[i], last[i])
        p = rows[i][PARENT]
        if p >= 0 and last[i] > last[p]:
            last[p] = last[i]
    for row in rows:
        if row[PARENT] >= 0:
            row[PARENT] = positionid[row[PARENT]]
        row[MOVE] = row[MOVE] or NO_MOVE
    return ReplayedGame(
        headers=dict(visitor.headers),
        start_fen=visitor.start_fen,
        chess960=visitor.chess960,
        rows=[rows[i] for i in order],
        depth=[depth[i] for i in order],
        last_descendant=[last[i] for i in order],
        child_index=[child_index[i] for i in order],
        children=[len(children[i]) for i in order],
        errors=visitor.errors,
    )
