"""The SQL of transforms: the union (or count) of the members.

Methods of :class:`cqlindex.plan.compile.Compiler`, mixed in.
"""

from __future__ import annotations

from sqlglot import exp

from cqlindex.cql import ast
from cqlindex.plan import sql as S
from cqlindex.plan.terms import RESIDUAL, TRUE, UNBOUNDED, Cond, NumTerm, Row, SetTerm, any_of, const



class TransformsSQL:
    """The transforms family's SQL."""

    __slots__ = ()

    def _cond_transform(self, node: ast.Transform, row: Row) -> Cond:
        if not isinstance(node.low, (int, type(None))) or not isinstance(node.high, (int, type(None))):
            return RESIDUAL  # a bound held in a variable ('N = 2 rotate90 N F') is known only when evaluating
        if node.low is not None:
            return self._ranged_transform(node, row)
        if node.count:
            return TRUE  # a count is a number, 0 included: it always has a value
        parts = [self.cond(member, row) for member in self.expansions(node)]
        if not parts:
            return Cond(S.false(), True)  # every member fell off the board
        return any_of(parts)

    def _ranged_transform(self, node: ast.Transform, row: Row) -> Cond:
        """``T m n F``: the count of matching members in the range; when a member is not exact,
        only ``m >= 1`` narrows (some member must match)."""
        count = self._member_count(node, row)
        if count is not None:
            return Cond(exp.Between(this=count, low=S.num(node.low), high=S.num(node.high)), True)
        if node.low >= 1:
            parts = [self.cond(member, row) for member in self.expansions(node)]
            if not parts:
                return Cond(S.false(), True)
            return Cond(any_of(parts).sql, False)
        return Cond(None, False)

    def _set_transform(self, node: ast.Transform, row: Row) -> SetTerm:
        if node.count or node.low is not None:
            return UNBOUNDED
        terms = [self.set(member, row) for member in self.expansions(node)]
        if not terms or any(t.sql is None and t.const is None for t in terms):
            return UNBOUNDED
        if all(t.const is not None for t in terms):
            out = 0
            for t in terms:
                out |= t.const
            return const(out)
        return SetTerm(S.bor(*(t.sql for t in terms)), all(t.exact for t in terms))

    def _num_transform(self, node: ast.Transform, row: Row) -> NumTerm | None:
        if not node.count and node.low is None:
            return None
        if not isinstance(node.low, (int, type(None))) or not isinstance(node.high, (int, type(None))):
            return None
        count = self._member_count(node, row)
        if count is None or node.low is None:
            return None if count is None else NumTerm(count)
        inside = exp.Between(this=count, low=S.num(node.low), high=S.num(node.high))
        return NumTerm(exp.Case(ifs=[exp.If(this=inside, true=count)]), nullable=True)  # NULL outside the range

    def _member_count(self, node: ast.Transform, row: Row) -> exp.Expression | None:
        """How many members match, in SQL, when every member is decided exactly."""
        parts = [self.cond(member, row) for member in self.expansions(node)]
        if not all(p.exact for p in parts):
            return None
        total: exp.Expression = S.num(0)
        for part in parts:
            hit = S.definite(part.sql) if part.sql is not None else S.true()
            total = exp.Add(this=total, expression=exp.Case(ifs=[exp.If(this=hit, true=S.num(1))], default=S.num(0)))
        return S.paren(total)
