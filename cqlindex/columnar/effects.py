"""Assignments that outlive the filter making them: an ``if``'s branch, a ``loop``'s round, a
set iteration's square taken in turn.

The tree-walker keeps one set of variables per position, so what a branch, a round or an
iteration's body assigns is seen by whatever is evaluated after it (``if seen == 0 {dr = ...
seen = 1}`` in systematicmaneuver.cql, ``Length += 1`` in serialpin.cql's loop), and what a
compound assigned before one of its members failed stays assigned. The columnar engine keeps a
variable as an array per context; here a filter in such a place is evaluated on a context of
some rows of its parent's, and each variable it changed is written back to the parent at those
rows, member after member (so a failing member leaves what the ones before it did). Which
places these are, and that nothing reads a variable where it cannot follow it, is
:func:`cqlindex.columnar.variables.scoping_problem`'s.
"""

from __future__ import annotations

import numpy as np

from cqlindex.columnar.engine import Columnar, Ctx, PieceVar
from cqlindex.columnar.values import SET, NotColumnar, Val, matched, scatter
from cqlindex.columnar.variables import members
from cqlindex.cql import ast


def through(cm: Columnar, node: ast.Node, ctx: Ctx) -> Val:
    """``node``'s value at ``ctx``, whose variables take what it assigns (a compound's members
    one after another, each at the rows where the ones before it matched)."""
    if not isinstance(node, ast.Compound) or not node.items:
        return cm.eval(node, ctx)
    items = members(node)
    size = len(ctx)
    alive = np.arange(size)
    current = Ctx(ctx.rows, dict(ctx.vars), ctx.linear, ctx.repeats)
    value = None
    for index, item in enumerate(items):
        before = dict(current.vars)
        value = cm.eval(item, current)
        write_back(ctx, current, before, alive)
        if index == len(items) - 1:
            break
        holds = value.truth()
        if not holds.all():
            keep = np.flatnonzero(holds)
            alive = alive[keep]
            current = current.take(keep)
            if not len(alive):
                return matched(np.zeros(size, bool))  # as a compound's: no kind of its own
    if value.kind == SET:
        value = Val(SET, value.data, value.ok & (value.data != 0))
    return value if len(alive) == size else scatter(value, alive, size)


def write_back(ctx: Ctx, inner: Ctx, before: dict, index: np.ndarray) -> None:
    """The variables ``inner`` (rows ``index`` of ``ctx``) changed since ``before``, put into
    ``ctx`` at those rows; a new one is undefined at ``ctx``'s other rows."""
    for name, new in inner.vars.items():
        if before.get(name) is not new:
            ctx.vars[name] = _placed(ctx, name, new, index)


def _placed(ctx: Ctx, name: str, new: Val | PieceVar, index: np.ndarray) -> Val | PieceVar:
    size = len(ctx)
    if len(index) == size:
        return new  # every row: ``index`` is 0..size-1 (a context's rows are never reordered here)
    old = ctx.vars.get(name)
    if isinstance(new, PieceVar):
        if old is None:
            old = PieceVar(ctx.rows.copy(), np.zeros(size, np.uint64))
        elif not isinstance(old, PieceVar):
            raise NotColumnar(None, f"the variable {name} changes kind")
        rows, bits = old.rows.copy(), old.bits.copy()
        rows[index], bits[index] = new.rows, new.bits
        return PieceVar(rows, bits)
    if old is None:
        return scatter(new, index, size)
    if not isinstance(old, Val) or old.kind != new.kind:
        raise NotColumnar(None, f"the variable {name} changes kind")
    ok = old.ok.copy()
    ok[index] = new.ok
    data = None
    if old.data is not None:
        data = old.data.copy()
        data[index] = new.data
    return Val(old.kind, data, ok)


def same(a: Val | PieceVar | None, b: Val | PieceVar | None) -> np.ndarray | bool:
    """Per row, whether two values of one variable are equal (a round of a loop that changed
    nothing would go on for ever)."""
    if a is None or b is None:
        return a is b
    if isinstance(a, PieceVar) or isinstance(b, PieceVar):
        if not (isinstance(a, PieceVar) and isinstance(b, PieceVar)):
            return False
        return (a.rows == b.rows) & (a.bits == b.bits)
    if a.kind != b.kind:
        return False
    equal = a.ok == b.ok
    if a.data is not None:
        equal &= ~a.ok | (a.data == b.data)
    return equal


def _changed(before: dict, inner: Ctx) -> np.ndarray:
    """Per row of ``inner``, whether a variable has another value than in ``before``."""
    changed = np.zeros(len(inner), bool)
    for name, value in inner.vars.items():
        if before.get(name) is not value:
            changed |= ~np.broadcast_to(same(before.get(name), value), len(inner))
    return changed


def repeat_while(cm: Columnar, node: ast.Control, ctx: Ctx) -> Val:
    """``while (C) F``: as long as C matches, F (matching or not); always matches. A round
    that changes nothing would go on for ever, as for :func:`loop`. A regular-expression C
    resumes its search where it last matched: the tree-walker's."""
    cond, body = node.args
    if isinstance(cond, ast.Binary) and cond.op == "~~":
        raise NotColumnar(node, "'while' over a string's matches")
    live = np.arange(len(ctx))
    while len(live):
        inner = ctx.take(live)
        before = dict(inner.vars)
        holds = through(cm, cond, inner).truth()
        go = np.flatnonzero(holds)
        if len(go):
            part = inner.take(go)
            start = dict(part.vars)
            through(cm, body, part)
            write_back(inner, part, start, go)
        if (holds & ~_changed(before, inner)).any():
            raise NotColumnar(node, "a while round that changes nothing (the tree-walker reports it)")
        write_back(ctx, inner, before, live)
        live = live[holds]
    return matched(np.ones(len(ctx), bool))


def loop(cm: Columnar, node: ast.Control, ctx: Ctx) -> Val:
    """``loop F``: F again and again until it fails, a round for every row still going at once;
    matches where F matched once. What a round assigns stays, a failing one's too, as the
    tree-walker keeps it (:mod:`cqlindex.filters.control.python`). A row whose round matches and
    changes nothing would go round for ever: the tree-walker then reports the error."""
    body = node.args[0]
    ran = np.zeros(len(ctx), bool)
    live = np.arange(len(ctx))
    while len(live):
        inner = ctx.take(live)
        before = dict(inner.vars)
        holds = through(cm, body, inner).truth()
        if (holds & ~_changed(before, inner)).any():
            raise NotColumnar(node, "a loop round that changes nothing (the tree-walker reports it)")
        write_back(ctx, inner, before, live)
        ran[live[holds]] = True
        live = live[holds]
    return matched(ran)
