"""The columnar move generator against python-chess, move for move.

Every position of the family tables' two indexes (studies with variations, Chess960 engine
games with their castling) and of a file of positions made to catch the rules' corners is
generated on columns and compared with python-chess's move list for the board the store builds
(:meth:`cqlindex.store.trees.Position.board`, what the tree-walker asks): the same (from, to,
kind) moves, legal and pseudolegal.
"""

from __future__ import annotations

import chess
import duckdb
import numpy as np
import pytest

from cqlindex.columnar import frame as F
from cqlindex.columnar.generate import generate
from cqlindex.columnar.move_groups import EN_PASSANT, KINGSIDE, PAWN, PIECE, QUEENSIDE
from cqlindex.filters.moves.legal import Generated, generated_moves
from cqlindex.ingest.pipeline import build
from cqlindex.store.trees import load_games

#: Set-up positions, each with the move that makes the case (the generator ignores a first
#: position's en passant square, as the reference does, so a double step is played first).
CORNERS = {
    "en passant uncovers the king along the rank": ("7k/2p5/8/KP5r/8/8/8/8 b - - 0 1", "c5"),
    "en passant takes the checking pawn": ("4k3/4p3/8/3P4/3K4/8/8/8 b - - 0 1", "e5"),
    "en passant by a pinned pawn": ("4k3/1b1p4/8/4P3/8/8/8/7K b - - 0 1", "d5"),
    "en passant where a bishop pins along the diagonal": ("7k/8/8/2pP4/8/8/5K2/b7 b - - 0 1", "c5"),
    "double check: the king alone moves": ("4k3/8/8/8/1b6/8/3N4/r3K3 w - - 0 1", None),
    "a checker to take or block": ("4k3/8/8/8/8/2n5/8/R3K2R w KQ - 0 1", None),
    "castling through an attacked square": ("r3k2r/8/8/8/2b5/8/8/R3K2R w KQkq - 0 1", None),
    "castling rights without the rook": ("r3k3/8/8/8/8/8/8/4K2R w KQq - 0 1", None),
    "queenside castling past an attacked b-file": ("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "Rb1"),
    "promotions, pushed and taking": ("1r5k/P7/8/8/8/8/8/K7 w - - 0 1", None),
    "a pinned rook slides along its pin": ("4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1", None),
    "no king to move": ("4k3/8/8/8/8/8/4P3/8 w - - 0 1", None),
}


def _pgn(fen: str, san: str | None) -> str:
    board = chess.Board(fen)
    moves = ""
    if san:
        number = f"{board.fullmove_number}{'.' if board.turn else '...'}"
        moves = f"{number} {san} "
    return f'[Event "?"]\n[SetUp "1"]\n[FEN "{fen}"]\n\n{moves}*\n\n'


@pytest.fixture(scope="module")
def corners(tmp_path_factory):
    folder = tmp_path_factory.mktemp("corners")
    source = folder / "corners.pgn"
    source.write_text("".join(_pgn(*case) for case in CORNERS.values()))
    build([str(source)], folder / "index.duckdb", workers=1)
    return folder / "index.duckdb"


def _kind(move: Generated, board: chess.Board) -> int:
    if move.castle is not None:
        return KINGSIDE if move.castle == 1 else QUEENSIDE
    if move.en_passant:
        return EN_PASSANT
    return PAWN if board.pawns >> move.source & 1 else PIECE


def _differences(index, legal: bool, first: int, last: int) -> list[str]:
    con = duckdb.connect(str(index), read_only=True)
    games = [g for (g,) in con.execute("SELECT gamenumber FROM games WHERE gamenumber BETWEEN ? AND ? ORDER BY 1",
                                       [first, last]).fetchall()]
    frame = F.load(con, games, True, {})
    moves = generate(frame, np.arange(frame.size), legal)
    got: dict[int, set] = {}
    for owner, source, targets, kind in zip(moves.owner, moves.source, moves.targets, moves.kind):
        for square in chess.scan_forward(int(targets)):
            got.setdefault(int(owner), set()).add((int(source), square, int(kind)))
    out = []
    row = 0
    for tree in load_games(con, games, variations=True):
        for position in tree.positions:
            board = position.board()
            expected = {(m.source, m.target, _kind(m, board))
                        for m in generated_moves(position, "legal" if legal else "pseudolegal")}
            if expected != got.get(row, set()):
                out.append(f"game {tree.gamenumber} position {position.id} {board.fen()}: "
                           f"missing {sorted(expected - got.get(row, set()))}, "
                           f"extra {sorted(got.get(row, set()) - expected)}")
            row += 1
    assert row == frame.size
    return out


@pytest.mark.parametrize("legal", [True, False], ids=["legal", "pseudolegal"])
def test_the_corners(corners, legal: bool) -> None:
    assert _differences(corners, legal, 1, len(CORNERS)) == []


@pytest.mark.parametrize("legal", [True, False], ids=["legal", "pseudolegal"])
@pytest.mark.parametrize("name", ["plain", "chess960"])
def test_the_family_indexes(filter_indexes, name: str, legal: bool) -> None:
    assert _differences(filter_indexes[name], legal, 0, 1 << 30) == []


def test_the_corners_are_what_they_say(corners) -> None:
    """The cases hold what they are named for: the skewered en passant is refused and the
    checking pawn taken en passant, as python-chess says."""
    con = duckdb.connect(str(corners), read_only=True)
    frame = F.load(con, [1, 2], True, {})
    moves = generate(frame, np.arange(frame.size), True)
    passant = {int(o) for o, k in zip(moves.owner, moves.kind) if k == EN_PASSANT}
    assert passant == {3}  # game 2's second row; game 1's capture would leave the king to the rook
