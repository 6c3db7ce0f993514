"""Pure, model and ideal mates (cqlindex/filters/position/matepatterns.py) on set positions.

The engine's own answers on the studies sample are checked position for position by the
example file puremate.cql (tests/test_evaluate_examples.py) and the SQL-against-Python table.
"""

from __future__ import annotations

import chess
import pytest

from cqlindex.filters.position.matepatterns import mate_pattern

# (FEN, pattern, participating squares or None when the position is not that pattern)
CASES = [
    # the queen mates, the king guards g2 once: pure, model, ideal
    ("8/8/8/8/8/5K2/6Q1/7k b - - 0 1", "puremate", {"h1", "g2", "f3"}),
    ("8/8/8/8/8/5K2/6Q1/7k b - - 0 1", "modelmate", {"h1", "g2", "f3"}),
    ("8/8/8/8/8/5K2/6Q1/7k b - - 0 1", "idealmate", {"h1", "g2", "f3"}),
    # the manual's counter-example: the mating queen is attacked three times
    ("7k/7Q/6B1/6N1/8/8/7R/7K b - - 0 1", "puremate", None),
    # a pinned refuter (cql6-sample game 28): the rook's attack on the queen is necessary
    ("5N2/8/2pp4/2pkq2R/4P3/3K4/8/8 b - - 0 7", "puremate", {"d5", "e4", "d3", "f8", "h5", "e5", "c5", "c6",
                                                              "d6"}),
    # not mate at all
    (chess.STARTING_FEN, "puremate", None),
    # stalemates: Qf7 guards g8, g7 and h7 once each (the idle king a1 takes no part) ...
    ("7k/5Q2/8/8/8/8/8/K7 b - - 0 1", "purestalemate", {"h8", "f7"}),
    ("7k/5Q2/8/8/8/8/8/K7 b - - 0 1", "modelstalemate", {"h8", "f7"}),
    ("7k/5Q2/8/8/8/8/8/K7 b - - 0 1", "idealstalemate", None),
    # ... but with Qg6 and Kh6, g7 and h7 are guarded twice
    ("7k/8/6QK/8/8/8/8/8 b - - 0 1", "purestalemate", None),
    ("7k/5Q2/8/8/8/8/8/K7 b - - 0 1", "puremate", None),
]


@pytest.mark.parametrize(("fen", "name", "squares"), CASES)
def test_mate_patterns(fen: str, name: str, squares: set[str] | None) -> None:
    got = mate_pattern(name, chess.Board(fen))
    if squares is None:
        assert got == 0
    else:
        assert {chess.square_name(s) for s in chess.scan_forward(got)} == squares


def test_model_mate_needs_every_officer() -> None:
    board = chess.Board("R7/8/8/8/8/5K2/6Q1/7k b - - 0 1")  # an idle white rook on a8
    assert board.is_checkmate() and mate_pattern("puremate", board) and not mate_pattern("modelmate", board)
