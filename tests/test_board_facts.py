"""Tests for cqlindex.board.facts: legal-move count, piece bitboards and the polyglot key.

python-chess is the oracle throughout: ``count_legal_moves`` must equal
``board.legal_moves.count()`` and ``ZobristKeys`` must reproduce ``chess.polyglot.zobrist_hash``.
"""

from __future__ import annotations

import os
from pathlib import Path

import chess
import chess.pgn
import chess.polyglot
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cqlindex.board.facts import PIECE_ORDER, ZobristKeys, attack_maps, count_legal_moves, piece_bitboards

#: Real games replayed position by position (shared, read-only data; may be absent locally).
GAMES_PGN = Path("/work/shared/data/games/lichess-474.pgn")
GAMES_LIMIT = 200

KEYS = ZobristKeys()


def _reference_bitboards(board: chess.Board) -> tuple[int, ...]:
    """The 12 bitboards in PIECE_ORDER, built through python-chess's public API (the oracle)."""
    return tuple(board.pieces_mask(piece_type, color) for color, piece_type in PIECE_ORDER)


# --------------------------------------------------------------------------------------------
# Hand-picked positions: (id, fen, chess960, expected legal-move count).
# The expected count pins down that the FEN really exercises the case it is named after; the
# tests also compare against python-chess so a typo in a count cannot hide a real difference.
# --------------------------------------------------------------------------------------------
POSITIONS: list[tuple[str, str, bool, int]] = [
    # Standard perft positions (chessprogramming.org), counts at depth 1.
    ("start", chess.STARTING_FEN, False, 20),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", False, 48),
    ("perft3-rank-pins", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", False, 14),
    ("perft4-in-check", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", False, 6),
    ("perft4-mirrored", "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", False, 6),
    ("perft5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", False, 44),
    ("perft6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", False, 46),
    # Pins.
    ("pinned-rook-on-file", "4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1", False, 9),
    ("pinned-knight-cannot-move", "4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1", False, 4),
    ("pinned-bishop-on-diagonal", "7k/8/8/8/1b6/8/3B4/4K3 w - - 0 1", False, 6),
    ("pinned-queen-on-diagonal", "7k/8/8/8/8/2b5/3Q4/4K3 w - - 0 1", False, 5),
    ("pinned-queen-on-rank", "7k/8/8/8/8/8/8/r2QK3 w - - 0 1", False, 7),
    ("pinned-pawn-pushes-along-file", "4r2k/8/8/8/8/8/4P3/4K3 w - - 0 1", False, 6),
    ("pinned-pawn-captures-pinner", "7k/8/8/8/8/2b5/3P4/4K3 w - - 0 1", False, 5),
    ("pinned-pawn-on-rank-frozen", "7k/8/8/8/8/8/r2PK3/8 w - - 0 1", False, 7),
    ("pinned-pawn-capture-promotes-on-pinner", "2b4k/3P4/4K3/8/8/8/8/8 w - - 0 1", False, 11),
    ("pinned-pawn-on-7th-frozen", "2nr3k/3P4/8/8/8/8/8/3K4 w - - 0 1", False, 5),
    ("black-pinned-pawn-captures-pinner", "4k3/5p2/6B1/8/8/8/8/4K3 b - - 0 1", False, 5),
    ("two-pins-same-king", "4r2k/8/8/b7/8/8/3PR3/4K3 w - - 0 1", False, 9),
    ("xray-two-blockers-not-pinned", "4r2k/8/8/8/4N3/8/4P3/4K3 w - - 0 1", False, 13),
    # En passant.
    ("ep-legal", "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", False, 7),
    ("ep-two-capturers", "4k3/8/8/2PpP3/8/8/8/4K3 w - d6 0 1", False, 9),
    ("ep-black", "4k3/8/8/8/3Pp3/8/8/4K3 b - d3 0 1", False, 7),
    ("ep-illegal-horizontal-pin", "8/8/8/K2pP2r/8/8/8/7k w - d6 0 1", False, 6),
    ("ep-illegal-horizontal-pin-queen-black", "8/8/8/8/k2Pp2Q/8/8/7K b - d3 0 1", False, 6),
    ("ep-pinned-pawn-on-file", "4r2k/8/8/3pP3/8/8/8/4K3 w - d6 0 1", False, 6),
    ("ep-pinned-pawn-along-diagonal", "7k/2b5/8/3pP3/8/6K1/8/8 w - d6 0 1", False, 9),
    ("ep-pinned-pawn-off-diagonal", "7k/6b1/8/3pP3/8/8/1K6/8 w - d6 0 1", False, 8),
    ("ep-evades-pawn-check", "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1", False, 9),
    ("ep-square-without-capturer", "4k3/8/8/3p4/8/8/8/4K3 w - d6 0 1", False, 5),
    ("ep-on-a-file", "4k3/8/8/pP6/8/8/8/4K3 w - a6 0 1", False, 7),
    ("ep-on-h-file", "4k3/8/8/6Pp/8/8/8/4K3 w - h6 0 1", False, 7),
    # Promotions.
    ("promotion-push", "7k/P7/8/8/8/8/8/K7 w - - 0 1", False, 7),
    ("promotion-push-and-capture", "1n5k/P7/8/8/8/8/8/K7 w - - 0 1", False, 11),
    ("promotion-blocked-capture-only", "nn5k/P7/8/8/8/8/8/K7 w - - 0 1", False, 7),
    ("two-pawns-capture-same-square-white", "2n5/1P1P4/8/8/8/8/8/K6k w - - 0 1", False, 19),
    ("two-pawns-capture-same-square-black", "7k/8/8/8/8/8/1p1p4/2N4K b - - 0 1", False, 19),
    ("promotion-capture-in-corner", "6nk/7P/8/8/8/8/8/K7 w - - 0 1", False, 7),
    # Castling.
    ("castle-both-sides", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", False, 26),
    ("castle-both-sides-black", "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", False, 26),
    ("castle-kingside-through-attacked-f1", "r3k2r/8/b7/8/8/8/8/R3K2R w KQkq - 0 1", False, 21),
    ("castle-queenside-b1-attacked-is-ok", "r3k2r/8/8/8/8/n7/8/R3K2R w KQkq - 0 1", False, 21),
    ("castle-queenside-d1-attacked", "r2rk3/8/8/8/8/8/8/R3K2R w KQ - 0 1", False, 23),
    ("castle-landing-square-attacked", "r3k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1", False, 25),
    ("castle-blocked-by-piece", "r3k2r/8/8/8/8/8/8/RN2K1NR w KQkq - 0 1", False, 25),
    ("castle-rights-without-rook", "r3k2r/8/8/8/8/8/8/4K2R w KQkq - 0 1", False, 15),
    ("castle-while-in-check", "r3k2r/8/8/8/4r3/8/8/R3K2R w KQkq - 0 1", False, 4),
    # Check, double check, mate, stalemate.
    ("check-by-knight", "4k3/8/8/8/8/3n4/8/R3K3 w Q - 0 1", False, 4),
    ("check-by-pawn", "4k3/8/8/8/8/8/3p4/4K3 w - - 0 1", False, 5),
    ("double-check", "4k3/8/8/8/8/5n2/8/r3K3 w - - 0 1", False, 2),
    ("checkmate-fools-mate", "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", False, 0),
    ("checkmate-back-rank", "3R2k1/5ppp/8/8/8/8/8/6K1 b - - 0 1", False, 0),
    ("stalemate", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", False, 0),
    ("pinned-rook-on-diagonal-frozen", "k7/1r6/8/3B4/8/8/8/K1R5 b - - 0 1", False, 2),
    # Kings missing or doubled: python-chess is consulted directly.
    ("no-king-side-to-move", "4k3/8/8/8/8/8/4P3/R7 w - - 0 1", False, 16),
    ("no-king-at-all", "8/8/8/8/8/8/4P3/R7 w - - 0 1", False, 16),
    ("opponent-has-no-king", "8/8/8/8/8/8/4P3/R3K3 w - - 0 1", False, 16),
    ("two-white-kings", "4k3/8/8/8/8/8/8/K3K3 w - - 0 1", False, 8),
    ("two-black-kings-to-move", "k3k3/8/8/8/8/8/8/4K3 b - - 0 1", False, 8),
    # The opponent's second king must still cover the squares next to it.
    ("opponent-two-kings-low-one-adjacent-white", "k7/8/8/8/8/4k3/8/4K3 w - - 0 1", False, 2),
    ("opponent-two-kings-low-one-adjacent-black", "4k2K/8/4K3/8/8/8/8/8 b - - 0 1", False, 2),
    # Chess960 castling (Shredder-FEN rook files).
    ("c960-start-short-castle-at-once", "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1", True, 20),
    ("c960-king-b1-rooks-a1-g1-long-only", "rk4r1/8/8/8/8/8/8/RK4R1 w AGag - 0 1", True, 23),
    ("c960-king-b1-both-sides", "8/7k/8/8/8/8/8/RK4R1 w AG - 0 1", True, 25),
    ("c960-king-stays-on-g1", "6kr/8/8/8/8/8/8/6KR w Hh - 0 1", True, 11),
    ("c960-target-square-attacked-through-own-rook", "1r2k1r1/8/8/8/8/8/8/1R2K1R1 w BGbg - 0 1", True, 25),
    ("c960-castle-exposes-to-enemy-rook", "7k/8/8/8/8/8/8/5KRr w G - 0 1", True, 5),
    ("c960-standard-start", chess.STARTING_FEN, True, 20),
    ("c960-king-next-to-rook-queenside", "1rk5/8/8/8/8/8/8/1RK5 b Bb - 0 1", True, 12),
]

_IDS = [p[0] for p in POSITIONS]


def _board(fen: str, chess960: bool) -> chess.Board:
    return chess.Board(fen, chess960=chess960)


@pytest.mark.parametrize(("name", "fen", "chess960", "expected"), POSITIONS, ids=_IDS)
def test_count_legal_moves_hand_picked(name: str, fen: str, chess960: bool, expected: int) -> None:
    """Every hard case (pins, e.p., promotions, castling, check) agrees with python-chess."""
    board = _board(fen, chess960)
    assert board.legal_moves.count() == expected, "table entry is stale: fix the expected count"
    assert count_legal_moves(board) == expected


@pytest.mark.parametrize(("name", "fen", "chess960", "expected"), POSITIONS, ids=_IDS)
def test_count_legal_moves_does_not_change_board(name: str, fen: str, chess960: bool, expected: int) -> None:
    """Counting is a read-only operation: the board (and its move stack) stays as it was."""
    board = _board(fen, chess960)
    before = (board.fen(en_passant="fen"), board.castling_rights, board.ep_square, board.turn)
    count_legal_moves(board)
    assert (board.fen(en_passant="fen"), board.castling_rights, board.ep_square, board.turn) == before


@pytest.mark.parametrize(
    "fen",
    ["4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "p3k3/8/8/8/8/8/8/4K3 b - - 0 1"],
    ids=["white-pawn-on-rank-1", "black-pawn-on-rank-8"],
)
def test_count_legal_moves_pawn_on_own_back_rank(fen: str) -> None:
    """Illegal set-up positions still reach the indexer through a PGN [FEN] tag."""
    board = chess.Board(fen)
    assert count_legal_moves(board) == board.legal_moves.count()


# --------------------------------------------------------------------------------------------
# Random games (hypothesis draws the move indices).
# --------------------------------------------------------------------------------------------
RANDOM_GAME_STARTS: list[tuple[str, bool]] = [
    (chess.STARTING_FEN, False),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", False),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", False),
    ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", False),
    # Pawns one step from promotion on both sides, so random games promote (and under-promote).
    ("n1n1k3/PPPP4/8/8/8/8/4pppp/4K1N1 w - - 0 1", False),
    # Pawns on their 2nd/7th and 4th/5th ranks: double pushes next to enemy pawns, so e.p. comes up.
    ("4k3/pppppppp/8/1P1P1P1P/p1p1p1p1/8/PPPPPPPP/4K3 w - - 0 1", False),
    ("bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1", True),
    ("rk4r1/pppppppp/8/8/8/8/PPPPPPPP/RK4R1 w AGag - 0 1", True),
]

_START_IDS = ["start", "kiwipete", "perft3", "perft4", "promotions", "en-passant", "c960-a", "c960-b"]

_move_indices = st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=120)


def _random_game(fen: str, chess960: bool, indices: list[int]):
    """Yield (parent board copy, move) along a game whose moves are picked by ``indices``."""
    board = _board(fen, chess960)
    for index in indices:
        moves = list(board.legal_moves)
        if not moves:
            return
        move = moves[index % len(moves)]
        yield board, move
        board.push(move)
    yield board, None


@pytest.mark.parametrize(("fen", "chess960"), RANDOM_GAME_STARTS, ids=_START_IDS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(indices=_move_indices)
def test_count_legal_moves_random_games(fen: str, chess960: bool, indices: list[int]) -> None:
    """Along random games the fast count never drifts from python-chess, position by position."""
    for ply, (board, _move) in enumerate(_random_game(fen, chess960, indices)):
        expected = board.legal_moves.count()
        assert count_legal_moves(board) == expected, f"ply {ply}: {board.fen()}"


@st.composite
def _random_positions(draw) -> chess.Board:
    """A random placement: one king a side, up to 14 other pieces, maybe castling rights and e.p."""
    squares = draw(st.lists(st.integers(0, 63), min_size=2, max_size=16, unique=True))
    board = chess.Board(None)
    board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
    board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
    for sq in squares[2:]:
        piece_type = draw(st.sampled_from([chess.PAWN, chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN]))
        if piece_type == chess.PAWN and chess.square_rank(sq) in (0, 7):
            piece_type = chess.KNIGHT
        board.set_piece_at(sq, chess.Piece(piece_type, draw(st.booleans())))
    board.turn = draw(st.booleans())
    if draw(st.booleans()):
        board.castling_rights = board.clean_castling_rights() | (
            board.rooks & (chess.BB_A1 | chess.BB_H1 | chess.BB_A8 | chess.BB_H8))
    ep_file = draw(st.none() | st.integers(0, 7))
    if ep_file is not None:
        ep = chess.square(ep_file, 5 if board.turn else 2)
        pushed = ep - 8 if board.turn else ep + 8
        origin = ep + 8 if board.turn else ep - 8
        if (board.piece_at(pushed) == chess.Piece(chess.PAWN, not board.turn)
                and board.piece_at(ep) is None and board.piece_at(origin) is None):
            board.ep_square = ep
    return board


@settings(max_examples=400, deadline=None)
@given(board=_random_positions())
def test_count_legal_moves_random_placements(board: chess.Board) -> None:
    """Random placements produce pins, x-rays and king walks that real games rarely reach."""
    if board.was_into_check():
        return  # the side not to move is in check: not a position of chess
    assert count_legal_moves(board) == board.legal_moves.count(), board.fen(en_passant="fen")


# --------------------------------------------------------------------------------------------
# Real games.
# --------------------------------------------------------------------------------------------
def _require_games_file() -> Path:
    if not GAMES_PGN.is_file():
        if os.environ.get("CI") == "true":
            pytest.fail(f"shared game file {GAMES_PGN} is missing; CI must provide it")
        pytest.skip(f"shared game file {GAMES_PGN} not available")
    return GAMES_PGN


@pytest.fixture(scope="module")
def real_games() -> list[list[chess.Board]]:
    """Per game, every main-line position (start included) of the first GAMES_LIMIT games."""
    path = _require_games_file()
    games: list[list[chess.Board]] = []
    with path.open(encoding="utf-8") as handle:
        while len(games) < GAMES_LIMIT:
            game = chess.pgn.read_game(handle)
            if game is None:
                break
            board = game.board()
            positions = [board.copy(stack=False)]
            for move in game.mainline_moves():
                board.push(move)
                positions.append(board.copy(stack=False))
            games.append(positions)
    assert len(games) == GAMES_LIMIT, f"expected at least {GAMES_LIMIT} games in {path}, read {len(games)}"
    return games


@pytest.fixture(scope="module")
def real_game_positions(real_games: list[list[chess.Board]]) -> list[chess.Board]:
    return [board for game in real_games for board in game]


def test_count_legal_moves_real_games(real_game_positions: list[chess.Board]) -> None:
    """Real play hits the common cases in their real proportions (thousands of positions)."""
    mismatches = [
        (b.fen(), count_legal_moves(b), b.legal_moves.count())
        for b in real_game_positions
        if count_legal_moves(b) != b.legal_moves.count()
    ]
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:3]}"


def _attacked_by(board: chess.Board, color: bool) -> int:
    """The oracle: the union of python-chess's attacks_mask over the side's pieces."""
    out = 0
    for square in chess.scan_forward(board.occupied_co[color]):
        out |= board.attacks_mask(square)
    return out


def test_attack_maps_real_games(real_game_positions: list[chess.Board]) -> None:
    mismatches = [b.fen() for b in real_game_positions
                  if attack_maps(b) != (_attacked_by(b, chess.WHITE), _attacked_by(b, chess.BLACK))]
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:3]}"


