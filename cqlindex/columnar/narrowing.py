"""Where an iteration's body can hold at all, found once per position before the iteration
makes one row per square of its domain.

``piece x in [qrbnp] { pin through x ... }`` makes a row for every piece of every position, and
nearly all of them fail at the body's first member. Where a member holds for a square x exactly
when x lies in a set that depends on the position alone (``pin through x``: x is a pinned piece;
``x attackedby A``: x is among A's attacks), that set is found at the iteration's own rows and
the domain narrowed to it first. The squares dropped are squares where the body fails (every
member must hold, and the members before it change nothing), so the iteration's value is the same.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cqlindex.cql import ast
from cqlindex.cql.by_type import registry

#: Node type -> (cm, node, variable) -> None where the rule does not apply to ``node``, else a
#: function of a context giving, per row, the squares outside which ``node`` fails with the
#: variable bound to one of them. Deciding first and computing after, an iteration whose body no
#: rule takes pays nothing.
_RULES: dict[type, Callable[..., "Callable[..., np.ndarray] | None"]] = {}
#: ``@narrows(ast.X)``: the decorated function is X's rule.
narrows = registry(_RULES)


def narrowing(cm, body: ast.Node, var: str) -> Callable[..., np.ndarray] | None:
    """A function of a context giving, per row, a set of squares outside which ``body`` fails
    with ``var`` bound to one square (a set iteration's variable), from the first member of
    ``body`` that a rule takes; None where none does. Members after one with an effect are not
    looked at: they may read what it did."""
    for member in body.items if isinstance(body, ast.Compound) else (body,):
        rule = _RULES.get(type(member))
        found = rule(cm, member, var) if rule is not None else None
        if found is not None:
            return found
        if cm._reads(member) is None:
            return None
    return None


#: (operator, constant on the right) -> the least constant for which ``#X op constant`` needs X
#: not empty (the constant on the left: the operator read the other way).
_NONEMPTY_FROM = {">=": 1, ">": 0, "==": 1}
_FLIPPED = {"<=": ">=", "<": ">", "==": "=="}


@narrows(ast.Compare)
def _counted(cm, node: ast.Compare, var: str):
    """``#X >= 1``, ``#X > 0``, ``#X == 2``... hold only where X has a square: X's rule, if it has one
    (p07's ``#(A attacks s) >= 3``: s among A's attacks)."""
    if len(node.operands) != 2:
        return None
    left, right = node.operands
    op = node.ops[0]
    if isinstance(left, ast.Number):
        left, right, op = right, left, _FLIPPED.get(op)
    least = _NONEMPTY_FROM.get(op)
    if (least is None or not isinstance(right, ast.Number) or right.value < least
            or not (isinstance(left, ast.Unary) and left.op == "#")):
        return None
    rule = _RULES.get(type(left.arg))
    return rule(cm, left.arg, var) if rule is not None else None
