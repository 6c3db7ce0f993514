"""``pin``, ``ray`` and ``xray``: hand-made positions.

Each position is a one-game PGN set up from a FEN (no moves, so one position, id 0); a query
either matches it or not. Values are checked through set equality (``pin from Q == a4``).
The reference engine's pin and ray cases (Q11-Q15, D09-D12) run with the other acceptance cases
in test_evaluate_acceptance.py, on both engines.
"""

from __future__ import annotations

import pytest

import cqlindex.filters.sets.pins_rays  # noqa: F401  (registers the handlers)
from cqlindex.evaluate.engine import run
from cqlindex.ingest.pipeline import build

FENS = {
    # Re1 pins ne5 to ke8 (file); Qa4 pins bd7 to ke8 (diagonal).
    "two_pins": "4k3/3b4/8/4n3/Q7/8/8/4R2K w - - 0 1",
    # The piece-filter page's example: only Ra5 (bb5) and Re8 (ne6) pin to ke5.
    "doc_example": "4R2R/6r1/4n3/Rb2kppR/8/4K3/8/4R3 w - - 0 1",
    # The piece between is white: a line-up, not a pin.
    "own_blocker": "4k3/8/8/4N3/8/8/8/4R2K w - - 0 1",
    # Two black pieces between the rook and the king.
    "two_blockers": "4k3/4p3/8/4n3/8/8/8/4R2K w - - 0 1",
    # A bishop on a file cannot pin along it.
    "bishop_on_file": "4k3/8/8/4n3/8/8/8/4B2K w - - 0 1",
    # Re1 and ne5 with only empty squares beyond; Ne8 variant: a white piece at the end.
    "empty_beyond": "k7/8/8/4n3/8/8/8/4R2K w - - 0 1",
    "white_beyond": "k3N3/8/8/4n3/8/8/8/4R2K w - - 0 1",
    # Black pins white: re8 pins Be4 to Ke1.
    "black_pins": "4r2k/8/8/8/4B3/8/8/4K3 b - - 0 1",
    # A rook giving check along an open file.
    "open_file": "4k3/8/8/8/8/8/8/4R2K b - - 0 1",
    # Doubled rooks behind a queen pinned to its king.
    "battery": "4k3/4q3/8/8/4R3/8/4R3/7K w - - 0 1",
    # Rh4 and na5/kb5 would line up only by wrapping round the board's edge.
    "edge": "8/8/8/nk6/7R/8/8/7K w - - 0 1",
}

