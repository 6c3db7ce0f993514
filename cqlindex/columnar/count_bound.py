"""``#(A attacks Z) >= n`` (or ``>``, ``==``, either way round): the exact count only where the
pieces that could reach Z are enough.

The exact attackers of a set of squares slide rooks, bishops and queens along their lines by
fills, a dozen passes over each board of the frame; but a piece can attack Z only from where
its kind reaches it, and for knights, kings and pawns that is a few shifts of Z. Counting
every slider of A and only the knights, kings and pawns in reach bounds the count from above,
so where the bound is below n the comparison is false and no fill is run. p24 of the
patterns (``#(A attacks (. attackedby k)) >= 6``, a king zone under fire): the bound leaves a
few percent of the 10.5 M candidate rows to the fills.
"""

from __future__ import annotations

import numpy as np

from cqlindex.columnar import bitboards as B
from cqlindex.columnar.engine import Columnar, Ctx
from cqlindex.columnar.values import SET, Val, matched
from cqlindex.cql import ast

#: By the operator seen from the count: how far above n the count must be for the comparison to hold.
_ABOVE = {">=": 0, ">": 1, "==": 0}
_MIRROR = {"<=": ">=", "<": ">", "==": "=="}


def bounded_count(cm: Columnar, node: ast.Compare, ctx: Ctx) -> Val | None:
    """``node`` at every row of ``ctx``, its sets evaluated once and the attackers found by fills
    only where the bound allows; None where ``node`` is not such a comparison (or its sets read
    variables, or change something)."""
    if len(node.operands) != 2:
        return None
    op = node.ops[0].strip("[]")
    count, bound = node.operands
    if isinstance(count, ast.Number):
        count, bound, op = bound, count, _MIRROR.get(op)
    if op not in _ABOVE or not isinstance(bound, ast.Number):
        return None
    if not (isinstance(count, ast.Unary) and count.op == "#" and isinstance(count.arg, ast.Binary)
            and count.arg.op == "attacks" and cm.reads_position_only(count.arg)):
        return None
    from cqlindex.columnar.kernels_sets import attackers_of, kinds

    attackers, targets = cm.eval(count.arg.left, ctx), cm.eval(count.arg.right, ctx)
    if attackers.kind != SET or targets.kind != SET:
        return None
    kings, queens, rooks, bishops, knights, white_pawns, black_pawns, _ = kinds(cm, ctx.rows)
    z = targets.data
    reach = queens | rooks | bishops
    reach |= knights & B.knight_attacks(z)
    reach |= kings & B.king_attacks(z)
    reach |= white_pawns & B.black_pawn_attacks(z)  # a white pawn attacks from where a black one is attacked
    reach |= black_pawns & B.white_pawn_attacks(z)
    need = bound.value + _ABOVE[op]
    may = np.flatnonzero((np.bitwise_count(attackers.data & reach) >= need) & attackers.ok & targets.ok)
    exact = np.bitwise_count(attackers.data[may] & attackers_of(cm, ctx.rows[may], z[may])).astype(np.int64)
    holds = np.zeros(len(ctx), bool)
    holds[may] = exact == bound.value if op == "==" else exact >= need
    return matched(holds)
