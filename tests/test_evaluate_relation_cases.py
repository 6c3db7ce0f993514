"""Seed 001's echo transform parameters, case by case, on pairs of boards written here.

Each row is a source board, a target board and a relation parameter, with the verdict read off
the seed text (seeds/001_9e74ca8a1f920eb2.txt) and reference/relation.md: which transforms
each echo keyword tries, that the identity is never one of them (echoflip included), how a
shift treats squares that leave the board (the 24x24 superboard, mismatches capped at 64),
the remainder of a partial comparison set, and an empty comparison set (0 matches, 0
mismatches). The two boards form a two-position game tree (source id 0, target id 1, the
source's only other position), evaluated by the reference evaluator, so a row is true exactly
when position 0 matches.
"""

from __future__ import annotations

import chess
import pytest

from cqlindex.cql.parser import parse
from cqlindex.evaluate.core import Evaluator
from cqlindex.store.trees import GameTree, Position

_ORDER = (chess.KING, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN)


def _position(index: int, fen: str) -> Position:
    board = chess.Board(fen)
    bitboards = tuple(board.pieces_mask(piece, color) for color in (chess.WHITE, chess.BLACK) for piece in _ORDER)
    return Position(index, None if index == 0 else 0, [1] if index == 0 else [], index, 1, 0, True, board.turn,
                    bitboards, board.castling_rights, board.ep_square, 0, None, None, None, None, None, None, False,
                    False, None, False, False, False, 0, None, None, 1)


def relates(parameters: str, source: str, target: str) -> bool:
    """Whether 'relation PARAMETERS' matches at a source whose one other position is the target."""
    query = parse(f"relation {parameters}")
    tree = GameTree(1, {}, None, None, None, None, None, None, None, None, None, None, False,
                    [_position(0, source), _position(1, target)])
    return 0 in Evaluator(query, variations=True).matches(tree)


# Boards (FEN, side to move white unless stated).
KINGS = "8/8/8/8/8/8/8/K6k w - - 0 1"             # Ka1 kh1
KINGS_MIRROR = "8/8/8/8/8/8/8/K6k w - - 0 1"      # its a<->h mirror is itself (Ka1<->kh1 swap colours: no)
ROOK_A5 = "8/1b3k2/8/r7/8/8/5BbB/6K1 w - - 0 1"   # reference/relation.md example 3, source
ROOK_H5 = "8/1b3k2/8/7r/8/6B1/5Bb1/6K1 w - - 0 1"  # its target: the a-file went to the h-file
CORNER = "7k/8/8/8/8/8/8/K7 w - - 0 1"            # Ka1 kh8
CORNER_B2 = "8/7k/8/8/8/8/1K6/8 w - - 0 1"        # Kb2 kh7: not a shift of CORNER (kh8 -> h7, Ka1 -> b2)
CORNER_UP = "8/7k/8/8/8/8/K7/8 w - - 0 1"         # Ka2 kh7: CORNER shifted one rank down? no: Ka1->a2 up, kh8->h7 down
PAIR = "8/8/8/3k4/8/3K4/8/8 w - - 0 1"            # Kd3 kd5
PAIR_RIGHT = "8/8/8/4k3/8/4K3/8/8 w - - 0 1"      # Ke3 ke5: PAIR shifted one file right
PAIR_UP = "8/8/8/8/3k4/8/3K4/8 w - - 0 1"         # Kd2 kd4... PAIR shifted one rank down
PAIR_FAR = "8/8/8/7k/8/7K/8/8 w - - 0 1"          # Kh3 kh5: PAIR shifted four files right
PAIR_BLACK = "8/8/8/3k4/8/3K4/8/8 b - - 0 1"      # PAIR, black to move
PAWNS = "4k3/8/8/8/8/8/PP6/4K3 w - - 0 1"         # Pa2 Pb2
PAWNS_MIRROR = "4k3/8/8/8/8/8/6PP/4K3 w - - 0 1"  # Pg2 Ph2 (a<->h of the pawns)
PAWNS_RANK7 = "4k3/PP6/8/8/8/8/8/4K3 w - - 0 1"   # Pa7 Pb7 (rank 1<->8 of the pawns; kings untouched)
PAWNLESS = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"
PAWNLESS_OTHER = "8/8/2k5/8/8/8/8/1Q5K w - - 0 1"
SYMMETRIC = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1"     # Qd1 Ke1 ke8
SYMMETRIC_V = "3k4/8/8/8/8/8/8/3KQ3 w - - 0 1"   # a<->h mirror: Kd1 Qe1 kd8
SYMMETRIC_R90 = "8/8/8/8/k7/Q7/K7/8 w - - 0 1"   # ... not used for rotate (see rotate rows)
EMPTYISH = "8/8/8/8/8/8/8/K6k w - - 0 1"

