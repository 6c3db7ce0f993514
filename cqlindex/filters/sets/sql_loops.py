"""The SQL of square and piece iterations and of the variables they bind.

An iteration is decided where its body asks of its square only what the position's sets say
(:meth:`LoopsSQL._pointwise`), with an inner iteration wanting another square; where a line
follows its piece move by move (:meth:`LoopsSQL._followed_piece`); or where its squares are few
and known when planning, a square at a time (:meth:`LoopsSQL._unrolled`). Else the body, with
the variable standing for any square of the domain, is a necessary condition.

Unrolling: ``piece x in N & a-h4-6 { not (p & up 1 7 (diagonal 1 x & up 1 x)) }`` (p26 of the
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
from cqlindex.filters.sequences.sql import moves_one_piece
from cqlindex.filters.sets.sql_sides import colours, whole_sides
from cqlindex.plan import sql as S
from cqlindex.plan.terms import (ALL_SQUARES, LETTERS, PIECE_COLUMNS, RESIDUAL, UNBOUNDED, Cond, Row, SetTerm,
                                 const)

#: Squares an iteration is unrolled over at most: each is a copy of the body's SQL (those alike
#: share one): a rank band, a-h4-6, is 24.
UNROLLED_AT_MOST = 24
#: Distinct bodies an unrolled iteration may have, each a term of the plan's OR. More do not pay:
#: the outpost ``not (p & up (diagonal 1 x))`` over a-h4-6, 24 bodies under flipcolor, took
#: 1.06-1.16 s on the whole gnuchess file where its upper bound and the columnar engine took
#: 0.86-1.09 s; p26's body is one mask for every square (0.84 s against 1.14).
DISTINCT_AT_MOST = 4
#: Kinds a piece iteration may follow along a chain of its moves (:meth:`LoopsSQL._followed_piece`):
#: not kings (castling and null moves store the king's squares), rooks (castling moves one
#: where the king's squares are stored) or pawns (a promotion changes the kind).
FOLLOWED_KINDS = frozenset("NBQnbq")


class LoopsSQL:
    """The iterations' SQL (a mixin of :class:`cqlindex.plan.compile.Compiler`)."""

    __slots__ = ()

    def _cond_iterate(self, node: ast.Iterate, row: Row) -> Cond:
        if node.all:
            return RESIDUAL
        domain = self.set(node.domain, row)  # the value is the part of the domain where the body holds
        if domain.const is not None and not domain.const:
            return Cond(S.false(), True)
        if domain.sql is None:
            return RESIDUAL
        pointwise = self._pointwise(node, domain, row)
        if pointwise is not None and pointwise.exact:
            return pointwise
        followed = self._followed_piece(node, domain, row)
        if followed is not None:
            return followed
        unrolled = self._unrolled(node, domain, row)
        if unrolled is not None:
            return unrolled
        # Some square of the domain must satisfy the body, so the body holds with the variable
        # standing for any square of the domain: compiled so, its SQL is a necessary condition.
        body = self._bound(node, domain, row)
        bound = S.both(S.nonzero(domain.sql), body.sql)
        return Cond(S.both(bound, pointwise.sql) if pointwise is not None else bound, False)

    def _followed_piece(self, node: ast.Iterate, domain: SetTerm, row: Row) -> Cond | None:
        """The iteration decided in SQL where its body is a line that moves its piece at every
        other step from the first on (:func:`moves_one_piece`), over every piece of kinds that
        keep their kind and store their own squares at each move (:data:`FOLLOWED_KINDS`): at
        another position the SQL knows the piece only as one of its kind, but the window's
        chain of moves says which (p13 of the patterns: 24,480 candidates the columnar engine
        confirmed, every one a match). None otherwise, or where the line is not exact."""
        pieces = node.domain
        if not (node.kind == "piece" and domain.exact and isinstance(pieces, ast.Pieces)
                and pieces.squares == ALL_SQUARES and pieces.pieces <= FOLLOWED_KINDS):
            return None
        body = node.body.items[0] if isinstance(node.body, ast.Compound) and len(node.body.items) == 1 else node.body
        if not isinstance(body, ast.Line) or not moves_one_piece(body, node.var):
            return None
        self.followed_exactly.add(node.var)
        try:
            line = self._bound(node, domain, row)
        finally:
            self.followed_exactly.discard(node.var)
        return Cond(S.both(S.nonzero(domain.sql), line.sql), True) if line.exact and line.sql is not None else None

    def _pointwise(self, node: ast.Iterate, domain: SetTerm, row: Row) -> Cond | None:
        """The iteration decided in SQL where its body asks of its square only whether it lies in
        sets the position gives (:meth:`_square_test`: ``x attackedby A``, ``not (x attackedby a)``,
        ``x & d-e4-5``, in any number): one square of the domain passes every test exactly where
        the domain meets the sets the tests want and misses those they refuse. p04 of the patterns
        (``piece x in [qrbn] { x attackedby A not (x attackedby a) }``, a hanging piece) is then
        one scan; as an upper bound it kept 39% of the positions for the evaluator. None where
        the body is anything else. A piece iteration visits occupied squares alone, so it is
        taken only over a designator of pieces (no ``_``), whose squares are all occupied.

        Where other filters stand beside the tests, the tests and the counts that imply one
        (:meth:`_count_bound`) still bound the iteration, not exactly: the same square must pass
        them all, a tighter bound than each on its own. p07 (``square s in [qrbn] { #(A attacks
        s) >= 3 #(a attacks s) == 0 }``): 57% of the positions to the evaluator before, 14%
        after. None where no item gives a test or a bound, or the body assigns the variable."""
        if not domain.exact or (node.kind == "piece" and not (
                isinstance(node.domain, ast.Pieces) and "_" not in node.domain.pieces)) or any(
                isinstance(n, ast.Assign) and n.name == node.var for n in ast.walk(node.body)):
            return None
        squares = domain.sql
        exact, found = True, False
        partners: list[exp.Expression] = []
        for item in node.body.items if isinstance(node.body, ast.Compound) else (node.body,):
            refused = isinstance(item, ast.Not)
            wanted = self._square_test(item.arg if refused else item, node.var, row)
            if wanted is not None:
                squares, found = S.band(squares, S.bnot(wanted) if refused else wanted), True
                continue
            partner = self._partner(item, node.var, row)
            if partner is not None:
                partners.append(partner)
                continue
            exact = False
            bound = None if refused else self._count_bound(item, node.var, row)
            if bound is not None:
                squares, found = S.band(squares, bound), True
        if not found and not partners:
            return None
        here = S.nonzero(squares)
        if len(partners) != 1:  # each some other square: with two, not one condition per partner
            exact = exact and not partners
            return Cond(S.both(here, S.both(*map(S.nonzero, partners)) if partners else None), exact)
        # some x of ``squares`` with a y of the partner's other than x: the partner has two
        # squares, or one that x need not be
        other, = partners
        some = S.either(S.cmp(">=", S.popcount(other), S.num(2)), S.nonzero(S.band(squares, S.bnot(other))))
        return Cond(S.both(S.both(here, S.nonzero(other)), S.paren(some)), exact)

    def _partner(self, item: ast.Node, var: str, row: Row) -> exp.Expression | None:
        """The squares of an inner iteration ``item`` that pass its body, where that body is
        tests of its own square (:meth:`_square_test`, not reading ``var``) and ``y != var``
        (another piece than ``var``'s): ``piece y in [qrbnp] { pin through y x != y }`` (p09 of
        the patterns, two pinned pieces). Else None."""
        if not isinstance(item, ast.Iterate) or item.all or item.var == var:
            return None
        domain = self.set(item.domain, row)
        if not domain.exact or domain.sql is None or (item.kind == "piece" and not (
                isinstance(item.domain, ast.Pieces) and "_" not in item.domain.pieces)):
            return None
        squares, apart = domain.sql, False
        for test in item.body.items if isinstance(item.body, ast.Compound) else (item.body,):
            if (isinstance(test, ast.Compare) and test.ops == ("!=",) and len(test.operands) == 2
                    and {_name(o) for o in test.operands} == {var, item.var}):
                apart = True
                continue
            refused = isinstance(test, ast.Not)
            inner = test.arg if refused else test
            wanted = None if ast.mentions(inner, var) else self._square_test(inner, item.var, row)
            if wanted is None:
                return None
            squares = S.band(squares, S.bnot(wanted) if refused else wanted)
        return squares if apart else None

    def _count_bound(self, item: ast.Node, var: str, row: Row) -> exp.Expression | None:
        """Squares that a one-square ``var`` must lie in for ``item``, a count of the pieces
        attacking it against a number, to hold: attacked by S's colours where the count must be
        positive (``#(x attackedby S) > 0``), attacked twice by S's colour where it must be two or
        more and S is of one colour (``#(A attacks x) >= 3``: :mod:`cqlindex.board.twice`),
        not attacked by S where it must be 0 and S is every piece of a colour (the attack map is
        then exact); else None."""
        if not (isinstance(item, ast.Compare) and len(item.operands) == 2):
            return None
        (left, right), op = item.operands, item.ops[0]
        if isinstance(left, ast.Number):
            left, right, op = right, left, {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op, op)
        if not (isinstance(right, ast.Number) and isinstance(left, ast.Unary) and left.op == "#"
                and isinstance(left.arg, ast.Binary)):
            return None
        counted = left.arg
        if counted.op == "attacks" and isinstance(counted.right, ast.Variable) and counted.right.name == var:
            side = counted.left
        elif counted.op == "attackedby" and isinstance(counted.left, ast.Variable) and counted.left.name == var:
            side = counted.right
        else:
            return None
        if ast.mentions(side, var):
            return None
        n = right.value
        if ((op == ">=" and n >= 2) or (op == ">" and n >= 1) or (op == "==" and n >= 2)) and (
                twice := self._attacked_twice(side, row)) is not None:
            return twice  # two or more of S attack it, so two or more of its colour
        if (op == ">=" and n >= 1) or (op == ">" and n >= 0) or (op == "==" and n >= 1):
            return self._attacked(side, row)
        if ((op == "==" and n == 0) or (op == "<" and n == 1) or (op == "<=" and n == 0)) and (
                whole_sides(side) is not None):
            reach = self._attacked(side, row)
            return S.bnot(reach) if reach is not None else None
        return None

    def _square_test(self, test: ast.Node, var: str, row: Row) -> exp.Expression | None:
        """The squares where ``test`` holds of a one-square ``var``, as exact SQL: ``var attackedby
        S`` (S every piece of a colour: its attack map), ``var & S`` and ``var in S`` (S exact and
        not reading ``var``), ``pin through var`` to kings (the index's pinned pieces); else None."""
        if isinstance(test, ast.Pin):
            return self._pinned_square(test, var, row)
        if not (isinstance(test, ast.Binary) and isinstance(test.left, ast.Variable) and test.left.name == var):
            return None
        if test.op == "attackedby":
            return self._attacked(test.right, row) if whole_sides(test.right) is not None else None
        if test.op in ("&", "in") and not ast.mentions(test.right, var):
            given = self.set(test.right, row)
            return given.sql if given.exact and given.sql is not None else None
        return None

    def _pinned_square(self, test: ast.Pin, var: str, row: Row) -> exp.Expression | None:
        """Where ``pin through var ...`` holds of a one-square ``var``: ``var`` one of the ``through``
        sets, the rest not reading it, and the pin's squares exact without it."""
        if not any(word == "through" and isinstance(value, ast.Variable) and value.name == var
                   for word, value in test.params):
            return None
        if any(ast.mentions(value, var) for word, value in test.params
               if not (word == "through" and isinstance(value, ast.Variable))):
            return None
        stored = self._stored_pins(test, row, square=var)
        return stored.sql if stored is not None and stored.exact else None

    def _bound(self, node: ast.Iterate, domain: SetTerm, row: Row) -> Cond:
        """The body's condition with the variable bound to its domain as an upper bound, at ``row``
        only: at another position a piece variable follows its piece wherever it went."""
        if any(isinstance(n, ast.Assign) and n.name == node.var for n in ast.walk(node.body)):
            return RESIDUAL
        saved = self.bindings.get(node.var)
        self.bindings[node.var] = (row.alias, SetTerm(domain.sql, False), node.domain, node.kind)
        try:
            return self.cond(node.body, row)
        finally:
            if saved is None:
                del self.bindings[node.var]
            else:
                self.bindings[node.var] = saved

    def _set_variable(self, node: ast.Variable, row: Row) -> SetTerm:
        bound = self.bindings.get(node.name)
        if bound is None:
            return UNBOUNDED
        if bound[0] == row.alias:
            return bound[1]
        if bound[3] != "piece":
            return UNBOUNDED
        kinds = self._followed(bound[2], row)
        # exact only as the chain of moves uses it: see _followed_piece
        return SetTerm(kinds.sql, True) if node.name in self.followed_exactly else kinds

    def _followed(self, domain: ast.Node, row: Row) -> SetTerm:
        """Where a piece of ``domain`` can stand at another position ``row`` (a line's next
        steps): a piece keeps its colour and its kind, but a pawn may have promoted, so an upper
        bound is the boards of those kinds there (``piece x in N {line --> (move from x --> .){4,}}``:
        a white knight moves at every step). Whole colours where the domain is not a designator."""
        if isinstance(domain, ast.Pieces) and "_" not in domain.pieces:
            letters = set(domain.pieces)
        else:
            sides = colours(domain, self.expansions)
            letters = {x for x in LETTERS if ("w" if x.isupper() else "b") in sides}
        letters |= {x for pawn in letters & {"P", "p"} for x in ("QRBN" if pawn == "P" else "qrbn")}
        columns = [column for letter, column in zip(LETTERS, PIECE_COLUMNS) if letter in letters]
        return SetTerm(S.bor(*(S.col(c, row.alias) for c in columns)), False) if columns else const(0)

    def _cond_variable(self, node: ast.Variable, row: Row) -> Cond:
        if node.name not in self.bindings:
            return RESIDUAL
        term = self._set_variable(node, row)
        return Cond(S.nonzero(term.sql), False) if term.sql is not None else RESIDUAL

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

def _name(node: ast.Node) -> str | None:
    return node.name if isinstance(node, ast.Variable) else None
