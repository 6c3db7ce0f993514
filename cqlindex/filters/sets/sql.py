"""The SQL of sets and squares: bitboard expressions over the piece columns (iterations and
their variables: :mod:`cqlindex.filters.sets.sql_loops`; pins and rays: :mod:`.sql_lines`).

Methods of :class:`cqlindex.plan.compile.Compiler`, mixed in.
"""

from __future__ import annotations

from sqlglot import exp

from cqlindex.board import material
from cqlindex.board.directions import direction_mask
from cqlindex.board.reach import attacks
from cqlindex.cql import ast
from cqlindex.cql.kinds import NUMBER, SET, STRING, kind_of
from cqlindex.filters.sets.sql_lines import LinesSQL
from cqlindex.filters.sets.sql_loops import LoopsSQL
from cqlindex.filters.sets.sql_sides import colours, whole_sides
from cqlindex.filters.sets.sql_reach import at_king, king_index, standing_to_attack, standing_to_attack_around
from cqlindex.plan import sql as S
from cqlindex.plan.terms import (ALL_SQUARES, LETTERS, PIECE_COLUMNS, RESIDUAL, UNBOUNDED, Cond, NumTerm, Row, SetTerm,
                                 const)



class SetsSQL(LoopsSQL, LinesSQL):
    """The sets family's SQL (pins and rays: :class:`LinesSQL`)."""

    __slots__ = ()

    def _cond_pieces(self, node: ast.Pieces, row: Row) -> Cond:
        return self._set_cond(self.set(node, row))

    def _cond_binary(self, node: ast.Binary, row: Row) -> Cond:
        if node.op == "~~":
            return self.regex_cond(node, row)
        if node.op == "in" and kind_of(node.left) == STRING:
            return self.substring_cond(node, row)
        if node.op == "in":
            a, b = self.set(node.left, row), self.set(node.right, row)
            if a.exact and b.exact and a.sql is not None and b.sql is not None:
                return Cond(S.cmp("==", S.band(a.sql, S.bnot(b.sql)), S.num(0)), True)
            return RESIDUAL
        if node.op == "attacks" and self.attack_maps and whole_sides(node.left) is not None:
            # Every piece of a side attacks some square of T exactly when T meets its attack map.
            target = self.set(node.right, row)
            reach = self._attacked(node.left, row)
            if target.exact and target.sql is not None and reach is not None:
                return Cond(S.nonzero(S.band(target.sql, reach)), True)
        if kind_of(node) == SET:
            return self._set_cond(self.set(node, row))
        return self._num_cond(self.num(node, row))

    def _cond_unary(self, node: ast.Unary, row: Row) -> Cond:
        if kind_of(node) == SET:
            return self._set_cond(self.set(node, row))
        return self._num_cond(self.num(node, row))

    def _cond_direction(self, node: ast.Direction, row: Row) -> Cond:
        return self._set_cond(self.set(node, row))

    def _cond_call(self, node: ast.Call, row: Row) -> Cond:
        if node.name == "tag":
            return self.text_present(node, row)
        if node.name in ("between", "makesquare"):
            return self._set_cond(self.set(node, row))
        if node.name in ("max", "min"):
            return self._num_cond(self.num(node, row))
        return RESIDUAL

    def _set_pieces(self, node: ast.Pieces, row: Row) -> SetTerm:
        if len(node.pieces) == 13 or node.squares == 0:
            return const(node.squares)
        parts = [S.col(column, row.alias) for letter, column in zip(LETTERS, PIECE_COLUMNS)
                 if letter in node.pieces]
        if "_" in node.pieces:
            occupied = S.bor(*(S.col(column, row.alias) for column in PIECE_COLUMNS))
            parts.append(S.bnot(occupied))
        sql = S.bor(*parts)
        if node.squares != ALL_SQUARES:
            sql = S.band(sql, S.mask(node.squares))
        return SetTerm(sql, True)

    def _set_keyword(self, node: ast.Keyword, row: Row) -> SetTerm:
        if node.name in ("passedpawns", "isolatedpawns", "doubledpawns", "connectedpawns"):
            return SetTerm(S.bor(S.col("wp", row.alias), S.col("bp", row.alias)), False)
        if node.name in ("to", "from"):
            return SetTerm(_move_squares(node.name, row.alias), True)
        return UNBOUNDED

    def _set_binary(self, node: ast.Binary, row: Row) -> SetTerm:
        a, b = self.set(node.left, row), self.set(node.right, row)
        if node.op == "|":
            if a.const is not None and b.const is not None:
                return const(a.const | b.const)
            if a.sql is None or b.sql is None:
                return UNBOUNDED
            return SetTerm(S.bor(a.sql, b.sql), a.exact and b.exact)
        if node.op == "&":
            if a.const is not None and b.const is not None:
                return const(a.const & b.const)
            if a.sql is None:
                return SetTerm(b.sql, False)
            if b.sql is None:
                return SetTerm(a.sql, False)
            return SetTerm(S.band(a.sql, b.sql), a.exact and b.exact)
        if node.op == "attacks":
            return self._attackers(node, a, b, row)
        if node.op == "attackedby":
            # Squares of the left side that the right side's colours attack: exact when the right
            # side is every piece of its colours, because the attack maps are exactly their union.
            reach = self._attacked(node.right, row)
            if reach is None:
                return SetTerm(a.sql, False)
            if a.sql is None:
                return SetTerm(reach, False)
            return SetTerm(S.band(a.sql, reach), a.exact and whole_sides(node.right) is not None)
        return UNBOUNDED

    def _attackers(self, node: ast.Binary, a: SetTerm, b: SetTerm, row: Row) -> SetTerm:
        """``A attacks Z``: the squares of A, only where A's colours attack a square of Z; and
        where Z is known when planning (``#(A attacks d4|e4|d5|e5) >= 3``) or moves with a king
        (``#(A attacks (. attackedby k)) >= 6``: :func:`_king_zones`; not the king itself), only the pieces standing
        where their kind reaches it (:mod:`cqlindex.filters.sets.sql_reach`)."""
        reach = self._attacked(node.left, row)
        guard = b.sql if reach is None else (S.band(b.sql, reach) if b.sql is not None else reach)
        colours = self._attackcolours(node.left)
        pieces = a.sql
        if b.const is not None:
            pieces = self._standing(node, a, standing_to_attack(colours, b.const, row.alias))
        around = _king_zones(node.right) if b.const is None else None
        if around is not None and all(z & (z - 1) == 0 for z in around[1]):
            around = None  # Z the king's own square: the attack maps already say check, rarely so
        if around is None:
            return UNBOUNDED if pieces is None else SetTerm(_only_where(guard, pieces), False)
        # The king's square picks a mask from each table; where the king's column holds not
        # exactly one piece, the bound without them.
        column, zones = around
        index = king_index(column, row.alias)
        near = _only_where(S.band(guard, at_king(zones, index)) if guard is not None else at_king(zones, index),
                           self._standing(node, a, standing_to_attack_around(colours, zones, index, row.alias)))
        anywhere = _only_where(guard, pieces if pieces is not None else standing_to_attack(colours, ALL_SQUARES,
                                                                                            row.alias))
        one_king = S.cmp("==", S.popcount(S.col(column, row.alias)), S.num(1))
        return SetTerm(exp.Case(ifs=[exp.If(this=one_king, true=S.paren(near))], default=S.paren(anywhere)), False)

    @staticmethod
    def _standing(node: ast.Binary, a: SetTerm, standing: exp.Expression) -> exp.Expression:
        """The pieces standing to attack, within A's squares where A is narrower than its colours."""
        if a.sql is not None and a.const != ALL_SQUARES and whole_sides(node.left) is None:
            return S.band(a.sql, standing)
        return standing

    def _attacked(self, node: ast.Node, row: Row) -> exp.Expression | None:
        """The squares the pieces of ``node``'s colours attack (None without attack maps)."""
        if not self.attack_maps:
            return None
        colours = self._attackcolours(node)
        columns = [f"{side}_attacks" for side in ("white", "black") if side[0] in colours]
        if not columns:
            return S.num(0)
        return S.bor(*(S.col(c, row.alias) for c in columns))

    def _at_most_once(self, node: ast.Node, bound: exp.Expression, row: Row) -> exp.Expression:
        """``bound`` of ``#node``, where ``node`` is ``A attacks Z`` (A of one colour), 1 instead
        where Z is one square that two pieces of A's colour do not attack (``#(a attacks K) ==
        2``, a double check: every check before, 534,611 positions of p05 of the patterns for
        1,163); ``bound`` itself otherwise."""
        if not (isinstance(node, ast.Binary) and node.op == "attacks"):
            return bound
        twice = self._attacked_twice(node.left, row)
        target = self.set(node.right, row)
        if twice is None or target.sql is None or not target.exact or (
                target.const is not None and target.const.bit_count() != 1):
            return bound
        alone = S.cmp("==", S.band(target.sql, twice), S.num(0))
        if target.const is None:
            alone = S.both(S.cmp("==", S.popcount(target.sql), S.num(1)), alone)
        # A CASE, not least(bound, ...): DuckDB then works the bound out only where Z is attacked
        # twice (p05 on the whole file: its scans 1.2 -> 1.05 CPU s).
        return exp.Case(ifs=[exp.If(this=alone, true=S.num(1))], default=bound)

    def _attacked_twice(self, node: ast.Node, row: Row) -> exp.Expression | None:
        """The squares two or more pieces of one of ``node``'s colours attack (None without the
        columns, :mod:`cqlindex.board.twice`)."""
        if not self.twice:
            return None
        colours = self._attackcolours(node)
        columns = [f"{side}_attacks_twice" for side in ("white", "black") if side[0] in colours]
        if len(columns) != 1:  # two colours: a square one white and one black piece attack is in neither
            return None
        return S.col(columns[0], row.alias)

    def _attackcolours(self, node: ast.Node) -> str:
        """The colours ("w", "b") of the pieces ``node`` can hold (a piece variable's, its domain's)."""
        bound = self.bindings.get(node.name) if isinstance(node, ast.Variable) else None
        return colours(bound[2] if bound is not None else node, self.expansions)

    def _set_unary(self, node: ast.Unary, row: Row) -> SetTerm:
        a = self.set(node.arg, row)
        if node.op == "~":
            if a.const is not None:
                return const(ALL_SQUARES & ~a.const)
            return SetTerm(S.bnot(a.sql), True) if a.exact and a.sql is not None else UNBOUNDED
        if node.op in ("light", "dark"):
            squares = 0x55AA55AA55AA55AA if node.op == "light" else 0xAA55AA55AA55AA55  # python-chess's values
            if a.const is not None:
                return const(a.const & squares)
            return SetTerm(S.band(a.sql, S.mask(squares)), a.exact) if a.sql is not None else SetTerm(
                S.mask(squares), False)
        return UNBOUNDED

    def _set_direction(self, node: ast.Direction, row: Row) -> SetTerm:
        a = self.set(node.arg, row)
        if a.const is not None and node.distance is None:
            return const(direction_mask(node.name, node.low, node.high, a.const))
        return UNBOUNDED

    def _set_call(self, node: ast.Call, row: Row) -> SetTerm:
        if node.name == "between" and len(node.args) == 2:
            a, b = (self.set(arg, row) for arg in node.args)
            if a.const is not None and b.const is not None:
                import chess  # here: python-chess only for a constant between (start-up, issue 16)

                out = 0
                for x in chess.scan_forward(a.const):
                    for y in chess.scan_forward(b.const):
                        out |= chess.between(x, y)
                return const(out)
        return UNBOUNDED

    def _material_count(self, node: ast.Node, row: Row) -> NumTerm | None:
        """``#`` of a designator of whole piece kinds anywhere on the board (``Q``, ``[Pp]``), from
        the packed counts of the ``material`` column: one column read instead of a bit count of
        each kind's bitboard (:mod:`cqlindex.board.material`); None for any other set."""
        if not self._whole_kinds(node, material.SHIFTS.keys()):
            return None
        return self._material_sum({letter: 1 for letter in node.pieces}, row)

    def _material_power(self, node: ast.Node, row: Row) -> NumTerm | None:
        """``power`` of a designator of whole piece kinds anywhere on the board (``A``, ``[Qq]``),
        from the ``material`` column as :meth:`_material_count` counts them (kings weigh nothing):
        p14 of the patterns compares ``power A - power a`` on every position, as twenty bit
        counts without it; None for any other set."""
        if not self._whole_kinds(node, {*material.SHIFTS.keys(), "K", "k"}):
            return None
        weights = {letter: _POWER[letter.upper()] for letter in node.pieces if letter not in "Kk"}
        return self._material_sum(weights, row) if weights else NumTerm(S.num(0), const=0)

    def _whole_kinds(self, node: ast.Node, letters) -> bool:
        return (self.material and isinstance(node, ast.Pieces) and node.squares == ALL_SQUARES
                and bool(node.pieces) and node.pieces <= letters)

    def _material_sum(self, weights: dict[str, int], row: Row) -> NumTerm:
        """The sum of each letter's count, from its field of ``material``, times its weight."""
        packed = S.col("material", row.alias)
        total = None
        for letter in sorted(weights, key=material.SHIFTS.get):
            shift = material.SHIFTS[letter]
            field = S.band(exp.BitwiseRightShift(this=packed, expression=S.num(shift)) if shift else packed,
                           S.num(material.FIELD))
            field = field if weights[letter] == 1 else exp.Mul(this=S.num(weights[letter]), expression=S.paren(field))
            total = field if total is None else exp.Add(this=S.paren(total), expression=S.paren(field))
        return NumTerm(S.paren(total))

    def _num_unary(self, node: ast.Unary, row: Row) -> NumTerm | None:
        if node.op == "#" and kind_of(node.arg) == SET:
            counted = self._material_count(node.arg, row)
            if counted is not None:
                return counted
            term = self.set(node.arg, row)
            if term.const is not None:
                return NumTerm(S.num(term.const.bit_count()), const=term.const.bit_count())
            if term.sql is None:
                return None
            return NumTerm(self._at_most_once(node.arg, S.popcount(term.sql), row) if not term.exact else
                           S.popcount(term.sql), exact=term.exact)
        if node.op == "power":
            weighed = self._material_power(node.arg, row)
            if weighed is not None:
                return weighed
            term = self.set(node.arg, row)
            if not term.exact or term.sql is None:
                return None
            a = row.alias
            values = ((9, ("wq", "bq")), (5, ("wr", "br")), (3, ("wb", "bb", "wn", "bn")), (1, ("wp", "bp")))
            total = None
            for value, columns in values:
                part = exp.Mul(this=S.num(value), expression=S.popcount(
                    S.band(term.sql, S.bor(*(S.col(c, a) for c in columns)))))
                total = part if total is None else exp.Add(this=total, expression=part)
            return NumTerm(S.paren(total))
        if node.op in ("rank", "file"):
            term = self.set(node.arg, row)
            if not term.exact or term.sql is None:
                return None
            lines = ([0xFF << 8 * k for k in range(8)] if node.op == "rank"
                     else [0x0101010101010101 << k for k in range(8)])
            ifs = [exp.If(this=S.nonzero(S.band(term.sql, S.mask(line))), true=S.num(k + 1))
                   for k, line in enumerate(lines)]
            one = exp.EQ(this=S.popcount(term.sql), expression=S.num(1))  # defined for one square only
            return NumTerm(exp.Case(ifs=[exp.If(this=exp.Not(this=exp.Paren(this=one)), true=exp.Null()), *ifs]),
                           nullable=True)
        if node.op in ("-", "abs") and kind_of(node.arg) == NUMBER:
            inner = self.num(node.arg, row)
            if inner is None or not inner.exact:
                return None
            if inner.const is not None:
                value = -inner.const if node.op == "-" else abs(inner.const)
                return NumTerm(S.num(value), const=value)
            sql = exp.Neg(this=S.paren(inner.sql)) if node.op == "-" else exp.func("abs", inner.sql)
            return NumTerm(sql, inner.nullable)
        return None

    def _num_binary(self, node: ast.Binary, row: Row) -> NumTerm | None:
        if node.op not in ("+", "-", "*"):
            return None
        terms = []
        for operand in (node.left, node.right):
            kind = kind_of(operand)
            if kind == SET:
                term = self.num(ast.Unary(operand.span, "#", operand), row)
            elif kind == NUMBER:
                term = self.num(operand, row)
            else:
                return None
            if term is None:
                return None
            terms.append(term)
        a, b = terms
        if not (a.exact and b.exact) and node.op != "+":
            return None  # a sum of upper bounds bounds the sum; a difference or product of them does not
        if a.const is not None and b.const is not None:
            value = {"+": a.const + b.const, "-": a.const - b.const, "*": a.const * b.const}[node.op]
            return NumTerm(S.num(value), const=value)
        cls = {"+": exp.Add, "-": exp.Sub, "*": exp.Mul}[node.op]
        return NumTerm(exp.Paren(this=cls(this=S.paren(a.sql), expression=S.paren(b.sql))), a.nullable or b.nullable,
                       exact=a.exact and b.exact)

    def _num_call(self, node: ast.Call, row: Row) -> NumTerm | None:
        if node.name not in ("max", "min"):
            return None
        terms = [self.num(arg, row) if kind_of(arg) == NUMBER else
                 self.num(ast.Unary(arg.span, "#", arg), row) if kind_of(arg) == SET else None for arg in node.args]
        if any(t is None for t in terms):
            return None
        fn = "greatest" if node.name == "max" else "least"
        return NumTerm(exp.func(fn, *(t.sql for t in terms)), any(t.nullable for t in terms),
                       exact=all(t.exact for t in terms))


