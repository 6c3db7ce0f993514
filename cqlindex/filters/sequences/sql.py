"""The SQL of line (a chain of child rows, and game-level conditions) and of path (a move here).

Methods of :class:`cqlindex.plan.compile.Compiler`, mixed in.
"""

from __future__ import annotations

from dataclasses import replace

from sqlglot import exp

from cqlindex.cql import ast
from cqlindex.plan import sql as S
from cqlindex.plan.offsets import windowed_chain, windowed_chains
from cqlindex.plan.terms import RESIDUAL, Cond, Row



#: Positions of a line's fixed prefix the SQL follows at most. Each is a few window columns
#: (computed once a row, plan/offsets.py); twelve let a line of six moves by one side, such as
#: ``(move from K --> .){6}``, be decided in SQL whole.
PREFIX_STEPS = 12
#: Chains a line with bounded repetitions is decided as at most (one per count of each): p15 of
#: the patterns, ``. --> .{0,5} --> mate``, is six.
COUNTED_CHAINS = 8


class SequencesSQL:
    """The sequences family's SQL."""

    __slots__ = ()

    def _cond_line(self, node: ast.Line, row: Row) -> Cond:
        # The leading constituents every match starts with, one position each, as a chain of
        # children (parents for '<--'): line --> check --> check --> mate needs a check here, a
        # check on a child and a mate on a grandchild.
        chains = _counted_chains(node)
        decided = windowed_chains(self, chains, row, exact_only=True) if chains else None
        if decided is not None:
            return Cond(decided[0], True)
        prefix = [] if "singlecolor" in node.params else _fixed_prefix(node.items)
        windowed = windowed_chain(self, prefix, row, node.backward) if prefix else None
        if windowed is not None and windowed[1] and _decided_by_prefix(node):
            return Cond(windowed[0], True)
        sql = windowed[0] if windowed is not None else None
        if sql is None and prefix:
            sql = self._chain(prefix, row, node.backward)
        # A step the chain holds at a position of this game needs no test that the game has such
        # a position: compiling it twice per level made nested lines cost 2**depth subqueries.
        implied = prefix if sql is not None else []
        if sql is None:
            first = _first_constituent(node.items)
            if first is not None:
                sql = self.cond(first, replace(row, linear=True)).sql
                implied = [first] if sql is not None else []
        for item in dict.fromkeys(x for x in _mandatory(node.items) if x not in implied):  # each distinct one once
            part = self._game_level(item, row, linear=True)
            sql = S.both(sql, part.sql)
        return Cond(sql, False) if sql is not None else RESIDUAL

    def _cond_path(self, node: ast.Path, row: Row) -> Cond:
        # Every match is a walk of at least one move, and its first move is played here (with a
        # focus too: the first focused move must be the next move), so the position has a child.
        return Cond(S.cmp(">", S.col("children", row.alias), S.num(0)), False)

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


def moves_one_piece(line: ast.Line, var: str) -> bool:
    """Whether ``line`` matches exactly where its fixed prefix does (:func:`_decided_by_prefix`)
    and the prefix's steps either never name the piece variable ``var`` or are exactly ``move
    from var``, those at steps 0, 2, 4 ... one after another: the window then ties each move of
    ``var`` to the square the last one reached (:mod:`cqlindex.plan.piece_steps`), so the piece
    its first step moves is the piece every later step moves (what the iteration over ``var``
    asks), not merely one of its kind. ``piece x in N { line --> (move from x --> .){4,} }``."""
    if not _decided_by_prefix(line):
        return False
    steps = _fixed_prefix(line.items)
    named = [k for k, step in enumerate(steps) if ast.mentions(step, var)]
    if not named or named[0] != 0 or any(b - a != 2 for a, b in zip(named, named[1:])):
        return False
    return all(_moves_from(steps[k], var) for k in named)


