"""The SQL of position flags and numbers (columns of the row, declared beside).

Methods of :class:`cqlindex.plan.compile.Compiler`, mixed in.
"""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.cql.kinds import LOGICAL, NUMBER, SET, kind_of
from cqlindex.filters import catalogue
from cqlindex.plan import sql as S
from cqlindex.plan.terms import RESIDUAL, TRUE, Cond, NumTerm, Row

#: The facts declared with their SQL (this family's, and the dash target's move kinds).
_FACTS = {decl.name: decl for decl in catalogue.declarations() if decl.node is ast.Keyword and decl.sql_of}


class PositionSQL:
    """The position family's SQL."""

    __slots__ = ()

    def _cond_keyword(self, node: ast.Keyword, row: Row) -> Cond:
        name, a = node.name, row.alias
        fact = _FACTS.get(name)
        if fact is not None and fact.kind == LOGICAL:
            sql = fact.sql_of(a)
            return TRUE if sql is None else Cond(sql, True)
        if name in ("currentposition", "initialposition"):
            return TRUE
        if name == "parent":
            return Cond(S.cmp(">", S.col("positionid", a), S.num(0)), True)
        if name in ("terminal", "child"):
            if row.linear:
                return RESIDUAL  # a line constituent sees only the line's next position as a child
            return Cond(S.cmp("==" if name == "terminal" else ">", S.col("children", a), S.num(0)), True)
        if name in ("to", "from"):  # a null move's are its king's square (moves/python.py)
            return Cond(S.either(S.not_null(S.col("move_to", a)), S.definite(S.col("null_move", a))), True)
        from cqlindex.filters.position.matepatterns import NAMES as MATE_PATTERNS  # python-chess: when used

        if name in MATE_PATTERNS:  # narrowed to the mates (stalemates) the build flagged
            return Cond(S.col("is_stalemate" if name.endswith("stalemate") else "is_mate", a), False)
        if kind_of(node) == NUMBER:
            return self._num_cond(self.num(node, row))
        if kind_of(node) == SET:
            return self._set_cond(self.set(node, row))
        return RESIDUAL

    def _num_keyword(self, node: ast.Keyword, row: Row) -> NumTerm | None:
        fact = _FACTS.get(node.name)
        if fact is None or fact.kind != NUMBER:
            return None
        sql = fact.sql_of(row.alias)
        if isinstance(sql, int):
            return NumTerm(S.num(sql), const=sql)
        return NumTerm(sql)