@settings(max_examples=300, deadline=None)
@given(board=_random_positions())
def test_attack_maps_random_placements(board: chess.Board) -> None:
    """Pawns on every file (the shifts must not wrap around the board edge), sliders through crowds."""
    assert attack_maps(board) == (_attacked_by(board, chess.WHITE), _attacked_by(board, chess.BLACK)), board.fen()


def test_zobrist_real_games(real_game_positions: list[chess.Board]) -> None:
    """The stored key of every real position is python-chess's polyglot key."""
    mismatches = [
        b.fen()
        for b in real_game_positions
        if KEYS.full(KEYS.pieces(piece_bitboards(b)), b) != chess.polyglot.zobrist_hash(b)
    ]
    assert not mismatches, f"{len(mismatches)}/{len(real_game_positions)} mismatches, first: {mismatches[:3]}"


def test_zobrist_incremental_real_games(real_games: list[list[chess.Board]]) -> None:
    """Carrying the piece key from parent to child over whole real games never drifts."""
    for game in real_games:
        parent_bbs = piece_bitboards(game[0])
        key = KEYS.pieces(parent_bbs)
        for board in game[1:]:
            bbs = piece_bitboards(board)
            key = KEYS.pieces(bbs, parent_bbs, key)
            assert key == KEYS.pieces(bbs), board.fen()
            parent_bbs = bbs


