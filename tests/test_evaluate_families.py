"""Each filter family against an independent python-chess oracle, position by position.

For every query the table gives a predicate written directly with python-chess (boards
replayed from the PGN, not read from the index); the evaluator's matches over real games must
be exactly the positions where the predicate holds. A wrong attack, direction, pawn rule,
move parameter or tree step shows up as a position-level difference.
"""

from __future__ import annotations

import io
from collections.abc import Callable

import chess
import chess.pgn
import pytest

from cqlindex.evaluate.engine import run
from cqlindex.ingest.pipeline import build
from tests.conftest import shared_path

GAMES = 40
W, B = chess.WHITE, chess.BLACK


class Node:
    """A replayed position with the links the predicates need."""

    def __init__(self, board: chess.Board, parent: Node | None, move: chess.Move | None) -> None:
        self.board = board
        self.parent = parent
        self.move = move
        self.children: list[Node] = []


def replay(pgn_text: str) -> list[list[Node]]:
    """Main lines of the games, as python-chess replays them."""
    games = []
    handle = io.StringIO(pgn_text)
    while (game := chess.pgn.read_game(handle)) is not None:
        board = game.board()
        nodes = [Node(board.copy(), None, None)]
        for move in game.mainline_moves():
            board.push(move)
            node = Node(board.copy(), nodes[-1], move)
            nodes[-1].children.append(node)
            nodes.append(node)
        games.append(nodes)
    return games


def squares(board: chess.Board, piece: chess.PieceType, color: chess.Color) -> chess.SquareSet:
    return board.pieces(piece, color)


def attacked_by(board: chess.Board, targets, attacker_type: chess.PieceType, color: chess.Color) -> bool:
    return any(board.attackers(color, t) & board.pieces(attacker_type, color) for t in targets)


def passed(board: chess.Board, sq: chess.Square, color: chess.Color) -> bool:
    f, r = chess.square_file(sq), chess.square_rank(sq)
    for other in board.pieces(chess.PAWN, not color):
        of, orank = chess.square_file(other), chess.square_rank(other)
        if abs(of - f) <= 1 and (orank > r if color else orank < r):
            return False
    return True


def material(board: chess.Board, color: chess.Color) -> int:
    values = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 0}
    return sum(values[p] * len(board.pieces(p, color)) for p in values)


def gives(node: Node, test: Callable[[chess.Board, chess.Move], bool]) -> bool:
    return any(test(node.board, child.move) for child in node.children)


