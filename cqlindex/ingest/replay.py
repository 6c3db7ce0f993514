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
from dataclasses import dataclass, field

import chess
import chess.pgn

from cqlindex.board.facts import ZobristKeys, count_legal_moves, piece_bitboards

_ZOBRIST = ZobristKeys()
_MEMO: dict[tuple, tuple[bool, int]] = {}
_MEMO_LIMIT = 1 << 20
_STANDARD_VARIANTS = {"", "standard", "chess", "normal", "classical", "from position", "chess 960",
                      "chess960", "fischerandom", "fischer random", "fischerrandom", "960", "freestyle"}


@dataclass(slots=True)
class Node:
    """One position of the game tree, in PGN text order until numbered."""

    parent: int
    ply: int
    bitboards: tuple[int, ...]
    piece_key: int
    white_to_move: bool
    castling_rights: int
    ep_square: int | None
    halfmove_clock: int
    check: bool
    legal_moves: int
    zobrist: int
    move_from: int | None = None
    move_to: int | None = None
    move_piece: int | None = None
    captured: int | None = None
    promotion: int | None = None
    castle: int | None = None
    en_passant: bool = False
    null_move: bool = False
    san: str | None = None
    comment: str | None = None
    comment_before: str | None = None
    nags: list[int] | None = None
    children: list[int] = field(default_factory=list)


@dataclass(slots=True)
class ReplayedGame:
    """What one game turns into: its tags, its nodes in pre-order, and what went wrong."""

    headers: dict[str, str]
    start_fen: str | None
    chess960: bool
    nodes: list[Node]
    positionid: list[int]  # positionid of nodes[i] is i; this maps text order -> id
    depth: list[int]
    last_descendant: list[int]
    child_index: list[int]
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
        self.headers = _Headers()
        self.nodes: list[Node] = []
        self.current = -1
        self.stack: list[int] = []
        self.pending_move: dict | None = None
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
        self.current = self.nodes[self.current].parent
        self.variation_started = True

    def end_variation(self) -> None:
        if self.stack and not self.stopped:
            self.current = self.stack.pop()
            self.variation_started = False

    def visit_comment(self, comment: str) -> None:
        if self.stopped:
            return
        if self.variation_started:
            self.pending_comment = comment if self.pending_comment is None else self.pending_comment + " " + comment
        elif self.current >= 0:
            node = self.nodes[self.current]
            node.comment = comment if node.comment is None else node.comment + " " + comment

    def visit_nag(self, nag: int) -> None:
        if self.current >= 0 and not self.stopped:
            node = self.nodes[self.current]
            if node.nags is None:
                node.nags = [nag]
            else:
                node.nags.append(nag)

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        if self.stopped:
            return
        if not move:
            self.pending_move = {"null_move": True, "san": "--"}
            return
        castle = None
        if board.is_castling(move):
            castle = 1 if board.is_kingside_castling(move) else 2
            to = chess.square(6 if castle == 1 else 2, chess.square_rank(move.from_square))
            captured = None
        else:
            to = move.to_square
            en_passant = board.is_en_passant(move)
            captured = chess.PAWN if en_passant else board.piece_type_at(to)
        self.pending_move = {
            "move_from": move.from_square,
            "move_to": to,
            "move_piece": board.piece_type_at(move.from_square),
            "captured": captured,
            "promotion": move.promotion,
            "castle": castle,
            "en_passant": castle is None and board.is_en_passant(move),
            "san": board._algebraic_without_suffix(move),
        }

    def visit_board(self, board: chess.Board) -> None:
        if self.stopped:
            return
        if self.nodes and self.pending_move is None:
            return  # python-chess also calls this after a token it could not use
        if not self.nodes:
            fen = board.fen()
            self.start_fen = None if fen == chess.STARTING_FEN else fen
            self.chess960 = board.chess960
        bitboards = piece_bitboards(board)
        parent = self.current
        if parent >= 0:
            parent_node = self.nodes[parent]
            piece_key = _ZOBRIST.pieces(bitboards, parent_node.bitboards, parent_node.piece_key)
        else:
            piece_key = _ZOBRIST.pieces(bitboards)
        turn = board.turn
        rights = board.castling_rights
        ep = board.ep_square
        memo_key = (bitboards, turn, rights, ep)
        facts = _MEMO.get(memo_key)
        if facts is None:
            facts = (board.is_check(), count_legal_moves(board))
            if len(_MEMO) >= _MEMO_LIMIT:
                _MEMO.clear()
            _MEMO[memo_key] = facts
        node = Node(
            parent=parent,
            ply=self.nodes[parent].ply + 1 if parent >= 0 else 0,
            bitboards=bitboards,
            piece_key=piece_key,
            white_to_move=turn,
            castling_rights=rights,
            ep_square=ep,
            halfmove_clock=board.halfmove_clock,
            check=facts[0],
            legal_moves=facts[1],
            zobrist=_ZOBRIST.full(piece_key, board),
        )
        if self.pending_move is not None:
            for name, value in self.pending_move.items():
                setattr(node, name, value)
            if node.san and not node.null_move:
                node.san += "#" if facts[0] and not facts[1] else "+" if facts[0] else ""
            self.pending_move = None
        if self.variation_started:
            node.comment_before, self.pending_comment = self.pending_comment, None
            self.variation_started = False
        index = len(self.nodes)
        self.nodes.append(node)
        if parent >= 0:
            self.nodes[parent].children.append(index)
        self.current = index

    def result(self) -> None:
        return None


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
    if not visitor.nodes:
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
    nodes = visitor.nodes
    n = len(nodes)
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
        children = nodes[i].children
        for k in range(len(children) - 1, -1, -1):
            c = children[k]
            child_index[c] = k
            depth[c] = depth[i] + (1 if k else 0)
            stack.append(c)
    for i in reversed(order):
        last[i] = max(positionid[i], last[i])
        p = nodes[i].parent
        if p >= 0 and last[i] > last[p]:
            last[p] = last[i]
    return ReplayedGame(
        headers=dict(visitor.headers),
        start_fen=visitor.start_fen,
        chess960=visitor.chess960,
        nodes=[nodes[i] for i in order],
        positionid=positionid,
        depth=[depth[i] for i in order],
        last_descendant=[last[i] for i in order],
        child_index=[child_index[i] for i in order],
        errors=visitor.errors,
    )