# --------------------------------------------------------------------------------------------
# piece_bitboards
# --------------------------------------------------------------------------------------------
def test_piece_order_is_KQRBNP_then_kqrbnp() -> None:
    """Table columns follow this order; a reorder silently corrupts every stored position."""
    assert PIECE_ORDER == (
        (chess.WHITE, chess.KING), (chess.WHITE, chess.QUEEN), (chess.WHITE, chess.ROOK),
        (chess.WHITE, chess.BISHOP), (chess.WHITE, chess.KNIGHT), (chess.WHITE, chess.PAWN),
        (chess.BLACK, chess.KING), (chess.BLACK, chess.QUEEN), (chess.BLACK, chess.ROOK),
        (chess.BLACK, chess.BISHOP), (chess.BLACK, chess.KNIGHT), (chess.BLACK, chess.PAWN),
    )


def test_piece_bitboards_start_position() -> None:
    """Spelled out square by square: white king on e1 comes first, black pawns last."""
    expected = (
        chess.BB_E1, chess.BB_D1, chess.BB_A1 | chess.BB_H1, chess.BB_C1 | chess.BB_F1,
        chess.BB_B1 | chess.BB_G1, chess.BB_RANK_2,
        chess.BB_E8, chess.BB_D8, chess.BB_A8 | chess.BB_H8, chess.BB_C8 | chess.BB_F8,
        chess.BB_B8 | chess.BB_G8, chess.BB_RANK_7,
    )
    assert piece_bitboards(chess.Board()) == expected


