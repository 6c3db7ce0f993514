"""Where a piece variable stands along a main-line chain, from the moves the chain makes it play.

Why: at a position other than its binding one, the SQL knows of a piece variable only its kind
and colour (every white knight for ``piece x in N``), so ``piece x in N { line --> (move from x
--> .){4,} }`` (p13 of the patterns) kept every game where white knights moved four times in a
row, any of them: 24,900 of the whole file's games for 12,700 that match. Along a chain of
main-line positions the moves say more: where step k plays ``move from x`` and so does step k+2,
the second move starts where the first ended (the move between is the other side's, which can
take x but not move it). That is a condition every match satisfies, so added to the chain's SQL
it keeps it a necessary condition, and an exact one exact (:mod:`cqlindex.plan.offsets`).

A castling move or a null move stores the king's squares, not necessarily the piece's, so the
condition holds wherever either move is one.
"""

from __future__ import annotations

from sqlglot import exp

from cqlindex.cql import ast
from cqlindex.plan import sql as S


def followed_moves(filters: list[ast.Node], bindings: dict) -> list[tuple[int, int]]:
    """The pairs (k, k + 2) of a chain's steps that both play a move of the same piece variable."""
    moved = [set(moved_pieces(item, bindings)) for item in filters]
    return [(k, k + 2) for k in range(len(filters) - 2) if moved[k] & moved[k + 2]]


def moved_pieces(item: ast.Node, bindings: dict) -> list[str]:
    """The piece variables ``item`` says the move played from its position moves (``move from
    x``, ``x--``, also as a member of a compound): each names a piece bound by an iteration."""
    members = item.items if isinstance(item, ast.Compound) else (item,)
    out = []
    for member in members:
        source = None
        if isinstance(member, ast.Move) and member.mode == "played":
            source = next((value for name, value in member.params if name == "from"), None)
        elif isinstance(member, ast.Dash) and member.mode == "played" and not member.target:
            source = member.left
        if isinstance(source, ast.Variable) and bindings.get(source.name, (None,) * 4)[3] == "piece":
            out.append(source.name)
    return out


def continued(first: str, second: str) -> exp.Expression:
    """The move into row ``second`` starts where the move into row ``first`` ended, or one of
    them is a castling move or a null move."""
    def odd(alias: str) -> exp.Expression:
        return S.either(S.not_null(S.col("castle", alias)), S.col("null_move", alias))

    return S.either(odd(first), odd(second), exp.EQ(this=S.col("move_to", first), expression=S.col("move_from", second)))
