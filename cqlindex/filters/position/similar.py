"""``similarposition [notransform] [nosort] "file.pgn"``: the current position is like one of another file's.

As the CQL 6.2 manual defines it: the filter holds when some position of the main line of a
game of the named PGN file (the *submissions*) is similar to the current one. Two positions are
similar when they have the same side to move and their boards are equal after a transform: for
pawnless boards any rotation or reflection of the board, for boards with pawns an optional
reflection about the vertical bisector followed by a horizontal shift (the identity included);
with ``notransform`` only equal boards. Castling and en passant rights are not compared. The
matching games are sorted by the number of the first submissions game holding a similar
position, smallest first (``sort min`` around the filter), unless ``nosort`` is given.

Why a table of images: each submissions position is expanded once into every board its group
reaches, so the test at a position is one lookup of its own (side to move, bitboards). The file
is read in Python when the run first evaluates the filter, as ``readfile`` is (the command line
allows it; the Python API only with ``allow_files=True``).
"""

from __future__ import annotations

from pathlib import Path

from cqlindex.board.transforms import DIHEDRAL, map_bitboard, shift
from cqlindex.cql import ast
from cqlindex.cql.reader import Reader
from cqlindex.cql.tokens import Kind, Token
from cqlindex.errors import CqlError
from cqlindex.evaluate.context import Evaluator, evaluates
from cqlindex.store.trees import Position

_WORDS = ("notransform", "nosort")
#: Boards with pawns: the identity or the reflection about the vertical bisector, then a horizontal shift.
_WITH_PAWNS = tuple((DIHEDRAL[name], shift(df, 0)) for name in ("id", "reflectv") for df in range(-7, 8))
_PAWNLESS = tuple((DIHEDRAL[name], shift(0, 0)) for name in DIHEDRAL)


def read_similarposition(parser: Reader, token: Token) -> ast.Node:
    """``similarposition``, its parameters in any order, then the file name (a quoted string)."""
    words: set[str] = set()
    while parser.at_word(*_WORDS):
        word = parser.next()
        if word.text in words:
            raise parser.error(f"'{word.text}' twice in 'similarposition'", word)
        words.add(word.text)
    name = parser.peek()
    if name.kind is not Kind.STRING:
        raise parser.error("'similarposition' is followed by the PGN file to compare with, in quotes", name)
    parser.next()
    node = ast.SimilarPosition(token.span.to(name.span), name.text, "notransform" not in words)
    return node if "nosort" in words else ast.Sort(node.span, None, True, node)


def images(bitboards: tuple[int, ...], transform: bool) -> list[tuple[int, ...]]:
    """Every board similar to ``bitboards`` (12 bitboards, K Q R B N P k q r b n p), itself first."""
    if not transform:
        return [bitboards]
    out = []
    for reflect, move in _WITH_PAWNS if bitboards[5] | bitboards[11] else _PAWNLESS:
        image = tuple(map_bitboard(map_bitboard(b, reflect), move) for b in bitboards)
        if sum(map(int.bit_count, image)) == sum(map(int.bit_count, bitboards)):  # nothing pushed off
            out.append(image)
    return out


def submissions(path: Path, transform: bool) -> dict[tuple, int]:
    """(white to move, board) of every board similar to a main-line position of the file at ``path``
    -> the number of the first game (from 1) holding one."""
    import chess
    import chess.pgn

    table: dict[tuple, int] = {}
    with path.open(encoding="utf-8", errors="replace") as handle:
        number = 0
        while (game := chess.pgn.read_game(handle)) is not None:
            number += 1
            board = game.board()
            for move in (None, *game.mainline_moves()):
                if move is not None:
                    board.push(move)
                boards = tuple(board.pieces_mask(kind, color) for color in (chess.WHITE, chess.BLACK)
                               for kind in (chess.KING, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT,
                                            chess.PAWN))
                for image in images(boards, transform):
                    table.setdefault((board.turn == chess.WHITE, image), number)
    return table


@evaluates(ast.SimilarPosition)
def similarposition(ev: Evaluator, node: ast.SimilarPosition, pos: Position) -> object:
    """The number of the first submissions game with a position similar to ``pos`` (None: none)."""
    table = ev.fact("similarposition", node, lambda n: _load(ev, n))
    return table.get((pos.wtm, tuple(pos.bitboards)))


def _load(ev: Evaluator, node: ast.SimilarPosition) -> dict[tuple, int]:
    if not ev.allow_files:
        raise CqlError("'similarposition' reads a file, which is off here: allow it with allow_files=True "
                       "(the command line allows it)", ev.query.text, node.span, ev.query.source)
    try:
        return submissions(Path(node.path), node.transform)
    except OSError as error:
        raise CqlError(f"'similarposition' cannot read {node.path!r}: {error.strerror or error}", ev.query.text,
                       node.span, ev.query.source) from None
