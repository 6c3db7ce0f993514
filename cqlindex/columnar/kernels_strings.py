"""Piece names on columns: ``typename``, ``piecename`` and the one-letter strings they are compared with.

``piecename Piece == source:piecename up 1 Piece`` (chameleon echoes) compares the letters of
pieces: one letter each, or ``_`` on an empty square, as :mod:`cqlindex.filters.strings.pieces`
gives them. A one-letter string is held as its code point, and ``""`` as 0, so equality and
order are those of the strings (one letter against another, or against nothing). Longer strings,
and what joins or searches strings, stay with the tree-walker (:mod:`cqlindex.columnar.support`).
"""

from __future__ import annotations

import numpy as np

from cqlindex.columnar.engine import Columnar, Ctx, kernel
from cqlindex.columnar.values import SET, STR, NotColumnar, Val, number, one_square
from cqlindex.cql import ast

#: The letter of each of the frame's boards, in their order (K Q R B N P k q r b n p), then the
#: empty square's: a mailbox entry (-1 when empty) indexes it straight.
_LETTERS = {"piecename": np.array([ord(c) for c in "KQRBNPkqrbnp_"], np.int64),
            "typename": np.array([ord(c) for c in "KQRBNPKQRBNP_"], np.int64)}
#: The names :func:`piece_name` answers, and ``pieceid`` (:func:`piece_id`).
NAMES = ("typename", "piecename", "pieceid")


def code(text: str) -> int | None:
    """A string literal as this kind holds it, None when it is longer than one letter."""
    return ord(text) if len(text) == 1 else 0 if not text else None


@kernel(ast.String)
def string(cm: Columnar, node: ast.String, ctx: Ctx) -> Val:
    value = code(node.value)
    if value is None:
        raise NotColumnar(node, "a string longer than one letter")
    return Val(STR, np.full(len(ctx), value, np.int64), np.ones(len(ctx), bool))


def piece_name(cm: Columnar, node: ast.Call, ctx: Ctx) -> Val:
    """The letter on the one square of the argument (``typename``: in upper case), ``_`` if empty."""
    value = cm.eval(node.args[0], ctx)
    if value.kind != SET:
        return Val(STR, np.zeros(len(ctx), np.int64), np.zeros(len(ctx), bool))
    square, ok = one_square(value)
    return Val(STR, _LETTERS[node.name][cm.frame.mailbox[ctx.rows, square]], ok)


def piece_id(cm: Columnar, node: ast.Call, ctx: Ctx) -> Val:
    """The piece on the one square of the argument, named by the square it stood on at the
    game's root (:attr:`cqlindex.columnar.frame.Frame.piece_ids`); none on an empty square."""
    value = cm.eval(node.args[0], ctx)
    if value.kind != SET:
        return number(np.zeros(len(ctx), np.int64), np.zeros(len(ctx), bool))
    square, ok = one_square(value)
    try:
        ids = cm.frame.piece_ids
    except LookupError:
        raise NotColumnar(node, "an index without the castling rook squares") from None
    piece = ids[ctx.rows, square].astype(np.int64)
    return number(piece, ok & (piece >= 0))
