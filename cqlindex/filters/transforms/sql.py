"""The SQL of transforms: the union (or count) of the members.

Methods of :class:`cqlindex.plan.compile.Compiler`, mixed in.
"""

from __future__ import annotations

from dataclasses import replace

from sqlglot import exp

from cqlindex.cql import ast
from cqlindex.plan import sql as S
from cqlindex.plan.terms import ALL_SQUARES, RESIDUAL, TRUE, UNBOUNDED, Cond, NumTerm, Row, SetTerm, any_of, const



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
        translated = self._translated(node, row)
        if translated is not None:
            return translated
        parts = [self.cond(member, row) for member in self.expansions(node)]
        if not parts:
            return Cond(S.false(), True)  # every member fell off the board
        return any_of(parts)

    def _translated(self, node: ast.Transform, row: Row) -> Cond | None:
        """A transform whose members are one pattern of one-square designators moved about the
        board (``shift {Qd4 [Aa]e4 qf4}``: 40-odd members of three squares each) as one test of
        shifted boards: some square s, among the places the pattern's lowest square takes, holds
        the first designator's piece with the others' pieces at their distances from it. Each
        designator's board shifted right by its distance, ANDed with the rest and those places,
        is not empty exactly where some member matches, since every place keeps every square of
        the pattern on the board (it is a member's). Qq-rotations-90-degree.cql's 2,600 lines
        of SQL were its four rotations' members written out. None where the members are
        anything else."""
        members = self.expansions(node)
        pattern = _pattern(members[0]) if members else None
        if pattern is None or len(pattern) < 2:
            return None
        letters = [pieces for pieces, _ in pattern]
        low = min(range(len(pattern)), key=lambda i: pattern[i][1])
        gaps = [square - pattern[low][1] for _, square in pattern]
        places = 0
        for member in members:
            found = _pattern(member)
            if found is None or [pieces for pieces, _ in found] != letters:
                return None
            if [square - found[low][1] for _, square in found] != gaps:
                return None
            places |= 1 << found[low][1]
        term: exp.Expression = S.mask(places)
        for item, gap in zip(members[0].items, gaps):
            board = self.set(replace(item, squares=ALL_SQUARES, text=""), row)  # its pieces anywhere
            if board.sql is None or not board.exact:
                return None
            shifted = board.sql if not gap else S.band(exp.BitwiseRightShift(this=S.paren(board.sql), expression=S.num(gap)),
                                                      S.mask((1 << (64 - gap)) - 1))  # the sign's copies cleared
            term = S.band(term, shifted)
        return Cond(S.nonzero(term), True)

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


def _pattern(member: ast.Node) -> list[tuple[frozenset[str], int]] | None:
    """(pieces, square) of each item of ``member`` where it is a compound of designators of one
    square each (two or more), else None."""
    items = member.items if isinstance(member, ast.Compound) else None
    if not items or len(items) < 2:
        return None
    out = []
    for item in items:
        if not isinstance(item, ast.Pieces) or item.squares.bit_count() != 1:
            return None
        out.append((item.pieces, item.squares.bit_length() - 1))
    return out