CASES = [
    # -- the identity (no echo keyword) and the rule that an echo never uses it -----------------
    ("(mismatch 0)", PAIR, PAIR, True, "identity: an exact repetition elsewhere in the game is a target"),
    ("(tomove match) (mismatch 0)", PAIR, PAIR_BLACK, False, "the same board, the other side to move"),
    ("(tomove mismatch) (mismatch 0)", PAIR, PAIR_BLACK, True, "tomove mismatch: the other side to move"),
    ("(mismatch 0)", PAIR, PAIR_BLACK, True, "without tomove the side to move is ignored"),
    ("(mismatch 2)", PAIR, PAIR_RIGHT, False, "identity: 4 squares differ (two kings moved)"),
    ("(mismatch 4)", PAIR, PAIR_RIGHT, True, "identity: exactly 4 mismatches"),
    ("(match 60)", PAIR, PAIR_RIGHT, True, "identity: 64 - 4 matches"),
    ("echoflip (mismatch 0)", PAIR, PAIR, False, "echoflip: no identity, and no other symmetry maps Kd3 kd5 on itself"),
    ("echoflipvertical (mismatch 0)", PAWNS, PAWNS, False, "the identity is not in echoflipvertical"),
    ("echoshift (mismatch 0)", PAIR, PAIR, False, "nor a shift by (0,0)"),
    ("echorotate90 (mismatch 0)", PAIR, PAIR, False, "nor a rotation by 0 degrees"),
    # -- dihedral keywords ---------------------------------------------------------------
    ("echoflipvertical (mismatch 0)", SYMMETRIC, SYMMETRIC_V, True, "a<->h mirror: Qd1 Ke1 ke8 -> Qe1 Kd1 kd8"),
    ("echofliphorizontal (mismatch 0)", SYMMETRIC, SYMMETRIC_V, False, "a rank mirror is not a file mirror"),
    ("echoflip (mismatch 0)", SYMMETRIC, SYMMETRIC_V, True, "echoflip includes the file mirror"),
    ("echoflipdihedral (mismatch 0)", SYMMETRIC, SYMMETRIC_V, True, "a synonym of echoflip"),
    ("echodihedral (mismatch 0)", SYMMETRIC, SYMMETRIC_V, True, "a synonym of echoflip"),
    ("echofliphorizontal (sourcesquares [Pp] mismatch 0)", PAWNS, PAWNS_RANK7, True,
     "rank mirror of the pawns (colours not swapped); the kings are outside the comparison set"),
    ("echofliphorizontal (mismatch 0)", PAWNS, PAWNS_RANK7, False, "the whole board: the kings do not mirror"),
    ("echoflipvertical (sourcesquares [Pp] mismatch 0)", PAWNS, PAWNS_MIRROR, True, "a2 b2 -> h2 g2"),
    ("echorotate90 (mismatch 0)", "8/8/8/8/8/8/8/K6k w - - 0 1", "k7/8/8/8/8/8/8/K7 w - - 0 1", False,
     "Ka1 kh1 rotated 90 degrees puts the white king on a corner other than a1"),
    ("echorotate90 (mismatch 0)", "8/8/8/8/8/8/8/K6k w - - 0 1", "k6K/8/8/8/8/8/8/8 w - - 0 1", True,
     "Ka1 kh1 rotated 180 degrees is Kh8 ka8"),
    ("echorotate90 (mismatch 0)", "8/8/8/8/8/8/8/R6k w - - 0 1", "7k/8/8/8/8/8/8/7R w - - 0 1", True,
     "Ra1 kh1 rotated 90 degrees: a1 -> h1, h1 -> h8 (the (x,y)->(7-y,x) map)"),
    ("echoflip (mismatch 0)", "8/8/8/8/8/8/8/R6k w - - 0 1", "7k/8/8/8/8/8/8/7R w - - 0 1", True,
     "echoflip holds every rotation"),
    ("echoflipvertical (mismatch 0)", "8/8/8/8/8/8/8/R6k w - - 0 1", "7k/8/8/8/8/8/8/7R w - - 0 1", False,
     "but the file mirror of Ra1 kh1 is Rh1 ka1"),
    # -- a partial comparison set: the remainder must be empty in the target ----------------------
    ("echoflipvertical (sourcesquares a1-8 mismatch 0)", ROOK_A5, ROOK_H5, True,
     "reference example 3: source a-file = target h-file, target a-file empty"),
    ("echoflipvertical (sourcesquares a1-8 match 16)", ROOK_A5, ROOK_H5, True, "8 mapped + 8 remainder matches"),
    ("echoflipvertical (sourcesquares a1-8 mismatch 0)", ROOK_A5, "8/1b3k2/8/r6r/8/8/5BbB/6K1 w - - 0 1", False,
     "the h-file holds the image but the a-file (the remainder) is not empty"),
    ("echoflipvertical (sourcesquares a1-8 targetsquares h1-8 mismatch 0)", ROOK_A5,
     "8/1b3k2/8/r6r/8/8/5BbB/6K1 w - - 0 1", True,
     "C = a-file & h-file is empty: 0 matches and 0 mismatches"),
    # -- shifts and the superboard ---------------------------------------------------------------
    ("echoshift (mismatch 0)", PAIR, PAIR_RIGHT, True, "one file right"),
    ("echoshifthorizontal (mismatch 0)", PAIR, PAIR_RIGHT, True, "a horizontal shift"),
    ("echoshiftvertical (mismatch 0)", PAIR, PAIR_RIGHT, False, "not a vertical one"),
    ("echoshiftvertical (mismatch 0)", PAIR, PAIR_UP, True, "one rank down"),
    ("echoshifthorizontal (mismatch 0)", PAIR, PAIR_UP, False, "not a horizontal one"),
    ("echoshift (mismatch 0)", PAIR, PAIR_FAR, True, "four files: the pieces stay on the board"),
    ("echoshift (mismatch 0)", CORNER, CORNER_UP, False, "the kings moved in opposite directions"),
    ("echoshift (mismatch 0)", CORNER, CORNER_B2, False, "Ka1 -> b2 needs (+1,+1), kh8 would leave the board"),
    ("echoshift (mismatch 1)", CORNER, "8/8/8/8/8/8/1K6/8 w - - 0 1", True,
     "(+1,+1): Ka1 -> b2 matches, kh8 falls off the board: one mismatch (target has no black king)"),
    ("echoshift (mismatch 0)", CORNER, "8/8/8/8/8/8/1K6/8 w - - 0 1", False,
     "a source piece shifted off the board is a mismatch"),
    ("echoshift (match 64)", PAIR, "8/8/8/8/8/8/8/K7 w - - 0 1", True,
     "the cap: (7,7) compares 64 + 15 squares; the 1 mismatch leaves 78 matches, capped at 64"),
    ("echoshift (match 64 mismatch 0)", PAIR, PAIR_FAR, True, "every shift but (0,0) has more than 64 comparisons"),
    ("echoshift (sourcesquares [Kk] mismatch 0)", PAIR, PAIR_FAR, True,
     "only the kings' squares: both move with the shift, their old squares are empty"),
    ("echoshifthorizontal (sourcesquares a-h3 targetsquares a-h3 mismatch 0)", PAIR, PAIR_FAR, True,
     "rank 3 only: Kd3 -> Kh3, the uncovered a-d part of rank 3 is empty"),
    # -- an empty comparison set ----------------------------------------------------------------
    ("echofliphorizontal (sourcesquares [Pp] mismatch 0)", PAWNLESS, PAWNLESS_OTHER, True,
     "no pawns: C is empty, 0/0 holds"),
    ("echofliphorizontal (sourcesquares [Pp] match 1 64)", PAWNLESS, PAWNLESS_OTHER, False,
     "an empty C has 0 matches"),
    ("echoshift (sourcesquares [Pp] mismatch 0)", PAWNLESS, PAWNLESS_OTHER, True, "the same for a shift"),
    ("(sourcesquares [Pp] mismatch 0)", PAWNLESS, PAWNLESS_OTHER, True, "and without a transform"),
    # -- several parameters: each chooses its own transform --------------------------------------
    ("echoshifthorizontal (sourcesquares [Kk] mismatch 0) echoshiftvertical (sourcesquares [Kk] mismatch 0)",
     PAIR, PAIR_RIGHT, False, "both must hold for the same target"),
    ("echoshift (sourcesquares K mismatch 0) echoflip (sourcesquares k targetsquares [Kk] match 0 64)", PAIR,
     PAIR_RIGHT, True, "independent conjuncts"),
]