Predicate = Callable[[Node], bool]
CASES: list[tuple[str, Predicate]] = [
    # position facts
    ("check", lambda n: n.board.is_check()),
    ("mate", lambda n: n.board.is_checkmate()),
    ("btm", lambda n: n.board.turn == B),
    ("initial", lambda n: n.parent is None),
    ("terminal", lambda n: not n.children),
    ("ply >= 40", lambda n: n.board.ply() >= 40),
    ("movenumber == 10", lambda n: n.board.fullmove_number == 10),
    # designators, counts, set algebra
    ("Q", lambda n: bool(squares(n.board, chess.QUEEN, W))),
    ("Q == 0 and q == 0", lambda n: not n.board.queens),
    ("#[Aa] <= 20", lambda n: len(n.board.piece_map()) <= 20),
    ("[Nn]d4-5", lambda n: any(n.board.piece_type_at(s) == chess.KNIGHT for s in (chess.D4, chess.D5))),
    ("R in A", lambda n: True),
    ("_e4", lambda n: n.board.piece_at(chess.E4) is None),
    ("~_ & e4", lambda n: n.board.piece_at(chess.E4) is not None),
    ("light B == 2", lambda n: sum(1 for s in squares(n.board, chess.BISHOP, W)
                                   if chess.BB_SQUARES[s] & chess.BB_LIGHT_SQUARES) == 2),
    ("rank K == 1", lambda n: chess.square_rank(n.board.king(W)) == 0),
    ("file k > 4", lambda n: chess.square_file(n.board.king(B)) > 3),
    ("power A - power a >= 3", lambda n: material(n.board, W) - material(n.board, B) >= 3),
    # attacks
    ("A attacks k", lambda n: bool(n.board.attackers(W, n.board.king(B)))),
    ("Q attackedby n", lambda n: attacked_by(n.board, squares(n.board, chess.QUEEN, W), chess.KNIGHT, B)),
    ("#(a attackedby P) >= 2", lambda n: sum(1 for s, p in n.board.piece_map().items()
                                            if p.color == B and n.board.attackers(W, s) & n.board.pawns) >= 2),
    # geometry and pawn structure
    ("up 1 P & p", lambda n: any(n.board.piece_at(s + 8) == chess.Piece(chess.PAWN, B)
                                for s in squares(n.board, chess.PAWN, W) if s + 8 < 64)),
    ("k == orthogonal 1 K", lambda n: chess.square_distance(n.board.king(W), n.board.king(B)) == 1
     and (chess.square_file(n.board.king(W)) == chess.square_file(n.board.king(B))
          or chess.square_rank(n.board.king(W)) == chess.square_rank(n.board.king(B)))),
    ("between(K k) & [Aa]", lambda n: bool(chess.between(n.board.king(W), n.board.king(B)) & n.board.occupied)),
    ("passedpawns & P", lambda n: any(passed(n.board, s, W) for s in squares(n.board, chess.PAWN, W))),
    ("doubledpawns & p", lambda n: any(len(squares(n.board, chess.PAWN, B) & chess.SquareSet(chess.BB_FILES[f])) > 1
                                       for f in range(8))),
    # moves played and legal
    ("move from K", lambda n: gives(n, lambda b, m: b.piece_at(m.from_square) == chess.Piece(chess.KING, W))),
    ("move to _ from n", lambda n: gives(n, lambda b, m: b.piece_at(m.from_square) == chess.Piece(chess.KNIGHT, B)
                                         and b.piece_at(m.to_square) is None)),
    ("move previous capture .", lambda n: n.parent is not None and n.parent.board.is_capture(n.move)),
    ("move o-o", lambda n: gives(n, lambda b, m: b.is_kingside_castling(m))),
    ("move legal to q", lambda n: any(n.board.piece_at(m.to_square) == chess.Piece(chess.QUEEN, B)
                                      for m in n.board.legal_moves)),
    # tree navigation
    ("parent : check", lambda n: n.parent is not None and n.parent.board.is_check()),
    ("child : check", lambda n: bool(n.children) and n.children[0].board.is_check()),
    ("find check", lambda n: _any_below(n, lambda x: x.board.is_check())),
    ("find <-- check", lambda n: _any_above(n, lambda x: x.board.is_check())),
    # transforms
    ("flipcolor {wtm Q}", lambda n: bool(squares(n.board, chess.QUEEN, n.board.turn))),
    ("flip Ka1", lambda n: n.board.king(W) in (chess.A1, chess.H1, chess.A8, chess.H8)),
    ("fliphorizontal kh8", lambda n: n.board.king(B) in (chess.H8, chess.H1)),
    # variables and iteration
    ("square all x in K x attackedby a == 0", lambda n: not n.board.is_attacked_by(B, n.board.king(W))),
    ("piece x in [RQ] x attacks k", lambda n: any(n.board.attackers(W, n.board.king(B))
                                                   & (n.board.rooks | n.board.queens))),
]


def _any_above(node: Node, test) -> bool:
    while node is not None:
        if test(node):
            return True
        node = node.parent
    return False


def _any_below(node: Node, test) -> bool:
    while node is not None:
        if test(node):
            return True
        node = node.children[0] if node.children else None
    return False


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    source = shared_path("data/games/lichess-474.pgn").read_text(encoding="utf-8")
    text = "".join(part if i == 0 else "[Event" + part for i, part in enumerate(source.split("[Event")[1:GAMES + 1]))
    text = "[Event" + text if not text.startswith("[Event") else text
    path = tmp_path_factory.mktemp("families") / "games.pgn"
    path.write_text(text, encoding="utf-8")
    db = path.with_suffix(".duckdb")
    build([str(path)], db, workers=1)
    return db, replay(text)


@pytest.mark.parametrize(("query", "predicate"), CASES, ids=[c[0] for c in CASES])
def test_family_against_python_chess(games, query: str, predicate: Predicate) -> None:
    db, replayed = games
    assert len(replayed) == GAMES
    expected = {}
    for number, nodes in enumerate(replayed, start=1):
        ids = [i for i, node in enumerate(nodes) if predicate(node)]
        if ids:
            expected[number] = ids
    got = run(db, query).matches
    assert got == expected
