"""CQL filters compiled to SQL over one row of ``positions``, each marked Exact or Superset.

Why three answers: SQL can decide a square, piece, flag, count or game tag outright, can only
narrow things like ``line`` or ``attacks`` (which need the board or the tree), and knows
nothing of variables. So every filter compiles to a :class:`Cond` whose SQL is either
*exact* (true exactly where the evaluator matches) or a *superset* (true wherever the
evaluator matches, maybe elsewhere too), or has no SQL at all (residual: Python decides).
The soundness rules follow from that one promise: a conjunction keeps every conjunct that has
SQL, a disjunction only if every branch has, ``not`` only an exact argument, and any
superset inside makes the whole superset. Sets compile to a bitboard expression that is
either the set itself or an upper bound of it; numbers only when the value is exact.

Filters that look at other positions (``:``, ``find``, ``line``, ``echo``, ``move``) compile
to subqueries over other rows of the same game: exact where the tree link is a column
(parent, child, a range of descendants), and otherwise a game-level condition ("some
position of this game satisfies the constituent") that still prunes whole games.

The compiler never decides what CQL means: transforms are expanded by the evaluator's own
rewriting (:mod:`cqlindex.evaluate.transform`), and the differential tests hold every exact
form to the evaluator's answers.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace

import chess
from sqlglot import exp

from cqlindex.cql import ast
from cqlindex.cql.kinds import NUMBER, SET, kind_of
from cqlindex.evaluate.sets import direction_mask
from cqlindex.plan import sql as S

_PIECE_COLUMNS = ("wk", "wq", "wr", "wb", "wn", "wp", "bk", "bq", "br", "bb", "bn", "bp")
_LETTERS = "KQRBNPkqrbnp"
_ALL = (1 << 64) - 1
_PROMOTION_TYPES = {"Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP, "N": chess.KNIGHT}
_FLAG_COLUMNS = {"check": "is_check", "mate": "is_mate", "stalemate": "is_stalemate", "wtm": "wtm",
                 "mainline": "mainline"}
_NUMBER_COLUMNS = {"ply": "ply", "movenumber": "movenumber", "depth": "depth", "positionid": "positionid",
                   "gamenumber": "gamenumber"}
_TAGS = {"event": "Event", "site": "Site", "date": "Date", "eco": "ECO"}


@dataclass(frozen=True, slots=True)
class Cond:
    """A necessary condition for a filter to match (None: no SQL), exact when also sufficient."""

    sql: exp.Expression | None
    exact: bool


@dataclass(frozen=True, slots=True)
class SetTerm:
    """A set as a bitboard expression: the set itself (exact) or an upper bound; None: any squares."""

    sql: exp.Expression | None
    exact: bool
    const: int | None = None  # the unsigned value, when known when planning


@dataclass(frozen=True, slots=True)
class NumTerm:
    """A number as an expression, NULL where CQL has no value; or (``exact`` False) an upper bound of it."""

    sql: exp.Expression
    nullable: bool = False
    const: int | None = None
    exact: bool = True


RESIDUAL = Cond(None, False)
TRUE = Cond(None, True)  # matches everywhere: no SQL needed, and exact
UNBOUNDED = SetTerm(None, False)


@dataclass(frozen=True, slots=True)
class Row:
    """Where a filter is evaluated: a table alias of ``positions``.

    ``top`` rows have the game row ``g`` beside them; ``linear`` rows are line constituents,
    which see only the move along the line (seed 003), so move filters there are supersets.
    """

    alias: str
    top: bool = False
    linear: bool = False


@dataclass(slots=True)
class Compiler:
    """Compiles the filters of one query for one search mode (main line only, or variations)."""

    variations: bool
    chess960: bool = True  # whether the index holds Chess960 games (castling rooks then vary)
    attack_maps: bool = True  # whether positions has white_attacks / black_attacks (schema 2)
    uses_games: bool = False
    python_needed: list[ast.Node] = field(default_factory=list)  # filters whose output needs Python
    #: find bodies SQL can only narrow, with the SELECT of the positions where they may hold:
    #: the evaluator tests such a body only there (see Evaluator.prefilter).
    prefilters: list[tuple[ast.Node, exp.Select]] = field(default_factory=list)
    _aliases: itertools.count = field(default_factory=lambda: itertools.count(1))

    # ---------------------------------------------------------------- logical filters

    def cond(self, node: ast.Node, row: Row) -> Cond:
        method = getattr(self, f"_cond_{type(node).__name__.lower()}", None)
        if method is None:
            return RESIDUAL
        return method(node, row)

    def _cond_pieces(self, node: ast.Pieces, row: Row) -> Cond:
        return self._set_cond(self.set(node, row))

    def _set_cond(self, term: SetTerm) -> Cond:
        if term.const is not None:
            return TRUE if term.const else Cond(S.false(), True)
        if term.sql is None:
            return RESIDUAL
        return Cond(S.nonzero(term.sql), term.exact)

    def _num_cond(self, term: NumTerm | None) -> Cond:
        if term is None or not term.exact:
            return RESIDUAL
        if term.nullable:
            return Cond(S.not_null(term.sql), True)
        return TRUE

    def _cond_number(self, node: ast.Number, row: Row) -> Cond:
        return TRUE

    def _cond_string(self, node: ast.String, row: Row) -> Cond:
        return TRUE

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

    def _cond_compound(self, node: ast.Compound, row: Row) -> Cond:
        return self._all(node.items, row)

    def _cond_and(self, node: ast.And, row: Row) -> Cond:
        return self._all(node.items, row)

    def _all(self, items: tuple[ast.Node, ...], row: Row) -> Cond:
        sql: exp.Expression | None = None
        exact = True
        for item in items:
            part = self.cond(item, row)
            sql = S.both(sql, part.sql)
            exact = exact and part.exact
        return Cond(sql, exact)

    def _cond_or(self, node: ast.Or, row: Row) -> Cond:
        return _any([self.cond(item, row) for item in node.items])

    def _cond_not(self, node: ast.Not, row: Row) -> Cond:
        inner = self.cond(node.arg, row)
        if not inner.exact:
            return RESIDUAL
        if inner.sql is None:
            return Cond(S.false(), True)
        return Cond(S.negate(S.definite(inner.sql)), True)

    def _cond_if(self, node: ast.If, row: Row) -> Cond:
        test = self.cond(node.cond, row)
        then = self.cond(node.then, row)
        other = self.cond(node.other, row) if node.other is not None else TRUE
        if test.exact and then.exact and other.exact and _size(test.sql) <= _MAX_REPEATED_SQL:
            # the test is written twice (then, else): nested in tests, that doubles per level
            t = S.definite(test.sql) if test.sql is not None else S.true()
            yes = S.both(t, then.sql) or t
            no = S.both(S.negate(t), other.sql) or S.negate(t)
            return Cond(S.either(yes, no), True)
        if then.sql is None or other.sql is None:
            return RESIDUAL
        return Cond(S.either(then.sql, other.sql), False)

    def _cond_compare(self, node: ast.Compare, row: Row) -> Cond:
        kinds = [kind_of(o) for o in node.operands]
        counts = len(node.operands) > 2 and NUMBER in kinds
        sql: exp.Expression | None = None
        exact = True
        if all(k == SET for k in kinds) and not counts:
            terms = [self.set(o, row) for o in node.operands]
            for op, a, b in zip(node.ops, terms, terms[1:]):
                if not (a.exact and b.exact and a.sql is not None and b.sql is not None):
                    return Cond(sql, False) if sql is not None else RESIDUAL
                sql = S.both(sql, S.cmp(op, a.sql, b.sql))
            return Cond(sql, exact)
        if not all(k in (SET, NUMBER) for k in kinds):
            return RESIDUAL
        values: list[tuple[exp.Expression | None, bool, bool]] = []  # (sql, exact, nullable)
        for operand, kind in zip(node.operands, kinds):
            if kind == SET:
                term = self.set(operand, row)
                values.append((S.popcount(term.sql) if term.sql is not None else None, term.exact, False))
            else:
                number = self.num(operand, row)
                values.append((number.sql, number.exact, number.nullable) if number else (None, False, False))
        for op, (a, a_exact, _), (b, b_exact, _) in zip(node.ops, values, values[1:]):
            if a is None or b is None:
                exact = False
                continue
            if a_exact and b_exact:
                sql = S.both(sql, S.cmp(op, a, b))
            elif op in (">", ">=") and b_exact or op in ("<", "<=") and a_exact:  # a <= its bound: a > b needs bound > b
                sql, exact = S.both(sql, S.cmp(op, a, b)), False
            else:
                exact = False
        if sql is None:
            return TRUE if exact else RESIDUAL
        return Cond(S.definite(sql), exact)

    def _cond_binary(self, node: ast.Binary, row: Row) -> Cond:
        if node.op == "in":
            a, b = self.set(node.left, row), self.set(node.right, row)
            if a.exact and b.exact and a.sql is not None and b.sql is not None:
                return Cond(S.cmp("==", S.band(a.sql, S.bnot(b.sql)), S.num(0)), True)
            return RESIDUAL
        if node.op == "attacks" and self.attack_maps and _whole_sides(node.left) is not None:
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

    def _cond_transform(self, node: ast.Transform, row: Row) -> Cond:
        if node.count:
            return TRUE  # a count is a number, 0 included: it always has a value
        parts = [self.cond(member, row) for member in _members(node)]
        if not parts:
            return Cond(S.false(), True)  # every member fell off the board
        return _any(parts)

    def _cond_call(self, node: ast.Call, row: Row) -> Cond:
        if node.name in ("between", "makesquare"):
            return self._set_cond(self.set(node, row))
        if node.name in ("max", "min"):
            return self._num_cond(self.num(node, row))
        return RESIDUAL

    def _cond_sort(self, node: ast.Sort, row: Row) -> Cond:
        self.python_needed.append(node)
        return self.cond(node.body, row)

    def _cond_output(self, node: ast.Output, row: Row) -> Cond:
        self.python_needed.append(node)
        return TRUE

    def _cond_iterate(self, node: ast.Iterate, row: Row) -> Cond:
        if node.all:
            return RESIDUAL
        domain = self.set(node.domain, row)  # the value is the part of the domain where the body holds
        if domain.const is not None and not domain.const:
            return Cond(S.false(), True)
        return Cond(S.nonzero(domain.sql), False) if domain.sql is not None else RESIDUAL

    def _cond_gamefilter(self, node: ast.GameFilter, row: Row) -> Cond:
        strings = [a.value for a in node.args if isinstance(a, ast.String)]
        side = next((a.name for a in node.args if isinstance(a, ast.Keyword)), None)
        if node.name == "fen":
            return self._fen(strings[0], row)
        if not row.top:
            return RESIDUAL  # the game row is joined at the top only; the top condition prunes games
        self.uses_games = True
        if node.name == "result":
            return Cond(exp.EQ(this=S.paren(_coalesce_text(S.col("result", "g"))), expression=S.text(strings[0])),
                        True)
        if node.name == "player":
            names = ["white"] if side == "white" else ["black"] if side == "black" else ["white", "black"]
            tests = [exp.func("contains", _coalesce_text(S.col(n, "g")), S.text(strings[0])) for n in names]
            return Cond(tests[0] if len(tests) == 1 else S.either(*tests), True)
        if node.name in _TAGS:
            tag = exp.Bracket(this=S.col("tags", "g"), expressions=[S.text(_TAGS[node.name])])
            return Cond(exp.func("contains", _coalesce_text(tag), S.text(strings[0])), True)
        return self._num_cond(self.num(node, row))

    def _fen(self, fen: str, row: Row) -> Cond:
        fields = fen.split()
        try:
            board = chess.BaseBoard(fields[0])
        except (ValueError, IndexError):
            return Cond(S.false(), True)
        b, w = board.occupied_co
        boards = (board.kings & w, board.queens & w, board.rooks & w, board.bishops & w, board.knights & w,
                  board.pawns & w, board.kings & b, board.queens & b, board.rooks & b, board.bishops & b,
                  board.knights & b, board.pawns & b)
        sql: exp.Expression | None = None
        for column, value in zip(_PIECE_COLUMNS, boards):
            sql = S.both(sql, exp.EQ(this=S.col(column, row.alias), expression=S.mask(value)))
        if len(fields) > 1 and fields[1] in ("w", "b"):
            wtm = S.col("wtm", row.alias)
            sql = S.both(sql, wtm if fields[1] == "w" else S.negate(wtm))
        return Cond(sql, True)

    # ---------------------------------------------------------------- other positions

    def _other(self) -> str:
        return f"q{next(self._aliases)}"

    def _exists(self, alias: str, link: exp.Expression, body: exp.Expression | None, row: Row) -> exp.Expression:
        where = S.both(exp.EQ(this=S.col("gamenumber", alias), expression=S.col("gamenumber", row.alias)), link)
        where = S.both(where, body)
        query = exp.select(exp.Literal.number(1)).from_(exp.to_table("positions").as_(alias)).where(where)
        return exp.Exists(this=query)

    def _somewhere(self, sql: exp.Expression, row: Row, alias: str) -> exp.Expression:
        where = sql if self.variations else S.both(S.col("mainline", alias), sql)
        query = exp.select(S.col("gamenumber", alias)).from_(exp.to_table("positions").as_(alias)).where(where)
        return S.in_query(S.col("gamenumber", row.alias), query)

    def _game_level(self, node: ast.Node, row: Row, linear: bool = False) -> Cond:
        alias = self._other()
        body = self.cond(node, Row(alias, linear=linear))
        if body.sql is None:
            return RESIDUAL
        return Cond(self._somewhere(body.sql, row, alias), False)

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
        if node.low is not None and (not isinstance(node.low, int) or node.low < 1):
            return RESIDUAL  # a bound held in a variable ('v=2 find v F') is known only when evaluating
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

    def _cond_line(self, node: ast.Line, row: Row) -> Cond:
        # The leading constituents every match starts with, one position each, as a chain of
        # children (parents for '<--'): line --> check --> check --> mate needs a check here, a
        # check on a child and a mate on a grandchild.
        prefix = [] if "singlecolor" in node.params else _fixed_prefix(node.items)
        sql = self._chain(prefix, row, node.backward) if prefix else None
        if sql is None:
            first = _first_constituent(node.items)
            if first is not None:
                sql = self.cond(first, replace(row, linear=True)).sql
        for item in dict.fromkeys(_mandatory(node.items)):  # each distinct constituent once
            part = self._game_level(item, row, linear=True)
            sql = S.both(sql, part.sql)
        return Cond(sql, False) if sql is not None else RESIDUAL

    def _chain(self, filters: list[ast.Node], row: Row, backward: bool) -> exp.Expression | None:
        """``filters[0]`` here, ``filters[1]`` one step on, ...: a necessary condition (None: no SQL)."""
        here = self.cond(filters[0], replace(row, linear=True)).sql
        if len(filters) == 1:
            return here
        alias = self._other()
        if backward:
            link = exp.EQ(this=S.col("positionid", alias), expression=S.col("parent", row.alias))
        else:
            link = self._child_link(alias, row)
        rest = self._chain(filters[1:], Row(alias), backward)
        step = self._exists(alias, link, rest, row)
        return S.both(here, step)

    def _cond_echo(self, node: ast.Echo, row: Row) -> Cond:
        return self._game_level(node.body, row)

    # ---------------------------------------------------------------- moves

    def _cond_move(self, node: ast.Move, row: Row) -> Cond:
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

    def _child_link(self, alias: str, row: Row) -> exp.Expression:
        link = exp.EQ(this=S.col("parent", alias), expression=S.col("positionid", row.alias))
        if not self.variations:
            link = S.both(link, exp.EQ(this=S.col("child_index", alias), expression=S.num(0)))
        return link

    def _move_param(self, name: str, value: ast.Node | None, m: str, before: Row) -> Cond | None:
        col = lambda c: S.col(c, m)
        if name in ("from", "to", "capture", "enpassantsquare"):
            term = self.set(value, before)
            if term.sql is None:
                return None
            square = {"from": col("move_from"), "to": col("move_to"), "capture": _captured_square(m),
                      "enpassantsquare": col("move_to")}[name]
            sql = S.has(term.sql, square)
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
        sql = normal
        if not node.capture and node.promote is None:
            castle = S.not_null(c("castle"))
            if self.chess960:
                rook = castle  # Chess960 rooks start anywhere: any castling move stays a candidate
                exact = False
            else:
                kingside = exp.EQ(this=c("castle"), expression=S.num(1))
                rook_from = exp.Case(ifs=[exp.If(this=kingside, true=exp.Add(this=c("move_from"),
                                                                               expression=S.num(3)))],
                                     default=exp.Sub(this=c("move_from"), expression=S.num(4)))
                rook_to = exp.Case(ifs=[exp.If(this=kingside, true=exp.Add(this=c("move_from"), expression=S.num(1)))],
                                   default=exp.Sub(this=c("move_from"), expression=S.num(1)))
                rook = castle
                if left is not None and left.sql is not None:
                    rook = S.both(rook, S.has(left.sql, rook_from))
                if right is not None and right.sql is not None:
                    rook = S.both(rook, S.has(right.sql, rook_to))
            sql = S.either(normal, rook) if normal is not None else None
        sql = S.both(S.negate(c("null_move")), sql)
        if node.target:
            # '--(F ...)': the target holds at the child the move leads to, as a compound there.
            after = self._all(node.target, Row(alias))
            sql = S.both(sql, after.sql)
            exact = exact and after.exact
        return Cond(self._exists(alias, self._child_link(alias, row), sql, row), exact)

    # ---------------------------------------------------------------- sets

    def set(self, node: ast.Node, row: Row) -> SetTerm:
        method = getattr(self, f"_set_{type(node).__name__.lower()}", None)
        if method is None:
            return UNBOUNDED
        return method(node, row)

    def _set_pieces(self, node: ast.Pieces, row: Row) -> SetTerm:
        if len(node.pieces) == 13 or node.squares == 0:
            return _const(node.squares)
        parts = [S.col(column, row.alias) for letter, column in zip(_LETTERS, _PIECE_COLUMNS)
                 if letter in node.pieces]
        if "_" in node.pieces:
            occupied = S.bor(*(S.col(column, row.alias) for column in _PIECE_COLUMNS))
            parts.append(S.bnot(occupied))
        sql = S.bor(*parts)
        if node.squares != _ALL:
            sql = S.band(sql, S.mask(node.squares))
        return SetTerm(sql, True)

    def _set_keyword(self, node: ast.Keyword, row: Row) -> SetTerm:
        if node.name in ("passedpawns", "isolatedpawns", "doubledpawns", "connectedpawns"):
            return SetTerm(S.bor(S.col("wp", row.alias), S.col("bp", row.alias)), False)
        return UNBOUNDED

    def _set_binary(self, node: ast.Binary, row: Row) -> SetTerm:
        a, b = self.set(node.left, row), self.set(node.right, row)
        if node.op == "|":
            if a.const is not None and b.const is not None:
                return _const(a.const | b.const)
            if a.sql is None or b.sql is None:
                return UNBOUNDED
            return SetTerm(S.bor(a.sql, b.sql), a.exact and b.exact)
        if node.op == "&":
            if a.const is not None and b.const is not None:
                return _const(a.const & b.const)
            if a.sql is None:
                return SetTerm(b.sql, False)
            if b.sql is None:
                return SetTerm(a.sql, False)
            return SetTerm(S.band(a.sql, b.sql), a.exact and b.exact)
        if node.op == "attacks":
            # Squares of the left side, and only where its colours attack a square of the right side.
            if a.sql is None:
                return UNBOUNDED
            reach = self._attacked(node.left, row)
            guard = b.sql if reach is None else (S.band(b.sql, reach) if b.sql is not None else reach)
            if guard is None:
                return SetTerm(a.sql, False)
            return SetTerm(exp.Case(ifs=[exp.If(this=S.nonzero(guard), true=S.paren(a.sql))], default=S.num(0)),
                           False)
        if node.op == "attackedby":
            # Squares of the left side that the right side's colours attack: exact when the right
            # side is every piece of its colours, because the attack maps are exactly their union.
            reach = self._attacked(node.right, row)
            if reach is None:
                return SetTerm(a.sql, False)
            if a.sql is None:
                return SetTerm(reach, False)
            return SetTerm(S.band(a.sql, reach), a.exact and _whole_sides(node.right) is not None)
        return UNBOUNDED

    def _attacked(self, node: ast.Node, row: Row) -> exp.Expression | None:
        """The squares the pieces of ``node``'s colours attack (None without attack maps)."""
        if not self.attack_maps:
            return None
        colours = _colours(node)
        columns = [f"{side}_attacks" for side in ("white", "black") if side[0] in colours]
        if not columns:
            return S.num(0)
        return S.bor(*(S.col(c, row.alias) for c in columns))

    def _set_unary(self, node: ast.Unary, row: Row) -> SetTerm:
        a = self.set(node.arg, row)
        if node.op == "~":
            if a.const is not None:
                return _const(_ALL & ~a.const)
            return SetTerm(S.bnot(a.sql), True) if a.exact and a.sql is not None else UNBOUNDED
        if node.op in ("light", "dark"):
            squares = chess.BB_LIGHT_SQUARES if node.op == "light" else chess.BB_DARK_SQUARES
            if a.const is not None:
                return _const(a.const & squares)
            return SetTerm(S.band(a.sql, S.mask(squares)), a.exact) if a.sql is not None else SetTerm(
                S.mask(squares), False)
        return UNBOUNDED

    def _set_direction(self, node: ast.Direction, row: Row) -> SetTerm:
        a = self.set(node.arg, row)
        if a.const is not None:
            return _const(direction_mask(node.name, node.low, node.high, a.const))
        return UNBOUNDED

    def _set_call(self, node: ast.Call, row: Row) -> SetTerm:
        if node.name == "between" and len(node.args) == 2:
            a, b = (self.set(arg, row) for arg in node.args)
            if a.const is not None and b.const is not None:
                out = 0
                for x in chess.scan_forward(a.const):
                    for y in chess.scan_forward(b.const):
                        out |= chess.between(x, y)
                return _const(out)
        return UNBOUNDED

    def _set_transform(self, node: ast.Transform, row: Row) -> SetTerm:
        if node.count:
            return UNBOUNDED
        terms = [self.set(member, row) for member in _members(node)]
        if not terms or any(t.sql is None and t.const is None for t in terms):
            return UNBOUNDED
        if all(t.const is not None for t in terms):
            out = 0
            for t in terms:
                out |= t.const
            return _const(out)
        return SetTerm(S.bor(*(t.sql for t in terms)), all(t.exact for t in terms))

    def _set_compound(self, node: ast.Compound, row: Row) -> SetTerm:
        return self.set(node.items[0], row) if len(node.items) == 1 else UNBOUNDED

    def _set_sort(self, node: ast.Sort, row: Row) -> SetTerm:
        return self.set(node.body, row)

    # ---------------------------------------------------------------- numbers

    def num(self, node: ast.Node, row: Row) -> NumTerm | None:
        method = getattr(self, f"_num_{type(node).__name__.lower()}", None)
        return None if method is None else method(node, row)

    def _num_number(self, node: ast.Number, row: Row) -> NumTerm:
        return NumTerm(S.num(node.value), const=node.value)

    def _num_keyword(self, node: ast.Keyword, row: Row) -> NumTerm | None:
        if node.name in _NUMBER_COLUMNS:
            return NumTerm(S.col(_NUMBER_COLUMNS[node.name], row.alias))
        if node.name == "sidetomove":
            return NumTerm(exp.Case(ifs=[exp.If(this=S.col("wtm", row.alias), true=S.num(1))], default=S.num(-1)))
        if node.name in ("white", "black"):
            value = 1 if node.name == "white" else -1
            return NumTerm(S.num(value), const=value)
        return None

    def _num_unary(self, node: ast.Unary, row: Row) -> NumTerm | None:
        if node.op == "#" and kind_of(node.arg) == SET:
            term = self.set(node.arg, row)
            if term.const is not None:
                return NumTerm(S.num(term.const.bit_count()), const=term.const.bit_count())
            return NumTerm(S.popcount(term.sql), exact=term.exact) if term.sql is not None else None
        if node.op == "power":
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
            lines = chess.BB_RANKS if node.op == "rank" else chess.BB_FILES
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

    def _num_gamefilter(self, node: ast.GameFilter, row: Row) -> NumTerm | None:
        if not row.top or any(isinstance(a, ast.String) for a in node.args):
            return None
        side = next((a.name for a in node.args if isinstance(a, ast.Keyword)), None)
        if node.name == "year":
            self.uses_games = True
            return NumTerm(S.col("year", "g"), nullable=True)
        if node.name == "elo" and side in ("white", "black"):
            self.uses_games = True
            return NumTerm(S.col(f"{side}_elo", "g"), nullable=True)
        return None

    def _num_transform(self, node: ast.Transform, row: Row) -> NumTerm | None:
        if not node.count:
            return None
        parts = [self.cond(member, row) for member in _members(node)]
        if not all(p.exact for p in parts):
            return None
        total: exp.Expression = S.num(0)
        for part in parts:
            hit = S.definite(part.sql) if part.sql is not None else S.true()
            total = exp.Add(this=total, expression=exp.Case(ifs=[exp.If(this=hit, true=S.num(1))], default=S.num(0)))
        return NumTerm(S.paren(total))

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

    def _num_compound(self, node: ast.Compound, row: Row) -> NumTerm | None:
        return self.num(node.items[0], row) if len(node.items) == 1 else None

    def _num_sort(self, node: ast.Sort, row: Row) -> NumTerm | None:
        return self.num(node.body, row)


