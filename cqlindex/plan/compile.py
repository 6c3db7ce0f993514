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
rewriting (:mod:`cqlindex.query.rewrite`, done once per query), and the differential tests hold every exact
form to the evaluator's answers.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlglot import exp

from cqlindex.cql import ast
from cqlindex.cql.kinds import NUMBER, SET, STRING, kind_of
from cqlindex.filters.game.sql import GameSQL
from cqlindex.filters.moves.sql import MovesSQL
from cqlindex.filters.output.sql import OutputSQL
from cqlindex.filters.position.sql import PositionSQL
from cqlindex.filters.relation.sql import RelationSQL
from cqlindex.filters.sequences.sql import SequencesSQL
from cqlindex.filters.sets.sql import SetsSQL
from cqlindex.filters.strings.sql import StringsSQL
from cqlindex.filters.transforms.sql import TransformsSQL
from cqlindex.filters.tree.sql import TreeSQL
from cqlindex.plan import sql as S
from cqlindex.plan.offsets import Reads
from cqlindex.plan.terms import RESIDUAL, TRUE, UNBOUNDED, Cond, NumTerm, Row, SetTerm, any_of
from cqlindex.query.rewrite import expand


@dataclass
class Compiler(PositionSQL, SetsSQL, MovesSQL, TreeSQL, SequencesSQL, RelationSQL, GameSQL, TransformsSQL,
               OutputSQL, StringsSQL):
    """Compiles the filters of one query for one search mode (main line only, or variations).

    Here: the dispatch on node type, logic and comparison, and the links to other rows; each
    family's filters are compiled by its ``<Family>SQL`` class (``cqlindex/filters/<family>/sql.py``),
    mixed in.
    """

    variations: bool
    attack_maps: bool = True  # whether positions has white_attacks / black_attacks (schema 2)
    #: Each transform filter's members, rewritten once for the query (shared with the evaluator).
    expansions: Callable[[ast.Transform], list[ast.Node]] = expand
    material: bool = False  # whether positions has the packed piece counts (schema 5)
    pins: bool = False  # whether positions has the pieces pinned to their king (schema 6)
    twice: bool = False  # whether positions has the squares attacked twice (schema 7)
    #: whether each game's rows lie consecutive in storage (store/rowmap.py): main-line windows
    #: then stream over row ids (plan/offsets.py); DuckDB only, never a plan for another engine
    rowids: bool = False
    uses_games: bool = False
    #: a chain became a window over the main line (plan/offsets.py): run the plan a batch of games at a time
    windowed: bool = False
    #: each such window by its alias: (its condition on its row, what it reads), so that a
    #: window of the plan's own row can take it in (plan/offsets.py, windowed_where)
    windows: dict[str, tuple[exp.Expression, Reads]] = field(default_factory=dict)
    python_needed: list[ast.Node] = field(default_factory=list)  # filters whose output needs Python
    #: find bodies SQL can only narrow, with the SELECT of the positions where they may hold:
    #: the evaluator tests such a body only there (see Evaluator.prefilter).
    prefilters: list[tuple[ast.Node, exp.Select]] = field(default_factory=list)
    _aliases: itertools.count = field(default_factory=lambda: itertools.count(1))
    #: square and piece variables of the iterations being compiled: name -> (the row they are
    #: bound at, their domain there as an upper bound, the domain's filter, "square" or "piece")
    bindings: dict[str, tuple[str, SetTerm, ast.Node, str]] = field(default_factory=dict)
    #: piece variables whose moves a chain follows from the first (filters/sets/sql.py, _followed_piece)
    followed_exactly: set[str] = field(default_factory=set)

    # ---------------------------------------------------------------- logical filters

    def cond(self, node: ast.Node, row: Row) -> Cond:
        method = getattr(self, f"_cond_{type(node).__name__.lower()}", None)
        if method is None:
            return RESIDUAL
        return method(node, row)

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
        return any_of([self.cond(item, row) for item in node.items])

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
        if STRING in kinds:
            return self.string_compare(node, row)
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
        # (sql, exact, the least value it can have, its value where it is a constant)
        values: list[tuple[exp.Expression | None, bool, int | None, int | None]] = []
        for operand, kind in zip(node.operands, kinds):
            if kind == SET:
                term = self.set(operand, row)
                values.append((S.popcount(term.sql) if term.sql is not None else None, term.exact, 0, None))
            elif (number := self.num(operand, row)) is None:
                values.append((None, False, None, None))
            else:
                low = 0 if isinstance(operand, ast.Unary) and operand.op == "#" else number.const
                values.append((number.sql, number.exact, low, number.const))
        for op, (a, a_exact, a_low, a_const), (b, b_exact, b_low, b_const) in zip(node.ops, values, values[1:]):
            if a is None or b is None:
                exact = False
                continue
            if a_exact and b_exact:
                sql = S.both(sql, S.cmp(op, a, b))
                continue
            exact = False
            if op == "==" and (a_exact or b_exact):  # a == b needs the bound of the other to reach it
                op = ">=" if b_exact else "<="
            elif not (op in (">", ">=") and b_exact or op in ("<", "<=") and a_exact):
                continue  # a <= its bound: a > b needs bound > b; nothing to say of a < b
            # A count's bound is never below 0: 'bound >= 0' (#(a attacks s) == 0) holds everywhere,
            # where the other side is a constant (#p, also never below 0, can still exceed it).
            bound_low, other = (a_low, b_const) if op in (">", ">=") else (b_low, a_const)
            if not (bound_low is not None and other is not None and (other < bound_low or
                                                                       other == bound_low and op in (">=", "<="))):
                sql = S.both(sql, S.cmp(op, a, b))
        if sql is None:
            return TRUE if exact else RESIDUAL
        return Cond(S.definite(sql), exact)

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

    # ---------------------------------------------------------------- moves

    def _child_link(self, alias: str, row: Row) -> exp.Expression:
        link = exp.EQ(this=S.col("parent", alias), expression=S.col("positionid", row.alias))
        if not self.variations:
            link = S.both(link, exp.EQ(this=S.col("child_index", alias), expression=S.num(0)))
        return link

    # ---------------------------------------------------------------- sets

    def set(self, node: ast.Node, row: Row) -> SetTerm:
        method = getattr(self, f"_set_{type(node).__name__.lower()}", None)
        if method is None:
            return UNBOUNDED
        return method(node, row)

    def _set_compound(self, node: ast.Compound, row: Row) -> SetTerm:
        return self.set(node.items[0], row) if len(node.items) == 1 else UNBOUNDED

    # ---------------------------------------------------------------- numbers

    def num(self, node: ast.Node, row: Row) -> NumTerm | None:
        method = getattr(self, f"_num_{type(node).__name__.lower()}", None)
        return None if method is None else method(node, row)

    def _num_number(self, node: ast.Number, row: Row) -> NumTerm:
        return NumTerm(S.num(node.value), const=node.value)

    def _num_compound(self, node: ast.Compound, row: Row) -> NumTerm | None:
        return self.num(node.items[0], row) if len(node.items) == 1 else None


#: Largest test (in sqlglot nodes) an exact 'if' repeats; beyond it the 'if' is only narrowed.
_MAX_REPEATED_SQL = 500


def _size(sql: exp.Expression | None) -> int:
    return 0 if sql is None else sum(1 for _ in sql.walk())