@pytest.mark.parametrize(
    ("fen", "index", "square"),
    [
        ("8/8/8/8/8/8/8/K6k w - - 0 1", 0, chess.A1),   # white king
        ("8/8/8/8/8/8/8/K6k w - - 0 1", 6, chess.H1),   # black king
        ("k7/8/8/8/8/8/8/7K b - - 0 1", 0, chess.H1),
        ("k7/8/8/8/8/8/8/7K b - - 0 1", 6, chess.A8),
        ("k7/8/8/3Q4/8/8/8/7K w - - 0 1", 1, chess.D5),  # white queen
        ("k7/8/8/3q4/8/8/8/7K w - - 0 1", 7, chess.D5),  # black queen
        ("k7/8/8/8/8/8/6p1/7K w - - 0 1", 11, chess.G2),  # black pawn
        ("k7/6P1/8/8/8/8/8/7K w - - 0 1", 5, chess.G7),   # white pawn
    ],
)
def test_piece_bitboards_colour_and_slot(fen: str, index: int, square: int) -> None:
    """A lone piece lands in exactly its colour's slot (asymmetric positions catch a colour swap)."""
    bbs = piece_bitboards(chess.Board(fen))
    assert bbs[index] & chess.BB_SQUARES[square]


@pytest.mark.parametrize(("name", "fen", "chess960", "expected"), POSITIONS, ids=_IDS)
def test_piece_bitboards_match_python_chess(name: str, fen: str, chess960: bool, expected: int) -> None:
    """Each slot equals python-chess's pieces_mask for that colour and type; union is occupied."""
    board = _board(fen, chess960)
    bbs = piece_bitboards(board)
    assert len(bbs) == 12
    assert bbs == _reference_bitboards(board)
    union = 0
    for bb in bbs:
        assert union & bb == 0, "piece bitboards overlap"
        union |= bb
    assert union == board.occupied