_TREE_NODES = (ast.Colon, ast.ChildN, ast.Find, ast.Line, ast.Echo, ast.Dash, ast.Path)
_TREE_KEYWORDS = frozenset(("terminal", "child", "parent", "to", "from", "initialposition"))
_TREE_CALLS = frozenset(("ancestor", "descendant", "lca", "distance"))


def needs_tree(node: ast.Node) -> bool:
    """Whether evaluating ``node`` looks at other positions of the game than the current one.

    When it does not, the evaluator can confirm candidates from their own rows alone, without
    rebuilding whole game trees (:func:`cqlindex.store.trees.load_positions`).
    """
    return any(_reads_tree(inner) for inner in ast.walk(node))


def _reads_tree(node: ast.Node) -> bool:
    return (isinstance(node, _TREE_NODES)
            or (isinstance(node, ast.Keyword) and node.name in _TREE_KEYWORDS)
            or (isinstance(node, ast.Call) and node.name in _TREE_CALLS)
            or (isinstance(node, ast.Move) and node.mode in ("played", "previous")))


def _any(parts: list[Cond]) -> Cond:
    """The disjunction: true if one branch is always true, SQL only if every branch has SQL."""
    if any(p.sql is None and p.exact for p in parts):
        return TRUE
    if any(p.sql is None for p in parts):
        return RESIDUAL
    sql = parts[0].sql
    for part in parts[1:]:
        sql = S.either(sql, part.sql)
    return Cond(sql, all(p.exact for p in parts))


