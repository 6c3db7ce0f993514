"""The SQL of position flags and numbers: columns of the row: methods of :class:`cqlindex.plan.compile.Compiler`, mixed in."""

from __future__ import annotations


from sqlglot import exp

from cqlindex.cql import ast
from cqlindex.cql.kinds import NUMBER, SET, kind_of
from cqlindex.plan import sql as S
from cqlindex.plan.terms import RESIDUAL, TRUE, Cond, NumTerm, Row

_FLAG_COLUMNS = {"check": "is_check", "mate": "is_mate", "stalemate": "is_stalemate", "wtm": "wtm",
                 "mainline": "mainline"}
_NUMBER_COLUMNS = {"ply": "ply", "movenumber": "movenumber", "depth": "depth", "positionid": "positionid",
                   "gamenumber": "gamenumber"}


class PositionSQL:
    """The position family's SQL."""

    __slots__ = ()

    def _cond_keyword(self, node: ast.Keyword, row: Row) -> Cond:
        name, a = node.name, row.alias
        if name in _FLAG_COLUMNS:
            return Cond(S.col(_FLAG_COLUMNS[name], a), True)
        if name == "btm":
            return Cond(S.negate(S.col("wtm", a)), True)
        if name == "variation":
            return Cond(S.negate(S.col("mainline", a)), True)
        if name in ("true", "currentposition", "initialposition"):
            return TRUE
        if name == "false":
            return Cond(S.false(), True)
        if name in ("initial", "parent"):
            cond = S.cmp("==" if name == "initial" else ">", S.col("positionid", a), S.num(0))
            return Cond(cond, True)
        if name in ("terminal", "child"):
            if row.linear:
                return RESIDUAL  # a line constituent sees only the line's next position as a child
            return Cond(S.cmp("==" if name == "terminal" else ">", S.col("children", a), S.num(0)), True)
        if name in ("to", "from"):
            return Cond(S.not_null(S.col("move_to", a)), True)
        # Only inside a dash's target: the kind of move that led to this row.
        if name in ("o-o", "o-o-o"):
            return Cond(S.definite(exp.EQ(this=S.col("castle", a), expression=S.num(1 if name == "o-o" else 2))),
                        True)
        if name == "castle":
            return Cond(S.not_null(S.col("castle", a)), True)
        if name == "enpassant":
            return Cond(S.definite(S.col("en_passant", a)), True)
        if kind_of(node) == NUMBER:
            return self._num_cond(self.num(node, row))
        if kind_of(node) == SET:
            return self._set_cond(self.set(node, row))
        return RESIDUAL

    def _num_keyword(self, node: ast.Keyword, row: Row) -> NumTerm | None:
        if node.name in _NUMBER_COLUMNS:
            return NumTerm(S.col(_NUMBER_COLUMNS[node.name], row.alias))
        if node.name == "sidetomove":
            return NumTerm(exp.Case(ifs=[exp.If(this=S.col("wtm", row.alias), true=S.num(1))], default=S.num(-1)))
        if node.name in ("white", "black"):
            value = 1 if node.name == "white" else -1
            return NumTerm(S.num(value), const=value)
        return None
