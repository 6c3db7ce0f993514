"""The SQL of ':', find and echo: other rows of the game.

Methods of :class:`cqlindex.plan.compile.Compiler`, mixed in.
"""

from __future__ import annotations

from sqlglot import exp

from cqlindex.cql import ast
from cqlindex.plan import sql as S
from cqlindex.plan.terms import RESIDUAL, Cond, NumTerm, Row



class TreeSQL:
    """The tree family's SQL."""

    __slots__ = ()

    def _cond_colon(self, node: ast.Colon, row: Row) -> Cond:
        target = node.position
        a = row.alias
        link: exp.Expression | None = None
        if isinstance(target, ast.Keyword):
            if target.name == "currentposition":
                return self.cond(node.body, row)
            if target.name == "parent":
                link = exp.EQ(this=S.col("positionid", "{b}"), expression=S.col("parent", a))
            elif target.name == "initialposition":
                link = exp.EQ(this=S.col("positionid", "{b}"), expression=S.num(0))
            elif target.name == "child" and not row.linear:
                link = S.both(exp.EQ(this=S.col("parent", "{b}"), expression=S.col("positionid", a)),
                              exp.EQ(this=S.col("child_index", "{b}"), expression=S.num(0)))
        elif isinstance(target, ast.ChildN):
            index = self.num(target.index, row)
            if index is not None and index.const is not None:
                n = index.const
                if target.name == "child" and not row.linear:
                    if n < 0 or (n > 0 and not self.variations):
                        return Cond(S.false(), True)
                    link = S.both(exp.EQ(this=S.col("parent", "{b}"), expression=S.col("positionid", a)),
                                  exp.EQ(this=S.col("child_index", "{b}"), expression=S.num(n)))
                elif target.name == "position":
                    link = exp.EQ(this=S.col("positionid", "{b}"), expression=S.num(n))
                    if not self.variations:
                        link = S.both(link, S.col("mainline", "{b}"))
        if link is None:
            return self._game_level(node.body, row)
        alias = self._other()
        link = link.transform(lambda e: S.col(e.name, alias) if isinstance(e, exp.Column) and e.table == "{b}"
                              else e)
        body = self.cond(node.body, Row(alias))
        return Cond(self._exists(alias, link, body.sql, row), body.exact)

    def _cond_childn(self, node: ast.ChildN, row: Row) -> Cond:
        return self._cond_colon(ast.Colon(node.span, node, ast.Keyword(node.span, "true")), row)

    def _cond_find(self, node: ast.Find, row: Row) -> Cond:
        if node.low is not None and node.low < 1:
            return RESIDUAL
        alias = self._other()
        body = self.cond(node.body, Row(alias))
        if body.sql is None:
            return RESIDUAL
        if not body.exact:
            where = body.sql if self.variations else S.both(S.col("mainline", alias), body.sql)
            self.prefilters.append((node.body, exp.select(S.col("gamenumber", alias), S.col("positionid", alias))
                                    .from_(exp.to_table("positions").as_(alias)).where(where)))
        plain = node.low is None  # 'find F' and 'find all F' match where F holds at least once
        here = S.col("positionid", row.alias)
        there = S.col("positionid", alias)
        if not self.variations:
            # Main line: the positions after (before) this one are the ids above (below) it.
            where = S.both(S.both(exp.EQ(this=S.col("gamenumber", alias), expression=S.col("gamenumber", row.alias)),
                                  S.col("mainline", alias)), body.sql)
            agg = exp.func("min" if node.backward else "max", there)
            bound = exp.Subquery(this=exp.select(agg).from_(exp.to_table("positions").as_(alias)).where(where))
            sql = S.definite(S.cmp("<=" if node.backward else ">=", bound, here))
            return Cond(sql, plain and body.exact)
        if node.backward:  # ancestors have lower ids; not every lower id is an ancestor
            where = S.cmp("<=", there, here)
            return Cond(self._exists(alias, where, body.sql, row), False)
        where = exp.Between(this=there, low=here, high=S.col("last_descendant", row.alias))
        return Cond(self._exists(alias, where, body.sql, row), plain and body.exact)

    def _num_find(self, node: ast.Find, row: Row) -> NumTerm | None:
        if not node.all:
            return None
        alias = self._other()
        body = self.cond(node.body, Row(alias))
        if body.sql is None:
            return None
        where = S.both(exp.EQ(this=S.col("gamenumber", alias), expression=S.col("gamenumber", row.alias)), body.sql)
        if not self.variations:
            where = S.both(where, S.col("mainline", alias))
        hits = exp.Subquery(this=exp.select(exp.func("count", exp.Star())).from_(
            exp.to_table("positions").as_(alias)).where(where))
        return NumTerm(hits, exact=False)  # every position of the game bounds the ones searched

    def _cond_echo(self, node: ast.Echo, row: Row) -> Cond:
        return self._game_level(node.body, row)
