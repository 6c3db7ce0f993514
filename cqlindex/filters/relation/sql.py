"""The SQL of ``relation``: a self-join on the game that keeps only sources with a possible target.

Methods of :class:`cqlindex.plan.compile.Compiler`, mixed in. SQL never decides a relation (the
evaluator compares the boards); it narrows soundly with conditions every target must meet:

* another row of the same game (of the main line when variations are off);
* the side to move, for ``(tomove match|mismatch)``;
* the target filters, compiled at the target row, when they have SQL;
* for a square parameter over the whole board (no sourcesquares, no targetsquares) whose
  mismatches are bounded by M < 64: the 12 piece counts of source and target are at L1 distance
  at most 2M (each mismatched square changes at most two counts, and a shift's superboard keeps
  every piece in the comparison), so M = 0 means equal material; without an echo keyword and
  M = 0 the boards are identical;
* for a full-board shift with no mismatch (every piece moves by the same offset and none leaves
  the board): the black king's square minus the white king's is the same in source and target,
  when each side has exactly one king.

:func:`narrowing` says the same in words for ``--explain``.
"""

from __future__ import annotations

from sqlglot import exp

from cqlindex.cql import ast
from cqlindex.filters.relation import checked_early
from cqlindex.plan import sql as S
from cqlindex.plan.terms import PIECE_COLUMNS, Cond, Row


def narrowing(node: ast.Relation, variations: bool) -> list[str]:
    """What the SQL of ``node`` requires of a target, in words."""
    from cqlindex.filters.relation.echoes import full_board_limit, is_exact_image, is_shift  # numpy: when used

    said = [f"another position of the game ({'any line' if variations else 'main line'})"]
    for param in node.params[:checked_early(node)]:
        if param.tomove is not None:
            said.append(f"{'the same' if param.tomove == 'match' else 'the other'} side to move")
        limit = full_board_limit(param)
        if limit == 0 and param.echo is None:
            said.append("the same board")
        elif limit == 0:
            said.append(f"the same material ({param.echo} with no mismatch)")
            if is_shift(param.echo) and is_exact_image(param):
                said.append("the kings as far apart (a shift)")
        elif limit is not None:
            said.append(f"piece counts within {2 * limit} in all ({param.echo or 'the identity'}, "
                        f"at most {limit} mismatches)")
    if node.targets:
        said.append("the target filters where SQL has them")
    return said


class RelationSQL:
    """The relation family's SQL."""

    __slots__ = ()

    def _cond_relation(self, node: ast.Relation, row: Row) -> Cond:
        from cqlindex.filters.relation.echoes import full_board_limit, is_exact_image, is_shift  # numpy: when used

        here, there = row.alias, self._other()
        link = exp.NEQ(this=S.col("positionid", there), expression=S.col("positionid", here))
        if not self.variations:
            link = S.both(link, S.col("mainline", there))
        for param in node.params[:checked_early(node)]:
            if param.tomove is not None:
                op = "==" if param.tomove == "match" else "!="
                link = S.both(link, S.cmp(op, S.col("wtm", there), S.col("wtm", here)))
            limit = full_board_limit(param)
            if limit == 0 and param.echo is None:
                for name in PIECE_COLUMNS:
                    link = S.both(link, exp.EQ(this=S.col(name, there), expression=S.col(name, here)))
            elif limit == 0:
                for name in PIECE_COLUMNS:
                    link = S.both(link, exp.EQ(this=S.popcount(S.col(name, there)),
                                               expression=S.popcount(S.col(name, here))))
                if is_shift(param.echo) and is_exact_image(param):
                    link = S.both(link, exp.NullSafeEQ(this=_king_offset(there), expression=_king_offset(here)))
            elif limit is not None:
                distance = None
                for name in PIECE_COLUMNS:
                    term = exp.Abs(this=exp.Sub(this=S.popcount(S.col(name, there)),
                                                expression=S.popcount(S.col(name, here))))
                    distance = term if distance is None else exp.Add(this=distance, expression=term)
                link = S.both(link, S.cmp("<=", distance, S.num(2 * limit)))
        for target in node.targets:
            link = S.both(link, self.cond(target, Row(there)).sql)
        return Cond(self._exists(there, link, None, row), False)


def _square_of(bitboard: exp.Expression) -> exp.Expression:
    """The square of a one-square bitboard (h8 is the sign bit), without shifting bits in SQL."""
    return exp.Case(ifs=[exp.If(this=S.cmp("<", bitboard, S.num(0)), true=S.num(63))],
                    default=S.popcount(exp.Sub(this=bitboard, expression=S.num(1))))


def _king_offset(alias: str) -> exp.Expression:
    """Black king's square minus White's where each side has one king, else NULL: a shift that
    keeps every piece on the board moves both kings by the same number of squares."""
    white, black = S.col("wk", alias), S.col("bk", alias)
    single = S.both(exp.EQ(this=S.popcount(white), expression=S.num(1)),
                    exp.EQ(this=S.popcount(black), expression=S.num(1)))
    return exp.Case(ifs=[exp.If(this=single, true=exp.Sub(this=_square_of(black), expression=_square_of(white)))])