def _moves_from(step: ast.Node, var: str) -> bool:
    """Whether ``step`` is ``move from var`` and nothing more."""
    if not (isinstance(step, ast.Move) and step.mode == "played" and len(step.params) == 1):
        return False
    (name, value), = step.params
    return name == "from" and isinstance(value, ast.Variable) and value.name == var


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


def _fixed_prefix(items: tuple[ast.Node, ...], limit: int = PREFIX_STEPS) -> list[ast.Node]:
    """The filters of the positions every match of a line starts with, in order (at most ``limit``).

    A plain constituent takes one position, a group of them (``(A --> B)``) one position each;
    ``F{m,n}`` of either takes its m repetitions for sure (``(move from K --> .){5,}``: a king
    move every other position, five times), after which the positions no longer line up with
    the constituents, so the prefix ends there.
    """
    out: list[ast.Node] = []
    for item in items:
        repeated = item.arg if isinstance(item, ast.Repeat) else None
        steps = _one_position_each(repeated if repeated is not None else item)
        if steps is None:
            break
        out.extend(steps * min(item.low, limit) if repeated is not None else steps)
        if len(out) >= limit or (repeated is not None and item.high != item.low):
            break
    return out[:limit]


def _decided_by_prefix(node: ast.Line, limit: int = PREFIX_STEPS) -> bool:
    """Whether a line matches exactly where its fixed prefix (:func:`_fixed_prefix`) holds: a
    forward line without parameters or a length range, each constituent taking a fixed number
    of positions, but the last, whose rounds beyond its lower bound can only lengthen a match
    that the lower bound's rounds already make (``line --> (move capture .){4,}``)."""
    if node.backward or node.params or node.low is not None or node.high is not None:
        return False
    total = 0
    for index, item in enumerate(node.items):
        repeated = item.arg if isinstance(item, ast.Repeat) else None
        steps = _one_position_each(repeated if repeated is not None else item)
        if steps is None:
            return False
        if repeated is None:
            total += len(steps)
            continue
        if item.high is not None and item.high < item.low:
            return False
        if item.high != item.low and index != len(node.items) - 1:
            return False
        total += len(steps) * item.low
    return 0 < total <= limit


def _counted_chains(node: ast.Line, limit: int = PREFIX_STEPS, most: int = COUNTED_CHAINS) -> list[list[ast.Node]]:
    """The chains of filters, one position each, whose matches are exactly the line's, for a
    forward line without parameters or a length range whose constituents each take a fixed
    number of positions but some bounded repetitions (``F{m,n}``, n known): one chain per count
    of each (``. --> .{0,5} --> mate``: a mate one to six positions on), at most ``most``, each
    of at most ``limit`` positions; else none. Sound because the evaluator's line is a set
    simulation: it matches where some counts of the repetitions match, and a match of no
    position is none (seed 003), so the empty chain is left out. A line whose counts are all
    fixed is left to :func:`_decided_by_prefix`."""
    if node.backward or node.params or node.low is not None or node.high is not None:
        return []
    chains: list[list[ast.Node]] = [[]]
    varies = False
    for item in node.items:
        repeated = item.arg if isinstance(item, ast.Repeat) else None
        steps = _one_position_each(repeated if repeated is not None else item)
        if steps is None or repeated is not None and (item.high is None or item.high < item.low):
            return []
        counts = range(item.low, item.high + 1) if repeated is not None else range(1, 2)
        varies = varies or len(counts) > 1
        chains = [chain + steps * count for chain in chains for count in counts]
        if len(chains) > most or any(len(chain) > limit for chain in chains):
            return []
    return [chain for chain in chains if chain] if varies else []


def _one_position_each(item: ast.Node) -> list[ast.Node] | None:
    """The filters of the positions ``item`` takes when it takes one position per filter (a plain
    constituent, or a group of them), else None."""
    if isinstance(item, ast.Sequence):
        if not item.items or any(isinstance(x, (ast.Repeat, ast.Sequence)) for x in item.items):
            return None
        return list(item.items)
    return None if isinstance(item, ast.Repeat) else [item]


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
