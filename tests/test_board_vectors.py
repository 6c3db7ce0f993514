"""Tests for cqlindex.board.vectors: the compiled build path's facts for a batch of boards at once.

python-chess is the oracle: each row of :func:`piece_bitboards` is ``pieces_mask`` of one piece,
:func:`attack_maps` is the union of ``attacks_mask`` of a side's pieces (pinned ones too, as CQL
counts), and :func:`zobrist` is ``chess.polyglot.zobrist_hash``. Batches mix positions from random
games and random placements, so a fact that leaks from one position into its neighbour fails.
(tests/test_ingest_compiled.py holds the whole compiled path to the python-chess path on real files.)
"""

from __future__ import annotations

import random

import chess
import chess.polyglot
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cqlindex.board.facts import PIECE_ORDER
from cqlindex.board.vectors import attack_maps, piece_bitboards, zobrist
from test_board_facts import _attacked_by, _random_positions


def _codes(board: chess.Board) -> list[int]:
    """The compiled reader's piece codes of ``board``, square a1 first: 1-6 white P N B R Q K, 7-12 black."""
    out = [0] * 64
    for square, piece in board.piece_map().items():
        out[square] = piece.piece_type + (0 if piece.color else 6)
    return out


def _batch(boards: list[chess.Board]) -> np.ndarray:
    return np.array([_codes(b) for b in boards], dtype=np.uint8).reshape(-1, 64)


def _random_games(seed: int, plies: int = 300) -> tuple[list[chess.Board], list[int]]:
    """Positions of random legal games from the start (promotions, castling, en passant come
    up), one after the other, and the index of each game's first position."""
    rng = random.Random(seed)
    out, starts = [], []
    while len(out) < plies:
        board = chess.Board()
        starts.append(len(out))
        while not board.is_game_over() and len(out) < plies:
            out.append(board.copy(stack=False))
            board.push(rng.choice(list(board.legal_moves)))
    return out, starts


GAMES, STARTS = zip(*(_random_games(seed) for seed in range(3)))


def _check_bitboards(boards: list[chess.Board]) -> None:
    bb = piece_bitboards(_batch(boards))
    assert bb.shape == (12, len(boards)) and all(row.flags["C_CONTIGUOUS"] for row in bb)
    for i, (color, piece_type) in enumerate(PIECE_ORDER):
        assert bb[i].tolist() == [b.pieces_mask(piece_type, color) for b in boards], chess.piece_name(piece_type)


def _check_attacks(boards: list[chess.Board]) -> None:
    white, black = attack_maps(piece_bitboards(_batch(boards)))
    assert white.tolist() == [_attacked_by(b, chess.WHITE) for b in boards]
    assert black.tolist() == [_attacked_by(b, chess.BLACK) for b in boards]


def _check_zobrist(boards: list[chess.Board], starts: list[int] | None = None) -> None:
    codes = _batch(boards)
    castling = np.array([[b.has_kingside_castling_rights(chess.WHITE), b.has_queenside_castling_rights(chess.WHITE),
                          b.has_kingside_castling_rights(chess.BLACK), b.has_queenside_castling_rights(chess.BLACK)]
                         for b in boards], dtype=bool).reshape(-1, 4)
    ep = np.array([-1 if b.ep_square is None else b.ep_square for b in boards], dtype=np.int64)
    wtm = np.array([b.turn for b in boards], dtype=bool)
    keys = zobrist(codes, piece_bitboards(codes), castling, ep, wtm,
                   None if starts is None else np.array(starts, dtype=np.int64))
    assert keys.tolist() == [chess.polyglot.zobrist_hash(b) for b in boards]


CHECKS = {"piece_bitboards": _check_bitboards, "attack_maps": _check_attacks, "zobrist": _check_zobrist}


@pytest.mark.parametrize("check", CHECKS.values(), ids=CHECKS.keys())
@pytest.mark.parametrize("game", range(len(GAMES)), ids=lambda i: f"random-game-{i}")
def test_random_games(check, game: int) -> None:
    check(GAMES[game])


@pytest.mark.parametrize("game", range(len(GAMES)), ids=lambda i: f"random-game-{i}")
def test_zobrist_carried_along_main_lines(game: int) -> None:
    """Told where each game starts, zobrist hashes only the starts in full and the rest move by move."""
    _check_zobrist(GAMES[game], STARTS[game])
    # A batch cut in the middle of a game starts there: its first row is hashed in full.
    _check_zobrist(GAMES[game][7:], [0, *(s - 7 for s in STARTS[game] if s > 7)])


@pytest.mark.parametrize("check", CHECKS.values(), ids=CHECKS.keys())
def test_one_position_and_empty_batch(check) -> None:
    check([chess.Board()])
    check([])


@pytest.mark.parametrize("check", CHECKS.values(), ids=CHECKS.keys())
@given(boards=st.lists(_random_positions(), min_size=1, max_size=12))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_placements(check, boards: list[chess.Board]) -> None:
    check(boards)