def _colours(node: ast.Node) -> str:
    """The colours ("w", "b") of the pieces a set filter's squares can hold, for attack maps."""
    if isinstance(node, ast.Pieces):
        if len(node.pieces) == 13:
            return "wb"
        return ("w" if any(x in "KQRBNP" for x in node.pieces) else "") + \
            ("b" if any(x in "kqrbnp" for x in node.pieces) else "")
    if isinstance(node, ast.Binary) and node.op in ("|", "&"):
        left, right = _colours(node.left), _colours(node.right)
        if node.op == "|":
            return "".join(c for c in "wb" if c in left or c in right)
        return "".join(c for c in "wb" if c in left and c in right)
    if isinstance(node, ast.Transform) and not node.count:
        members = [_colours(m) for m in _members(node)]
        return "".join(c for c in "wb" if any(c in m for m in members))
    if isinstance(node, (ast.Compound,)) and len(node.items) == 1:
        return _colours(node.items[0])
    if isinstance(node, ast.Sort):
        return _colours(node.body)
    return "wb"


def _whole_sides(node: ast.Node) -> str | None:
    """The colours whose every piece ``node`` holds (``A``, ``a``, ``[Aa]``, with any ``_``), else None."""
    if not isinstance(node, ast.Pieces) or node.squares != _ALL:
        return None
    letters = node.pieces - {"_"}
    if letters == set("KQRBNP") or letters == set("kqrbnp") or letters == set(_LETTERS):
        return _colours(node)
    return None