@pytest.mark.parametrize("parameters, source, target, expected, why", CASES,
                         ids=[f"{c[0]}|{c[4]}" for c in CASES])
def test_seed_cases(parameters: str, source: str, target: str, expected: bool, why: str) -> None:
    assert relates(parameters, source, target) is expected, why


@pytest.mark.parametrize("keyword", ["echoflip", "echoflipvertical", "echofliphorizontal", "echorotate90",
                                     "echoshift", "echoshifthorizontal", "echoshiftvertical"])
def test_no_keyword_matches_an_identical_board(keyword: str) -> None:
    """A board with every symmetry in the table still never echoes itself through the identity."""
    assert relates("(mismatch 0)", KINGS, KINGS)
    assert not relates(f"{keyword} (mismatch 0)", "8/8/8/3k4/8/3K4/8/8 w - - 0 1", "8/8/8/3k4/8/3K4/8/8 w - - 0 1")


def test_target_filters_are_evaluated_at_the_target() -> None:
    assert relates("(mismatch 4)", PAIR, PAIR_RIGHT)
    assert not parse("K on darksquares relation K on lightsquares (mismatch 0)").body.items[1].params[0].tomove
    tree_query = "relation K on lightsquares echoshift (mismatch 0)"
    # source Kd3 (light) kd5; target Ke3 (dark): the target filter fails
    assert not relates(tree_query.removeprefix("relation "), PAIR, PAIR_RIGHT)
    # target Kh3 (light): holds
    assert relates(tree_query.removeprefix("relation "), PAIR, PAIR_FAR)
