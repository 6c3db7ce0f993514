"""The SQL of the line filters, ``pin`` and ``ray``/``xray``.

SQL cannot follow a line across the board. A pin to a king is stored: the index's ``pinned``
column (schema 6, :mod:`cqlindex.board.pins`) decides it. Otherwise the index holds the squares
each side attacks (``white_attacks``, ``black_attacks``), and every piece that slides along a
line attacks the first square it meets there, empty or not. So where a member of a line is sure
to be such a piece, the next member (and for a ray, the one before it) must lie in its side's
attack map: a necessary condition, never a sufficient one. Methods of
:class:`cqlindex.plan.compile.Compiler`, mixed in through :class:`cqlindex.filters.sets.sql.SetsSQL`.
"""

from __future__ import annotations

from sqlglot import exp

from cqlindex.board.directions import steps_of
from cqlindex.cql import ast
from cqlindex.plan import sql as S
from cqlindex.plan.terms import ALL_SQUARES, PIECE_COLUMNS, RESIDUAL, UNBOUNDED, Cond, Row, SetTerm, const

_ORTHOGONAL = frozenset(("up", "down", "left", "right"))


class LinesSQL:
    """Pins and rays in SQL (narrowed)."""

    __slots__ = ()

    def _cond_pin(self, node: ast.Pin, row: Row) -> Cond:
        stored = self._stored_pins(node, row)
        if stored is not None:
            return Cond(S.nonzero(stored.sql), stored.exact)
        pinned = self._pinned(node, row)
        return Cond(S.nonzero(pinned), False) if pinned is not None else RESIDUAL

    def _set_pin(self, node: ast.Pin, row: Row) -> SetTerm:
        stored = self._stored_pins(node, row)
        pinned = stored.sql if stored is not None else self._pinned(node, row)
        if pinned is None:
            return UNBOUNDED
        first = node.params[0][0] if node.params else "through"
        if first == "through":
            return stored if stored is not None else SetTerm(pinned, False)
        # The pinners (a rook, bishop or queen) or the squares behind: any of the parameter's
        # squares, and only where some piece is pinned.
        given = [self.set(value, row).sql for word, value in node.params if word == first]
        known = [sql for sql in given if sql is not None]
        if first == "from":
            known.append(S.bor(*(S.col(c, row.alias) for c in ("wq", "wr", "wb", "bq", "br", "bb"))))
        if not known:
            return UNBOUNDED
        squares = known[0]
        for sql in known[1:]:
            squares = S.band(squares, sql)
        return SetTerm(exp.Case(ifs=[exp.If(this=S.nonzero(pinned), true=S.paren(squares))], default=S.num(0)), False)

    def _stored_pins(self, node: ast.Pin, row: Row, square: str | None = None) -> SetTerm | None:
        """The pinned pieces of a pin to kings, from the index's ``pinned`` column (the pieces
        pinned to their own king, :mod:`cqlindex.board.pins`): those of the ``through`` sets and
        of the colours whose king the ``to`` sets hold (``to k``: a black piece, the to square
        holding one of its colour). Exact where no ``from`` chooses among the pinners and every
        ``through`` set is exact. None where the index has no such column or a ``to`` set is
        not kings (a pin to a queen is no pin to a king). ``square``: the name of a one-square
        variable given as a ``through`` set, left out: the squares where it would be pinned."""
        if not self.pins:
            return None
        colours = "wb"
        for word, value in node.params:
            if word == "to":
                kings = _kings(value)
                if kings is None:
                    return None
                colours = "".join(c for c in colours if c in kings)
        if not colours:
            return const(0)
        squares = S.col("pinned", row.alias)
        if len(colours) == 1:
            squares = S.band(squares, S.bor(*(S.col(c, row.alias) for c in PIECE_COLUMNS if c[0] == colours)))
        exact = all(word != "from" for word, _ in node.params)
        for word, value in node.params:
            if word == "through" and not (isinstance(value, ast.Variable) and value.name == square):
                through = self.set(value, row)
                if through.sql is None:
                    exact = False
                else:
                    squares, exact = S.band(squares, through.sql), exact and through.exact
        return SetTerm(squares, exact)

    def _pinned(self, node: ast.Pin, row: Row) -> exp.Expression | None:
        """An upper bound of the pinned pieces: pieces of the ``through`` sets that the other side
        attacks (the pinner's line reaches the first piece it meets). None without attack maps.
        p06 of the patterns (a queen or rook pinned to its king): 17% of the positions, not all."""
        if not self.attack_maps:
            return None
        sides = {side: S.bor(*(S.col(c, row.alias) for c in PIECE_COLUMNS if c[0] == side)) for side in "wb"}
        through = [self.set(value, row).sql for word, value in node.params if word == "through"]
        through = [sql for sql in through if sql is not None]
        parts = []
        for side, other in (("w", "black"), ("b", "white")):
            pieces = sides[side]
            for sql in through:
                pieces = S.band(pieces, sql)
            parts.append(S.band(pieces, S.col(f"{other}_attacks", row.alias)))
        return S.bor(*parts)

    def _cond_ray(self, node: ast.Ray, row: Row) -> Cond:
        bound = self._ray_bound(node, row)
        return Cond(bound, False) if bound is not None else RESIDUAL

    def _set_ray(self, node: ast.Ray, row: Row) -> SetTerm:
        """The ends of the ray's matches lie in its last member, and only where it can match."""
        bound = self._ray_bound(node, row)
        if bound is None:
            return UNBOUNDED
        last = self.set(node.args[-1], row).sql
        squares = S.paren(last) if last is not None else S.mask(ALL_SQUARES)
        return SetTerm(exp.Case(ifs=[exp.If(this=bound, true=squares)], default=S.num(0)), False)

    def _ray_bound(self, node: ast.Ray, row: Row) -> exp.Expression | None:
        """Where ``ray``/``xray`` (S1 ... Sn) can match: every member has a square, and next to a
        member that slides along the ray's directions, the members on either side of it meet its
        side's attack map (only empty squares lie between neighbours). xray's first member
        always slides. p01 of the patterns (``ray orthogonal ([RQ] q k)``, flipped, or diagonal)
        read every position of the index; the bound keeps 5% of them, p02 (``ray diagonal
        (Q B k)``: the bishop gives check) 0.4%. None where nothing is known (arrow chains:
        their own reading)."""
        if node.kind not in ("ray", "xray"):
            return None
        members = [self.set(arg, row) for arg in node.args]
        parts = [S.nonzero(m.sql) for m in members if m.sql is not None]
        if self.attack_maps:
            sliders = _sliders(steps_of(node.directions))
            slides = [node.kind == "xray" and i == 0 or _slides(arg, sliders) for i, arg in enumerate(node.args)]
            for i in range(len(members) - 1):
                for mover, met in ((i, i + 1), (i + 1, i)):
                    if slides[mover] and members[met].sql is not None:
                        reach = self._attacked(node.args[mover], row)
                        parts.append(S.nonzero(S.band(members[met].sql, reach)))
        bound = None
        for part in parts:
            bound = S.both(bound, part)
        return bound


def _kings(node: ast.Node) -> str | None:
    """The colours ("w", "b") of the kings ``node`` holds, where it is kings on any square alone."""
    if not isinstance(node, ast.Pieces) or node.squares != ALL_SQUARES or not node.pieces \
            or not node.pieces <= {"K", "k"}:
        return None
    return ("w" if "K" in node.pieces else "") + ("b" if "k" in node.pieces else "")


def _sliders(steps: tuple[str, ...]) -> frozenset[str]:
    """The pieces that move along each of ``steps`` as far as the board lets them (and back)."""
    straight = any(step in _ORTHOGONAL for step in steps)
    slanted = any(step not in _ORTHOGONAL for step in steps)
    return frozenset("Qq" + ("" if slanted else "Rr") + ("" if straight else "Bb"))


def _slides(node: ast.Node, sliders: frozenset[str]) -> bool:
    """Whether every square of ``node`` holds one of ``sliders`` (a designator of those pieces alone)."""
    return isinstance(node, ast.Pieces) and bool(node.pieces) and node.pieces <= sliders