#: The value ``power`` gives each kind of piece (CQL's; a king weighs nothing).
_POWER = {"Q": 9, "R": 5, "B": 3, "N": 3, "P": 1}








def _only_where(guard: exp.Expression | None, pieces: exp.Expression) -> exp.Expression:
    """``pieces`` where ``guard`` (squares attacked) is not empty, else no square."""
    if guard is None:
        return pieces
    return exp.Case(ifs=[exp.If(this=S.nonzero(guard), true=S.paren(pieces))], default=S.num(0))


def _king_zones(node: ast.Node) -> tuple[str, tuple[int, ...]] | None:
    """Where ``node``'s squares can lie as a function of one king's square: (that king's column,
    for each square s the squares ``node`` is within while the king stands on s); else None.
    ``k`` (one king letter) is its own square; ``X attackedby k`` within the squares a king on s
    attacks; ``X & Y`` within either side's."""
    if isinstance(node, ast.Compound) and len(node.items) == 1:
        return _king_zones(node.items[0])
    if isinstance(node, ast.Pieces) and len(node.pieces) == 1 and next(iter(node.pieces)) in "Kk":
        column = "wk" if "K" in node.pieces else "bk"
        return column, tuple((1 << s) & node.squares for s in range(64))
    if isinstance(node, ast.Binary) and node.op == "attackedby" and isinstance(node.right, ast.Pieces):
        king = _king_zones(node.right)
        if king is None:
            return None
        within = node.left.squares if isinstance(node.left, ast.Pieces) else ALL_SQUARES
        return king[0], tuple(attacks("K")[s] & within if z else 0 for s, z in enumerate(king[1]))
    if isinstance(node, ast.Binary) and node.op == "&":
        return _king_zones(node.left) or _king_zones(node.right)
    return None




def _move_squares(name: str, a: str) -> exp.Expression:
    """``to`` (``from``) as a set, as filters/position/python.py says: the square the move that
    led here went to (came from), with a castling rook's square too (the stored Chess960-exact
    columns), a null move's the king of the side that made it, and none at the start. Exact, so
    that ``move capture to`` (a recapture) is decided in SQL."""
    square, rook = ("move_to", "rook_to") if name == "to" else ("move_from", "rook_from")
    col = lambda c: S.col(c, a)
    moved = S.bor(S.bit(col(square)), exp.Case(ifs=[exp.If(this=S.not_null(col("castle")), true=S.bit(col(rook)))],
                                               default=S.num(0)))
    king = exp.Case(ifs=[exp.If(this=col("wtm"), true=col("bk"))], default=col("wk"))  # wtm: Black moved
    return exp.Case(ifs=[exp.If(this=S.definite(col("null_move")), true=king),
                         exp.If(this=S.not_null(col(square)), true=S.paren(moved))], default=S.num(0))
