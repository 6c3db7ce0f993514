"""A square or piece iteration over a few fixed squares, decided in SQL one square at a time.

Why: ``piece x in N & a-h4-6 { not (p & up 1 7 (diagonal 1 x & up 1 x)) }`` (p26 of the
patterns, an outpost) asks of each knight a question about its square alone, which SQL answers
exactly once the square is a constant: the directions fold to a fixed mask. As an upper bound
the iteration kept 4.2 M positions (every one a match) for the columnar engine to confirm. Where
the domain lies within at most :data:`UNROLLED_AT_MOST` squares known when planning, the
iteration holds exactly where, for some square s of those, the domain holds s and the body holds
with the variable standing for s: an OR over the squares, those whose body is the same SQL
sharing one term. Only where the body is exact for every square; at another position a piece
variable follows its piece and a square variable is not a constant to the SQL, so a body that
looks there is not exact and is left to the upper bound.
"""

from __future__ import annotations

from sqlglot import exp

from cqlindex.cql import ast
from cqlindex.plan import sql as S
from cqlindex.plan.terms import Cond, Row, SetTerm, const

#: Squares an iteration is unrolled over at most: each is a copy of the body's SQL (those alike
#: share one): a rank band, a-h4-6, is 24.
UNROLLED_AT_MOST = 24
#: Distinct bodies an unrolled iteration may have, each a term of the plan's OR. More do not pay:
#: the outpost ``not (p & up (diagonal 1 x))`` over a-h4-6, 24 bodies under flipcolor, took
#: 1.06-1.16 s on the whole gnuchess file where its upper bound and the columnar engine took
#: 0.86-1.09 s; p26's body is one mask for every square (0.84 s against 1.14).
DISTINCT_AT_MOST = 4


class LoopsSQL:
    """The unrolled iterations' SQL (a mixin of :class:`cqlindex.plan.compile.Compiler`)."""

    __slots__ = ()

    def _unrolled(self, node: ast.Iterate, domain: SetTerm, row: Row) -> Cond | None:
        """The iteration decided square by square (see the module), or None."""
        squares = _squares(node, domain)
        if (squares is None or not squares or squares.bit_count() > UNROLLED_AT_MOST or domain.sql is None
                or not domain.exact):
            return None
        groups: dict[str, tuple[int, exp.Expression | None]] = {}
        saved = self.bindings.get(node.var)
        try:
            for square in _each(squares):
                self.bindings[node.var] = (row.alias, const(1 << square), node.domain, node.kind)
                body = self.cond(node.body, row)
                if not body.exact:
                    return None
                if body.sql is not None and _false(body.sql):
                    continue
                key = S.key(body.sql) if body.sql is not None else ""
                held, _ = groups.get(key, (0, None))
                groups[key] = (held | 1 << square, body.sql)
                if len(groups) > DISTINCT_AT_MOST:
                    return None
        finally:
            if saved is None:
                self.bindings.pop(node.var, None)
            else:
                self.bindings[node.var] = saved
        if not groups:
            return Cond(S.false(), True)
        terms = [S.both(S.nonzero(S.band(domain.sql, S.mask(held))), body) for held, body in groups.values()]
        return Cond(S.either(*terms), True)


def _squares(node: ast.Iterate, domain: SetTerm) -> int | None:
    """The squares the iteration's variable can stand on, known when planning, or None."""
    if domain.const is not None:
        return domain.const
    return _within(node.domain)


def _within(node: ast.Node) -> int | None:
    """Squares the set ``node`` lies within whatever the position, where its designators say
    (``N & a-h4-6``), else None."""
    if isinstance(node, ast.Pieces):
        return node.squares
    if isinstance(node, ast.Binary) and node.op in ("&", "|"):
        left, right = _within(node.left), _within(node.right)
        if node.op == "|":
            return left | right if left is not None and right is not None else None
        if left is None or right is None:
            return right if left is None else left
        return left & right
    return None


def _each(squares: int):
    while squares:
        low = squares & -squares
        yield low.bit_length() - 1
        squares ^= low


def _false(sql: exp.Expression) -> bool:
    return isinstance(sql, exp.Boolean) and not sql.this