@pytest.mark.parametrize(("fen", "chess960"), RANDOM_GAME_STARTS, ids=_START_IDS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(indices=_move_indices)
def test_piece_bitboards_partition_occupied_random_games(fen: str, chess960: bool, indices: list[int]) -> None:
    """The 12 boards are disjoint, cover board.occupied and split it by colour correctly."""
    for board, _move in _random_game(fen, chess960, indices):
        bbs = piece_bitboards(board)
        assert sum(bbs) == board.occupied  # disjoint + covering, since sum == OR only when disjoint
        union = 0
        for bb in bbs:
            union |= bb
        assert union == board.occupied
        white = bbs[0] | bbs[1] | bbs[2] | bbs[3] | bbs[4] | bbs[5]
        assert white == board.occupied_co[chess.WHITE]


# --------------------------------------------------------------------------------------------
# ZobristKeys
# --------------------------------------------------------------------------------------------
#: Test vectors published with the polyglot book format (independent of python-chess).
POLYGLOT_VECTORS = [
    ([], 0x463B96181691FC9C),
    (["e2e4"], 0x823C9B50FD114196),
    (["e2e4", "d7d5"], 0x0756B94461C50FB0),
    (["e2e4", "d7d5", "e4e5"], 0x662FAFB965DB29D4),
    (["e2e4", "d7d5", "e4e5", "f7f5"], 0x22A48B5A8E47FF78),
    (["e2e4", "d7d5", "e4e5", "f7f5", "e1e2"], 0x652A607CA3F242C1),
    (["e2e4", "d7d5", "e4e5", "f7f5", "e1e2", "e8f7"], 0x00FDD303C946BDD9),
    (["a2a4", "b7b5", "h2h4", "b5b4", "c2c4"], 0x3C8123EA7B067637),
    (["a2a4", "b7b5", "h2h4", "b5b4", "c2c4", "b4c3", "a1a3"], 0x5C3F9B829B279560),
]


@pytest.mark.parametrize(("moves", "key"), POLYGLOT_VECTORS, ids=[" ".join(m) or "start" for m, _ in POLYGLOT_VECTORS])
def test_zobrist_polyglot_reference_vectors(moves: list[str], key: int) -> None:
    """The published polyglot keys (incl. e.p. only counted with an adjacent capturer, lost castling)."""
    board = chess.Board()
    for uci in moves:
        board.push_uci(uci)
    assert KEYS.full(KEYS.pieces(piece_bitboards(board)), board) == key


@pytest.mark.parametrize(("name", "fen", "chess960", "expected"), POSITIONS, ids=_IDS)
def test_zobrist_full_matches_python_chess(name: str, fen: str, chess960: bool, expected: int) -> None:
    """full(pieces(piece_bitboards(b)), b) is exactly chess.polyglot.zobrist_hash(b)."""
    board = _board(fen, chess960)
    assert KEYS.full(KEYS.pieces(piece_bitboards(board)), board) == chess.polyglot.zobrist_hash(board)


@pytest.mark.parametrize(("name", "fen", "chess960", "expected"), POSITIONS, ids=_IDS)
def test_zobrist_keys_alone_match_python_chess(name: str, fen: str, chess960: bool, expected: int) -> None:
    """ZobristKeys on python-chess's own bitboards: isolates the key tables from piece_bitboards."""
    board = _board(fen, chess960)
    assert KEYS.full(KEYS.pieces(_reference_bitboards(board)), board) == chess.polyglot.zobrist_hash(board)


@pytest.mark.parametrize(
    ("name", "fen", "ep_hashed"),
    [
        ("white-capturer-left", "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", True),
        ("white-capturer-right", "4k3/8/8/2Pp4/8/8/8/4K3 w - d6 0 1", True),
        ("no-capturer", "4k3/8/8/3p4/8/8/8/4K3 w - d6 0 1", False),
        ("capturer-of-wrong-colour", "4k3/8/8/2pp4/8/8/8/4K3 w - d6 0 1", False),
        ("pawn-two-files-away", "4k3/8/8/1P1p4/8/8/8/4K3 w - d6 0 1", False),
        ("pawn-on-wrong-rank", "4k3/8/4P3/3p4/8/8/8/4K3 w - d6 0 1", False),
        ("black-capturer", "4k3/8/8/8/3Pp3/8/8/4K3 b - d3 0 1", True),
        ("black-no-capturer", "4k3/8/8/8/3P4/8/8/4K3 b - d3 0 1", False),
        # Polyglot hashes e.p. even when the capture would be illegal.
        ("capturer-pinned-on-rank", "8/8/8/K2pP2r/8/8/8/7k w - d6 0 1", True),
        ("a-file-no-wrap-from-h", "4k3/8/8/p6P/8/8/8/4K3 w - a6 0 1", False),
        ("h-file-no-wrap-from-a", "4k3/8/8/P6p/8/8/8/4K3 w - h6 0 1", False),
        ("a-file-capturer", "4k3/8/8/pP6/8/8/8/4K3 w - a6 0 1", True),
        ("h-file-capturer", "4k3/8/8/6Pp/8/8/8/4K3 w - h6 0 1", True),
    ],
    ids=lambda v: v if isinstance(v, str) and "/" not in v else None,
)
def test_zobrist_en_passant_file(name: str, fen: str, ep_hashed: bool) -> None:
    """The e.p. file enters the key iff a pawn of the side to move stands beside the double-pushed pawn."""
    board = chess.Board(fen)
    with_ep = KEYS.full(KEYS.pieces(_reference_bitboards(board)), board)
    no_ep = board.copy(stack=False)
    no_ep.ep_square = None
    without_ep = KEYS.full(KEYS.pieces(_reference_bitboards(no_ep)), no_ep)
    assert (with_ep != without_ep) == ep_hashed
    assert with_ep == chess.polyglot.zobrist_hash(board)


@pytest.mark.parametrize(
    ("fen", "chess960", "moves"),
    [
        ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", False, ["e1g1", "e8c8"]),
        ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", False, ["e1c1", "e8g8"]),
        ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", False, ["e5d6"]),
        ("4k3/8/8/8/3Pp3/8/8/4K3 b - d3 0 1", False, ["e4d3"]),
        ("1n5k/P7/8/8/8/8/8/K7 w - - 0 1", False, ["a7b8q"]),
        ("1n5k/P7/8/8/8/8/8/K7 w - - 0 1", False, ["a7a8n"]),
        ("7k/8/8/8/8/8/1p1p4/2N4K b - - 0 1", False, ["d2c1r"]),
        ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", False,
         ["e5f7", "e8f7", "a2a4", "b4a3"]),
        # Chess960 castling is written king-takes-rook.
        ("8/7k/8/8/8/8/8/RK4R1 w AG - 0 1", True, ["b1g1"]),
        ("rk4r1/8/8/8/8/8/8/RK4R1 w AGag - 0 1", True, ["b1a1", "b8a8"]),
        ("6kr/8/8/8/8/8/8/6KR w Hh - 0 1", True, ["g1h1", "g8h8"]),
    ],
    ids=["castle-short-long", "castle-long-short", "ep-white", "ep-black", "capture-promote-queen",
         "underpromote-knight", "capture-promote-rook-black", "kiwipete-captures-ep",
         "c960-castle-short", "c960-castle-long-both", "c960-king-stays"],
)
def test_zobrist_incremental_special_moves(fen: str, chess960: bool, moves: list[str]) -> None:
    """Moves that touch more than two squares or change a piece's type update the key exactly."""
    board = _board(fen, chess960)
    bbs = piece_bitboards(board)
    key = KEYS.pieces(bbs)
    for uci in moves:
        move = chess.Move.from_uci(uci)
        assert move in board.legal_moves, f"{uci} not legal in {board.fen()}"
        board.push(move)
        child = piece_bitboards(board)
        key = KEYS.pieces(child, bbs, key)
        assert key == KEYS.pieces(child), f"after {uci}"
        bbs = child