def _const(squares: int) -> SetTerm:
    return SetTerm(S.mask(squares), True, squares)


def _coalesce_text(e: exp.Expression) -> exp.Expression:
    return exp.func("coalesce", e, S.text(""))


def _captured_square(alias: str) -> exp.Expression:
    """The square of the piece the move into row ``alias`` took (NULL if none): en passant below the target."""
    to = S.col("move_to", alias)
    ep = exp.Case(ifs=[exp.If(this=S.col("wtm", alias), true=exp.Add(this=to, expression=S.num(8)))],
                  default=exp.Sub(this=to, expression=S.num(8)))
    return exp.Case(ifs=[exp.If(this=S.col("en_passant", alias), true=ep),
                         exp.If(this=S.not_null(S.col("captured", alias)),
                                true=to)], default=exp.Null())


def _members(node: ast.Transform) -> list[ast.Node]:
    from cqlindex.evaluate.transform import expand

    return expand(node)


def _first_constituent(items: tuple[ast.Node, ...]) -> ast.Node | None:
    """The filter a line must match at its start position, when the first constituent must match once."""
    if not items:
        return None
    first = items[0]
    while True:
        if isinstance(first, ast.Repeat):
            if first.low < 1:
                return None
            first = first.arg
        elif isinstance(first, ast.Sequence):
            if not first.items:
                return None
            first = first.items[0]
        else:
            return first


