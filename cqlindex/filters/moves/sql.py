"""The SQL of moves and dashes: the child row a move leads to.

Methods of :class:`cqlindex.plan.compile.Compiler`, mixed in.
"""

from __future__ import annotations

from sqlglot import exp

from cqlindex.cql import ast
from cqlindex.plan import sql as S
from cqlindex.plan.terms import RESIDUAL, TRUE, Cond, NumTerm, Row

#: python-chess's piece type numbers, written out: importing python-chess only for them slows start-up
_PROMOTION_TYPES = {"Q": 5, "R": 4, "B": 3, "N": 2}


class MovesSQL:
    """The moves family's SQL."""

    __slots__ = ()

    def _num_countmoves(self, node: ast.CountMoves, row: Row) -> NumTerm | None:
        """Counted in Python: the reference counts a promotion once (moves/python.py), while the stored
        ``legal_moves`` counts each piece it may promote to."""
        return None

    def _cond_countmoves(self, node: ast.CountMoves, row: Row) -> Cond:
        return TRUE  # a count, 0 included: it always has a value

    def _num_move(self, node: ast.Move, row: Row) -> NumTerm | None:
        """``move legal count`` alone is at most the stored number of legal moves: that number counts
        a promotion once per piece, the reference once per pawn step, so it bounds the count."""
        if node.mode == "legal" and [name for name, _ in node.params if name != "legal"] == ["count"]:
            return NumTerm(S.col("legal_moves", row.alias), exact=False)
        return None

    def _cond_move(self, node: ast.Move, row: Row) -> Cond:
        says = next((value for name, value in node.params if name == "comment"), None)
        if says is not None:
            self.python_needed.append(says)  # 'move comment (...)': the evaluator writes the text
        if any(name == "count" for name, _ in node.params):
            return TRUE  # a count, 0 included: it always has a value
        if node.mode == "legal" and not node.params:
            return Cond(S.cmp(">", S.col("legal_moves", row.alias), S.num(0)), True)
        if node.mode == "legal":
            sql = S.cmp(">", S.col("legal_moves", row.alias), S.num(0))
            if any(name == "enpassant" for name, _ in node.params):
                # An en passant capture needs the double step just played (not a set-up FEN's square).
                sql = S.both(sql, S.both(S.not_null(S.col("ep_square", row.alias)),
                                         S.cmp(">", S.col("positionid", row.alias), S.num(0))))
            return Cond(sql, False)
        if node.mode == "pseudolegal":
            return RESIDUAL
        alias = self._other()
        if node.mode == "previous":
            # The move that led here is on this row; its parameter sets are read at the parent.
            moved, before = row.alias, alias
            link = exp.EQ(this=S.col("positionid", alias), expression=S.col("parent", row.alias))
        else:
            moved, before = alias, row.alias
            link = self._child_link(alias, row)
        sql: exp.Expression | None = None
        exact = not (row.linear and node.mode == "played")
        b = Row(before, top=False)
        for name, value in node.params:
            if name in ("previous", "legal", "pseudolegal"):
                continue
            term = self._move_param(name, value, moved, b)
            if term is None:
                exact = False
                continue
            sql = S.both(sql, term.sql)
            exact = exact and term.exact
        return Cond(self._exists(alias, link, sql, row), exact)

    def _move_param(self, name: str, value: ast.Node | None, m: str, before: Row) -> Cond | None:
        col = lambda c: S.col(c, m)
        if name in ("from", "to", "capture", "enpassantsquare"):
            term = self.set(value, before)
            if term.sql is None:
                return None
            square = {"from": col("move_from"), "to": col("move_to"), "capture": _captured_square(m),
                      "enpassantsquare": col("move_to")}[name]
            sql = S.has(term.sql, square)
            if name in ("from", "to"):
                # A null move is its side's king moving to its own square (moves/python.py).
                sql = S.either(sql, S.both(col("null_move"), S.nonzero(S.band(term.sql, _passing_king(m)))))
            if name == "enpassantsquare":
                sql = S.both(col("en_passant"), sql)
            return Cond(sql, term.exact)
        if name == "promote":
            if not isinstance(value, ast.Pieces):
                return None
            types = sorted({_PROMOTION_TYPES[x.upper()] for x in value.pieces if x.upper() in _PROMOTION_TYPES})
            if not types:
                return Cond(S.false(), True)
            return Cond(exp.In(this=col("promotion"), expressions=[S.num(t) for t in types]), True)
        simple = {"enpassant": col("en_passant"), "null": col("null_move"),
                  "o-o": exp.EQ(this=col("castle"), expression=S.num(1)),
                  "o-o-o": exp.EQ(this=col("castle"), expression=S.num(2)),
                  "castle": S.not_null(col("castle")),
                  "primary": exp.EQ(this=col("child_index"), expression=S.num(0)),
                  "secondary": exp.GT(this=col("child_index"), expression=S.num(0))}
        if name in simple:
            return Cond(S.definite(simple[name]), True)
        return None

    def _cond_dash(self, node: ast.Dash, row: Row) -> Cond:
        if node.mode != "played":
            return _generated_dash(node, row)
        alias = self._other()
        before = Row(row.alias)
        exact = not row.linear
        left = self.set(node.left, before) if node.left is not None else None
        right = self.set(node.right, before) if node.right is not None else None
        for term in (left, right):
            if term is not None and not term.exact:
                exact = False
        c = lambda name: S.col(name, alias)
        target = _captured_square(alias) if node.capture else c("move_to")
        normal: exp.Expression | None = None
        if left is not None and left.sql is not None:
            normal = S.both(normal, S.has(left.sql, c("move_from")))
        if node.capture:
            normal = S.both(normal, S.not_null(target))
        if right is not None and right.sql is not None:
            normal = S.both(normal, S.has(right.sql, target))
        if node.promote is not None:
            types = sorted({_PROMOTION_TYPES[x.upper()] for x in node.promote if x.upper() in _PROMOTION_TYPES})
            normal = S.both(normal, exp.In(this=c("promotion"), expressions=[S.num(t) for t in types])
                            if types else S.false())
        if node.promote_by is not None:  # '--=T': some promotion; which one, Python says
            normal = S.both(normal, S.not_null(c("promotion")))
            exact = False
        sql = normal
        if not node.capture and not node.promotes:
            # Castling also moves the rook: its squares are stored columns (Chess960 exact).
            rook = S.not_null(c("castle"))
            if left is not None and left.sql is not None:
                rook = S.both(rook, S.has(left.sql, c("rook_from")))
            if right is not None and right.sql is not None:
                rook = S.both(rook, S.has(right.sql, c("rook_to")))
            sql = S.either(normal, rook) if normal is not None else None
        bare = node.left is None and node.right is None and not node.capture and not node.promotes
        if not bare:  # a bare '--' is any move, the null move too
            sql = S.both(S.negate(c("null_move")), sql)
            if not node.capture and not node.promotes:
                # A null move is its side's king going to its own square (moves/python.py): 'K--'.
                passed = c("null_move")
                for term in (left, right):
                    if term is not None and term.sql is not None:
                        passed = S.both(passed, S.nonzero(S.band(term.sql, _passing_king(alias))))
                sql = S.either(sql, passed)
        if node.target:
            # '--(F ...)': the target holds at the child the move leads to, as a compound there.
            after = self._all(node.target, Row(alias))
            sql = S.both(sql, after.sql)
            exact = exact and after.exact
        return Cond(self._exists(alias, self._child_link(alias, row), sql, row), exact)


def _passing_king(alias: str) -> exp.Expression:
    """The bitboard of the king whose side made the move into row ``alias`` (for a null move: its square)."""
    return exp.Case(ifs=[exp.If(this=S.col("wtm", alias), true=S.col("bk", alias))], default=S.col("wk", alias))


def _captured_square(alias: str) -> exp.Expression:
    """The square of the piece the move into row ``alias`` took (NULL if none), stored at build time."""
    return S.col("capture_square", alias)


def _generated_dash(node: ast.Dash, row: Row) -> Cond:
    """``legal F--G``: some legal move exists (the stored count), exactly so for a bare ``legal --``;
    ``pseudolegal`` is left to the evaluator (a stalemated side has pseudolegal moves)."""
    if node.mode != "legal":
        return RESIDUAL
    sql = S.cmp(">", S.col("legal_moves", row.alias), S.num(0))
    bare = node.left is None and node.right is None and not node.promotes and not node.target
    if node.target and node.target[0].name == "enpassant":
        # An en passant capture needs the double step just played (not a set-up FEN's square).
        sql = S.both(sql, S.both(S.not_null(S.col("ep_square", row.alias)),
                                 S.cmp(">", S.col("positionid", row.alias), S.num(0))))
    return Cond(sql, bare)
