"""A transformed query on the transformed board gives the same matches as the query on the board.

The boards are transformed with python-chess (``BaseBoard.transform``, ``Board.mirror``), the
queries with :func:`cqlindex.query.rewrite.apply`, so the two sides share no code for
the square maps. Rotations and rank reflections do not preserve pawn moves or castling, so
they are checked on pawnless positions without castling rights; the colour swap and the file
reflection are checked on positions from real games.
"""

from __future__ import annotations

import random

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cqlindex.cql.parser import parse
from cqlindex.evaluate.core import Evaluator
from cqlindex.query.rewrite import BasicTransform, apply, members
from cqlindex.ingest.pipeline import build
from cqlindex.store.database import connect
from cqlindex.store.trees import load_games

# python-chess's board maps for each CQL basic transform.
_BOARD_MAPS = {
    "rotate90": lambda bb: chess.flip_diagonal(chess.flip_vertical(bb)),
    "rotate180": lambda bb: chess.flip_vertical(chess.flip_horizontal(bb)),
    "rotate270": lambda bb: chess.flip_vertical(chess.flip_diagonal(bb)),
    "reflecth": chess.flip_vertical,
    "reflectv": chess.flip_horizontal,
    "reflecta1h8": chess.flip_diagonal,
    "reflecth1a8": chess.flip_anti_diagonal,
}
_TRANSFORMS = {t.name: t for name in ("flip", "flipcolor") for t in members(name)}

STATIC_QUERIES = [
    "A attacks k", "[QR] attackedby [nb]", "k & diagonal 1 7 K", "light [BN] >= 1", "#[Aa] <= 6",
    "wtm Q", "check", "mate", "between(R k) & _ >= 3", "power A > power a",
    "square all x in K x attackedby a == 0", "pin through a", "ray ([QRB] k)", "xray ([QRB] a k)",
    "orthogonal 1 k & [RQ]", "up 1 7 K & [rq]", "northeast 2 B & _", "flipcolor {K attacks q}",
]
MOVING_QUERIES = STATIC_QUERIES + ["passedpawns & P", "up 1 P & p", "move legal to q", "stalemate",
                                   "move legal enpassant", "doubledpawns >= 2"]


def _random_pawnless(rng: random.Random) -> chess.Board:
    while True:
        board = chess.Board(None)
        squares = rng.sample(range(64), 2 + rng.randint(1, 6))
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for sq in squares[2:]:
            board.set_piece_at(sq, chess.Piece(rng.choice([chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT]),
                                               rng.choice([chess.WHITE, chess.BLACK])))
        board.turn = rng.choice([chess.WHITE, chess.BLACK])
        if board.is_valid():
            return board


def _random_played(rng: random.Random) -> chess.Board:
    board = chess.Board()
    for _ in range(rng.randint(4, 60)):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    return chess.Board(board.fen())


def _transformed(board: chess.Board, name: str) -> chess.Board:
    if name == "colorswap":
        return board.mirror()
    out = board.transform(_BOARD_MAPS[name])
    out.castling_rights = 0
    return out


def _pgn(boards: list[chess.Board]) -> str:
    return "".join(f'[Event "{i}"]\n[SetUp "1"]\n[FEN "{b.fen()}"]\n\n*\n\n' for i, b in enumerate(boards))


@pytest.fixture(scope="module")
def indexes(tmp_path_factory):
    """For each pool and transform: trees of the original boards and of their images."""
    rng = random.Random(20261122)
    pools = {
        "pawnless": [_random_pawnless(rng) for _ in range(50)],
        "played": [_random_played(rng) for _ in range(50)],
    }
    for board in pools["pawnless"]:
        board.castling_rights = 0
    plans = {"pawnless": [*_BOARD_MAPS, "colorswap"], "played": ["reflectv", "colorswap"]}
    folder = tmp_path_factory.mktemp("transform-boards")
    trees = {}
    for pool, boards in pools.items():
        variants = {"id": boards, **{name: [_transformed(b, name) for b in boards] for name in plans[pool]}}
        for name, variant in variants.items():
            path = folder / f"{pool}-{name}.pgn"
            path.write_text(_pgn(variant))
            db = path.with_suffix(".duckdb")
            build([str(path)], db, workers=1)
            con = connect(db)
            trees[pool, name] = list(load_games(con))
            con.close()
    return trees, plans


def _matching(trees, text_or_node) -> set[int]:
    query = parse(text_or_node) if isinstance(text_or_node, str) else text_or_node
    evaluator = Evaluator(query, variations=False)
    return {tree.gamenumber for tree in trees if evaluator.matches(tree)}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_transformed_query_on_transformed_board(indexes, data) -> None:
    trees, plans = indexes
    pool = data.draw(st.sampled_from(sorted(plans)))
    name = data.draw(st.sampled_from(plans[pool]))
    text = data.draw(st.sampled_from(STATIC_QUERIES if pool == "pawnless" else MOVING_QUERIES))
    query = parse(text)
    transform: BasicTransform = _TRANSFORMS[name]
    image_body = apply(query.body, transform)
    image = type(query)(query.header, image_body, query.text, query.source)
    assert _matching(trees[pool, "id"], query) == _matching(trees[pool, name], image), (text, name)


def test_the_property_can_fail(indexes) -> None:
    """rank is a number, not a square set, so CQL does not rotate it: the boards must tell."""
    trees, _ = indexes
    assert _matching(trees["pawnless", "id"], "rank K <= 2") != _matching(trees["pawnless", "rotate90"], "rank K <= 2")