CASES = [
    # pin: defaults, each parameter, and which squares the value holds.
    ("two_pins", "pin", True),
    ("two_pins", "pin == [e5,d7]", True),
    ("two_pins", "pin from Q == a4", True),
    ("two_pins", "pin from R == e1", True),
    ("two_pins", "pin from [QR] == [a4,e1]", True),
    ("two_pins", "pin through b == d7", True),
    ("two_pins", "pin through a == [e5,d7]", True),
    ("two_pins", "pin through A", False),
    ("two_pins", "pin to k == e8", True),
    ("two_pins", "pin to K", False),
    ("two_pins", "pin through n from R == e5", True),
    ("two_pins", "pin from R through n == e1", True),
    ("two_pins", "pin to k from Q == e8", True),
    ("two_pins", "pin from Q through n", False),
    ("two_pins", "#pin through a == 2", True),
    ("doc_example", "pin == [b5,e6]", True),
    ("doc_example", "pin from R == [a5,e8]", True),
    ("doc_example", "pin to k == e5", True),
    ("own_blocker", "pin", False),
    ("two_blockers", "pin", False),
    ("two_blockers", "pin to p == e7", True),
    ("two_blockers", "pin to p through n from R == e7", True),
    ("bishop_on_file", "pin", False),
    ("empty_beyond", "pin", False),
    ("empty_beyond", "pin to e7", True),
    ("empty_beyond", "pin to _ == [e6,e7,e8]", True),
    ("white_beyond", "pin to e8", False),
    ("white_beyond", "pin to . == [e6,e7]", True),
    ("black_pins", "pin through A == e4", True),
    ("black_pins", "pin from r == e8", True),
    ("black_pins", "pin through a", False),
    ("open_file", "pin", False),
    ("battery", "pin from R == e4", True),
    ("edge", "pin", False),
    # ray: directions, order, empties between members, value = end squares.
    ("two_pins", "ray (R n k) == e8", True),
    ("two_pins", "ray up (R n k)", True),
    ("two_pins", "ray down (R n k)", False),
    ("two_pins", "ray vertical (R n k)", True),
    ("two_pins", "ray orthogonal (R n k)", True),
    ("two_pins", "ray horizontal (R n k)", False),
    ("two_pins", "ray diagonal (R n k)", False),
    ("two_pins", "ray (k n R) == e1", True),
    ("two_pins", "ray down (k n R)", True),
    ("two_pins", "ray northeast (Q b k) == e8", True),
    ("two_pins", "ray maindiagonal (Q b k)", True),
    ("two_pins", "ray offdiagonal (Q b k)", False),
    ("two_pins", "ray diagonal (Q k)", False),
    ("two_pins", "ray (R k)", False),
    ("doc_example", "ray diagonal (R a k) == e5", True),
    ("doc_example", "ray (R a k) == e5", True),
    ("doc_example", "ray (R p p k)", True),
    ("doc_example", "ray left (R p k)", False),
    ("own_blocker", "ray (R N k)", True),
    ("own_blocker", "ray (R n k)", False),
    ("two_blockers", "ray (R n k)", False),
    ("two_blockers", "ray (R n p k)", True),
    ("bishop_on_file", "ray (B n k)", True),
    ("open_file", "ray (R k) == e8", True),
    ("open_file", "ray (R _ k)", True),
    ("open_file", "ray (R _ _ _ _ _ _ k)", True),
    ("open_file", "ray (R _ _ _ _ _ _ _ k)", False),
    ("open_file", "ray (R _) == [a1,b1,c1,d1,f1,g1,d2,e2,f2,c3,e3,g3,b4,e4,h4,a5,e5,e6,e7]", True),
    ("open_file", "ray orthogonal (R _) == [a1,b1,c1,d1,f1,g1,e2,e3,e4,e5,e6,e7]", True),
    ("battery", "ray orthogonal (R R q k) == e8", True),
    ("battery", "ray (R q k)", True),
    ("battery", "ray (R R k)", False),
    ("edge", "ray (R n k)", False),
    ("edge", "ray (k n)", True),
    ("edge", "ray horizontal (R [nk])", False),
    # xray: the first member must be a slider moving along the line.
    ("two_pins", "xray (R a k) == e8", True),
    ("two_pins", "xray (Q a k) == e8", True),
    ("two_pins", "xray (B a k)", False),
    ("two_pins", "xray (k n R)", False),
    ("doc_example", "xray (R a k) == e5", True),
    ("doc_example", "xray (R a a k)", True),
    ("own_blocker", "xray (R A k)", True),
    ("bishop_on_file", "xray (B n k)", False),
    ("bishop_on_file", "xray ([QRB] n k)", False),
    ("open_file", "xray (R k)", True),
    ("battery", "xray (R R q k)", True),
    ("battery", "xray (R q k)", True),
    ("edge", "xray (R n k)", False),
    # The piece-filter page: the rooks that xray a black piece onto the black king.
    ("doc_example", "(piece Pinner in R xray (Pinner a k)) == [a5,e8]", True),
]


@pytest.fixture(scope="module")
def fen_db(tmp_path_factory):
    cache: dict[str, str] = {}

    def _db(name: str) -> str:
        if name not in cache:
            folder = tmp_path_factory.mktemp(name)
            pgn = folder / "game.pgn"
            pgn.write_text(f'[Event "{name}"]\n[SetUp "1"]\n[FEN "{FENS[name]}"]\n\n*\n')
            build([str(pgn)], folder / "index.duckdb", workers=1)
            cache[name] = str(folder / "index.duckdb")
        return cache[name]

    return _db


@pytest.mark.parametrize(("fen", "query", "expected"), CASES, ids=[f"{f}: {q}" for f, q, _ in CASES])
def test_position(fen_db, fen: str, query: str, expected: bool) -> None:
    matches = run(fen_db(fen), query, variations=False).matches
    assert matches == ({1: [0]} if expected else {})