@pytest.mark.parametrize(("fen", "chess960"), RANDOM_GAME_STARTS, ids=_START_IDS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(indices=_move_indices)
def test_zobrist_incremental_random_games(fen: str, chess960: bool, indices: list[int]) -> None:
    """pieces(child, parent, parent_key) == pieces(child), carried over the whole game."""
    board = _board(fen, chess960)
    parent_bbs = piece_bitboards(board)
    key = KEYS.pieces(parent_bbs)
    for board, move in _random_game(fen, chess960, indices):
        if move is None:
            break
        child_board = board.copy(stack=False)
        child_board.push(move)
        child_bbs = piece_bitboards(child_board)
        key = KEYS.pieces(child_bbs, parent_bbs, key)
        assert key == KEYS.pieces(child_bbs), f"after {move.uci()} from {board.fen()}"
        parent_bbs = child_bbs


@pytest.mark.parametrize(("fen", "chess960"), RANDOM_GAME_STARTS, ids=_START_IDS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(indices=_move_indices)
def test_zobrist_full_random_games(fen: str, chess960: bool, indices: list[int]) -> None:
    """The full key equals python-chess's polyglot key at every position of a random game."""
    for ply, (board, _move) in enumerate(_random_game(fen, chess960, indices)):
        key = KEYS.full(KEYS.pieces(piece_bitboards(board)), board)
        assert key == chess.polyglot.zobrist_hash(board), f"ply {ply}: {board.fen()}"


def test_zobrist_incremental_with_empty_parent_key_is_full() -> None:
    """With all-empty parent boards and key 0 the incremental form degenerates to the full one."""
    board = chess.Board(POSITIONS[1][1])
    bbs = piece_bitboards(board)
    assert KEYS.pieces(bbs, (0,) * 12, 0) == KEYS.pieces(bbs)
    assert KEYS.pieces(bbs) != 0


def test_zobrist_side_to_move_and_castling_change_key() -> None:
    """Turn and each castling right flip the key (guards against a constant full())."""
    base = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    pieces = KEYS.pieces(piece_bitboards(base))
    keys = {KEYS.full(pieces, base)}
    for rights in ["KQk", "KQq", "Kkq", "Qkq", "-"]:
        board = chess.Board(f"r3k2r/8/8/8/8/8/8/R3K2R w {rights} - 0 1")
        keys.add(KEYS.full(pieces, board))
    black = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1")
    keys.add(KEYS.full(pieces, black))
    assert len(keys) == 7