def _fixed_prefix(items: tuple[ast.Node, ...], limit: int = 8) -> list[ast.Node]:
    """The filters of the positions every match of a line starts with, in order (at most ``limit``).

    A plain constituent takes one position; ``F{m,n}`` takes m positions for sure, after which
    the positions no longer line up with the constituents, so the prefix ends there.
    """
    out: list[ast.Node] = []
    for item in items:
        if isinstance(item, ast.Repeat) and not isinstance(item.arg, (ast.Repeat, ast.Sequence)):
            out.extend([item.arg] * min(item.low, limit))
            if item.high != item.low:
                break
        elif isinstance(item, (ast.Repeat, ast.Sequence)):
            break
        else:
            out.append(item)
        if len(out) >= limit:
            break
    return out[:limit]


def _mandatory(items: tuple[ast.Node, ...]) -> list[ast.Node]:
    """Constituents every match of the line must contain (not optional, not repeated from zero)."""
    out = []
    for item in items:
        if isinstance(item, ast.Repeat):
            if item.low >= 1:
                out.extend(_mandatory((item.arg,)))
        elif isinstance(item, ast.Sequence):
            out.extend(_mandatory(item.items))
        else:
            out.append(item)
    return out


#: Largest test (in sqlglot nodes) an exact 'if' repeats; beyond it the 'if' is only narrowed.
_MAX_REPEATED_SQL = 500


def _size(sql: exp.Expression | None) -> int:
    return 0 if sql is None else sum(1 for _ in sql.walk())
