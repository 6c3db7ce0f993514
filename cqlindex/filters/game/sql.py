"""The SQL of game tags (the joined games row) and fen.

Methods of :class:`cqlindex.plan.compile.Compiler`, mixed in.
"""

from __future__ import annotations

from sqlglot import exp

from cqlindex.cql import ast
from cqlindex.plan import sql as S
from cqlindex.filters.game.python import TAGS
from cqlindex.plan.terms import PIECE_COLUMNS, RESIDUAL, TRUE, Cond, NumTerm, Row



class GameSQL:
    """The game family's SQL."""

    __slots__ = ()

    def _cond_gamefilter(self, node: ast.GameFilter, row: Row) -> Cond:
        strings = [a.value for a in node.args if isinstance(a, ast.String)]
        side = next((a.name for a in node.args if isinstance(a, ast.Keyword)), None)
        if node.name == "fen":
            return self._fen(strings[0], row) if strings else TRUE  # alone: the FEN, always there
        if node.name in ("originalcomment", "hascomment"):
            comment = S.col("comment", row.alias)
            if not strings:
                return Cond(S.not_null(comment), True)
            return Cond(exp.func("contains", _coalesce_text(comment), S.text(strings[0])), True)
        if not row.top:
            return RESIDUAL  # the game row is joined at the top only; the top condition prunes games
        self.uses_games = True
        if node.name == "result":
            return Cond(exp.EQ(this=S.paren(_coalesce_text(S.col("result", "g"))), expression=S.text(strings[0])),
                        True)
        if node.name == "player":
            # as game/python.py's player(): 'player' alone is White's name, a line end, Black's
            names = [side] if side else ["white", "black"]
            given = None
            for name in names:
                given = S.both(given, S.cmp("!=", _coalesce_text(S.col(name, "g")), S.text("")))
            if not strings:
                return Cond(given, True)
            text = S.col(side, "g") if side else exp.DPipe(
                this=exp.DPipe(this=S.col("white", "g"), expression=S.text("\n")), expression=S.col("black", "g"))
            return Cond(S.both(given, exp.func("contains", text, S.text(strings[0]))), True)
        if node.name in TAGS:
            tag = exp.Bracket(this=S.col("tags", "g"), expressions=[S.text(TAGS[node.name])])
            if not strings:
                return Cond(S.not_null(tag), True)
            return Cond(exp.func("contains", _coalesce_text(tag), S.text(strings[0])), True)
        return self._num_cond(self.num(node, row))

    def _fen(self, fen: str, row: Row) -> Cond:
        fields = fen.split()
        try:
            import chess  # here: python-chess only for a fen filter (start-up, issue 16)

            board = chess.BaseBoard(fields[0])
        except (ValueError, IndexError):
            return Cond(S.false(), True)
        b, w = board.occupied_co
        boards = (board.kings & w, board.queens & w, board.rooks & w, board.bishops & w, board.knights & w,
                  board.pawns & w, board.kings & b, board.queens & b, board.rooks & b, board.bishops & b,
                  board.knights & b, board.pawns & b)
        sql: exp.Expression | None = None
        for column, value in zip(PIECE_COLUMNS, boards):
            sql = S.both(sql, exp.EQ(this=S.col(column, row.alias), expression=S.mask(value)))
        if len(fields) > 1 and fields[1] in ("w", "b"):
            wtm = S.col("wtm", row.alias)
            sql = S.both(sql, wtm if fields[1] == "w" else S.negate(wtm))
        return Cond(sql, True)

    def _num_gamefilter(self, node: ast.GameFilter, row: Row) -> NumTerm | None:
        if not row.top or any(isinstance(a, ast.String) for a in node.args):
            return None
        side = next((a.name for a in node.args if isinstance(a, ast.Keyword)), None)
        if node.name == "year":
            self.uses_games = True
            return NumTerm(S.col("year", "g"), nullable=True)
        if node.name == "elo":  # ratings are stored above 0 or not at all; alone: the higher one
            self.uses_games = True
            column = S.col(f"{side}_elo", "g") if side else exp.func("greatest", S.col("white_elo", "g"),
                                                                      S.col("black_elo", "g"))
            return NumTerm(column, nullable=True)
        return None


def _coalesce_text(e: exp.Expression) -> exp.Expression:
    return exp.func("coalesce", e, S.text(""))
