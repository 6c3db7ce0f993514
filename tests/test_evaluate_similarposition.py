"""``similarposition`` on real games (studies/cql6-sample.pgn, with variations), on both engines.

Each row writes a submissions file holding one position of the sample changed by a board motion,
and states which positions must match. The oracle does not share cqlindex's transform code: it is
the ``fen`` filter asked for each board python-chess's own motions make of the submission within
the manual's group (boards with pawns: an optional mirror of the files, then a horizontal shift;
pawnless boards: the eight rotations and reflections; ``notransform``: the board alone).
"""

from __future__ import annotations

import chess
import pytest

from cqlindex.errors import CqlError
from cqlindex.exec.run import run


def _shift(board: chess.Board, df: int) -> chess.Board | None:
    moved = board.transform(lambda bb: _shift_bb(bb, df))
    return moved if len(moved.piece_map()) == len(board.piece_map()) else None


def _shift_bb(bb: int, df: int) -> int:
    for _ in range(abs(df)):
        bb = chess.shift_right(bb) if df > 0 else chess.shift_left(bb)
    return bb


def _group(board: chess.Board, transform: bool) -> list[chess.Board]:
    if not transform:
        return [board]
    if board.pawns:
        out = [_shift(b, df) for b in (board, board.transform(chess.flip_horizontal)) for df in range(-7, 8)]
        return [b for b in out if b is not None]
    out = []
    for diagonal in (False, True):
        for files in (False, True):
            for ranks in (False, True):
                b = board.transform(chess.flip_diagonal) if diagonal else board.copy()
                b = b.transform(chess.flip_horizontal) if files else b
                out.append(b.transform(chess.flip_vertical) if ranks else b)
    return out


def _matches_of_boards(db, boards: list[chess.Board]) -> dict[int, list[int]]:
    """Positions whose board and side to move are one of ``boards`` (the fen filter's answer)."""
    found: dict[int, set[int]] = {}
    for board in boards:
        side = "w" if board.turn else "b"
        for game, ids in run(db, f'fen "{board.board_fen()} {side}"', variations=True).matches.items():
            found.setdefault(game, set()).update(ids)
    return {game: sorted(ids) for game, ids in sorted(found.items())}


#: (game, ply on its main line, how the submission is made from that position)
MOTIONS = {
    "same": lambda b: b,
    "mirror files": lambda b: b.transform(chess.flip_horizontal),
    "shift right": lambda b: _shift(b, 1),
    "mirror ranks": lambda b: b.transform(chess.flip_vertical),
    "rotate 180": lambda b: b.transform(chess.flip_vertical).transform(chess.flip_horizontal),
    "diagonal": lambda b: b.transform(chess.flip_diagonal),
    "other side to move": lambda b: _turned(b),
}


def _turned(board: chess.Board) -> chess.Board:
    board = board.copy()
    board.turn = not board.turn
    return board


#: A board with pawns away from the a and h files (it can shift), and a pawnless one.
TABLE = [(2, 29, motion) for motion in MOTIONS] + [(8, 22, motion) for motion in MOTIONS if motion != "shift right"]


@pytest.fixture(scope="module")
def sample(build_db):
    return build_db("data/studies/cql6-sample.pgn")


def _position_board(db, game: int, ply: int) -> chess.Board:
    from cqlindex.store.database import connect
    from cqlindex.store.trees import load_games

    con = connect(db, read_only=True)
    try:
        tree = next(load_games(con, [game], variations=False))
    finally:
        con.close()
    return tree.positions[ply].board().copy()


@pytest.mark.parametrize("engine", ["python", "sql"])
@pytest.mark.parametrize("notransform", [False, True], ids=["similar", "notransform"])
@pytest.mark.parametrize("game, ply, motion", TABLE, ids=[f"{g}.{p} {m}" for g, p, m in TABLE])
def test_similar_positions(sample, tmp_path, engine: str, notransform: bool, game: int, ply: int,
                           motion: str) -> None:
    board = MOTIONS[motion](_position_board(sample, game, ply))
    assert board is not None
    submissions = tmp_path / "sub.pgn"
    submissions.write_text(f'[Event "s"]\n[SetUp "1"]\n[FEN "{board.fen()}"]\n\n*\n')
    words = "notransform nosort" if notransform else "nosort"
    found = run(sample, f'similarposition {words} "{submissions}"', variations=True, engine=engine,
                allow_files=True).matches
    assert found == _matches_of_boards(sample, _group(board, not notransform))
    if motion == "same" or (motion in ("mirror files", "shift right") and not notransform and board.pawns):
        assert ply in found.get(game, [])  # the row can fail: the position itself is expected


@pytest.mark.parametrize("engine", ["python", "sql"])
def test_games_sorted_by_the_submission_they_match(sample, tmp_path, engine: str) -> None:
    """Without nosort, matching games come in the order of the first submissions game they match."""
    boards = [_position_board(sample, game, ply) for game, ply in ((40, 2), (30, 4), (7, 0))]
    submissions = tmp_path / "subs.pgn"
    submissions.write_text("".join(f'[Event "s{i}"]\n[SetUp "1"]\n[FEN "{b.fen()}"]\n\n*\n\n'
                                   for i, b in enumerate(boards)))
    found = run(sample, f'similarposition "{submissions}"', variations=True, engine=engine, allow_files=True)
    assert list(found.matches)[:3] == [40, 30, 7]


def test_the_api_reads_no_file_unless_allowed(sample, tmp_path) -> None:
    submissions = tmp_path / "sub.pgn"
    submissions.write_text("1. e4 *\n")
    with pytest.raises(CqlError, match="allow_files"):
        run(sample, f'similarposition "{submissions}"', engine="python")
