"""Sequencing, logic, comparisons, arithmetic and transforms on columns.

Each kernel gives the tree-walker's answer (:mod:`cqlindex.filters.logic.python`,
:mod:`cqlindex.filters.transforms.python`) at every row at once, including its corner cases: a
comparison with a bare match never holds, two sets compare only for equality, a division by
zero has no value.
"""

from __future__ import annotations

import numpy as np

from cqlindex.columnar.count_bound import bounded_count
from cqlindex.columnar.effects import through, write_back
from cqlindex.columnar.engine import Columnar, Ctx, kernel
from cqlindex.columnar.values import (BOOL, COMPARE, NUM, POS, SET, STR, NotColumnar, Val, divided, matched, number,
                                      scatter)
from cqlindex.columnar.variables import members
from cqlindex.cql import ast


@kernel(ast.Compound)
def compound(cm: Columnar, node: ast.Compound, ctx: Ctx) -> Val:
    """Every member must match, in order; the value is the last one's. The context narrows to the
    rows still matching before each member (assignments made in it stay visible to the next)."""
    size = len(ctx)
    if not node.items:
        return matched(np.ones(size, bool))
    items = members(node)
    alive = None
    current = Ctx(ctx.rows, dict(ctx.vars), ctx.linear, ctx.repeats)  # what its members assign stays inside
    for item in items[:-1]:
        holds = cm.test(item, current)
        if not holds.all():
            keep = np.flatnonzero(holds)
            alive = keep if alive is None else alive[keep]
            current = current.take(keep)
    value = cm.eval(items[-1], current) if len(current) else _nothing(cm, items[-1], current)
    if value.kind == SET:
        value = Val(SET, value.data, value.ok & (value.data != 0))
    if alive is not None:
        value = scatter(value, alive, size)
    return value


def _nothing(cm: Columnar, node: ast.Node, ctx: Ctx) -> Val:
    """A value for no rows: the kind does not matter, nothing is defined."""
    return matched(np.zeros(0, bool))


@kernel(ast.And)
def conjunction(cm: Columnar, node: ast.And, ctx: Ctx) -> Val:
    holds = np.ones(len(ctx), bool)
    for item in node.items:
        rows = np.flatnonzero(holds)
        if not len(rows):
            break
        holds[rows] = cm.test(item, ctx.take(rows) if len(rows) < len(ctx) else ctx)
    return matched(holds)


@kernel(ast.Or)
def disjunction(cm: Columnar, node: ast.Or, ctx: Ctx) -> Val:
    holds = np.zeros(len(ctx), bool)
    for item in node.items:
        rows = np.flatnonzero(~holds)
        if not len(rows):
            break
        holds[rows] = cm.test(item, ctx.take(rows) if len(rows) < len(ctx) else ctx)
    return matched(holds)


@kernel(ast.Not)
def negation(cm: Columnar, node: ast.Not, ctx: Ctx) -> Val:
    return matched(~cm.test(node.arg, ctx))


@kernel(ast.If)
def conditional(cm: Columnar, node: ast.If, ctx: Ctx) -> Val:
    holds = cm.test(node.cond, ctx)
    yes, no = np.flatnonzero(holds), np.flatnonzero(~holds)
    parts = [(yes, _branch(cm, node.then, ctx, yes))] if len(yes) else []
    if len(no):
        other = _branch(cm, node.other, ctx, no) if node.other is not None else matched(np.ones(len(no), bool))
        parts.append((no, other))
    return merge(node, parts, len(ctx))


def _branch(cm: Columnar, branch: ast.Node, ctx: Ctx, rows: np.ndarray) -> Val:
    """A branch's value at ``rows`` of ``ctx``. What the branch assigns (``if check n += 1``,
    ``if seen == 0 {dr = ... seen = 1}``, where :mod:`cqlindex.columnar.variables` allows it)
    goes back to ``ctx`` at those rows, where the compound's next members read it."""
    inner = ctx.take(rows)
    before = dict(inner.vars)
    value = through(cm, branch, inner)
    write_back(ctx, inner, before, rows)
    return value


def merge(node: ast.Node, parts: list[tuple[np.ndarray, Val]], size: int) -> Val:
    """Values computed on disjoint rows of one context, as one value (they must be of one kind)."""
    if not parts:
        return matched(np.zeros(size, bool))
    kinds = {value.kind for _, value in parts}
    if len(kinds) > 1:
        raise NotColumnar(node, f"values of kinds {sorted(kinds)} in one filter")
    out = scatter(parts[0][1], parts[0][0], size)
    for rows, value in parts[1:]:
        out.ok[rows] = value.ok
        if out.data is not None:
            out.data[rows] = value.data
    return out


@kernel(ast.Number)
def constant(cm: Columnar, node: ast.Number, ctx: Ctx) -> Val:
    return number(np.full(len(ctx), node.value, np.int64), np.ones(len(ctx), bool))


def _holds(op: str, left: Val, right: Val) -> np.ndarray:
    """Where ``left op right`` holds, as the tree-walker's _holds decides it (both defined)."""
    a, b = left.kind, right.kind
    plain = op.strip("[]")
    compare = COMPARE[plain]
    if a == NUM and b == NUM or a == STR and b == STR:
        return compare(left.data, right.data)
    if STR in (a, b):
        raise NotColumnar(None, f"a comparison of a {a} with a {b}")
    if POS in (a, b):
        if a == b == POS:
            if plain in ("==", "!="):
                return (left.data == right.data) == (plain == "==")
            return compare(left.data, right.data)
        return np.full(len(left.ok), plain == "!=")
    if BOOL in (a, b):
        return np.zeros(len(left.ok), bool)
    if a == SET and b == SET:
        return (left.data == right.data) == (plain == "==")
    x = np.bitwise_count(left.data).astype(np.int64) if a == SET else left.data
    y = np.bitwise_count(right.data).astype(np.int64) if b == SET else right.data
    return compare(x, y)


@kernel(ast.Compare)
def comparison(cm: Columnar, node: ast.Compare, ctx: Ctx) -> Val:
    counted = bounded_count(cm, node, ctx)  # #(A attacks Z) >= n: fills only where enough pieces could reach Z
    if counted is not None:
        return counted
    values = []
    ok = np.ones(len(ctx), bool)
    current, alive = ctx, None
    for operand in node.operands:  # an operand without a value ends the chain there
        value = cm.eval(operand, current)
        if value.kind not in (BOOL, NUM, SET, POS, STR):
            raise NotColumnar(operand, f"a comparison of {value.kind}")
        values.append(value if alive is None else scatter(value, alive, len(ctx)))
        ok &= values[-1].ok
        if not ok.all():
            alive = np.flatnonzero(ok)
            current = ctx.take(alive)
    if len(values) > 2 and any(v.kind == NUM for v in values):
        values = [number(*v.counts(node)) if v.kind == SET else v for v in values]
    holds = ok.copy()
    for op, left, right in zip(node.ops, values, values[1:]):
        holds &= _holds(op, left, right)
    return matched(holds)


@kernel(ast.Binary)
def binary(cm: Columnar, node: ast.Binary, ctx: Ctx) -> Val:
    if node.op in ("|", "&", "attacks", "attackedby", "in"):
        from cqlindex.columnar.kernels_sets import set_binary

        return set_binary(cm, node, ctx)
    if node.op not in ("+", "-", "*", "/", "%"):
        raise NotColumnar(node, f"the operator {node.op}")
    left = cm.eval(node.left, ctx)
    right = cm.eval(node.right, ctx)
    a, a_ok = left.counts(node.left)
    b, b_ok = right.counts(node.right)
    ok = a_ok & b_ok
    if node.op == "+":
        return number(a + b, ok)
    if node.op == "-":
        return number(a - b, ok)
    if node.op == "*":
        return number(a * b, ok)
    result, nonzero = divided(a, b, node.op)
    return number(result, ok & nonzero)


def isqrt(values: np.ndarray) -> np.ndarray:
    """The integer square root of non-negative int64s, exact (float's guess corrected)."""
    root = np.floor(np.sqrt(values.astype(np.float64))).astype(np.int64)
    for _ in range(2):
        root = np.where(root * root > values, root - 1, root)
        root = np.where((root + 1) * (root + 1) <= values, root + 1, root)
    return root


@kernel(ast.Unary)
def unary(cm: Columnar, node: ast.Unary, ctx: Ctx) -> Val:
    if node.op not in ("-", "abs", "sqrt"):
        from cqlindex.columnar.kernels_sets import set_unary

        return set_unary(cm, node, ctx)
    values, ok = cm.eval(node.arg, ctx).counts(node.arg)
    if node.op == "-":
        return number(-values, ok)
    if node.op == "abs":
        return number(np.abs(values), ok)
    ok = ok & (values >= 0)
    return number(isqrt(np.where(ok, values, 0)), ok)


@kernel(ast.Transform)
def transform(cm: Columnar, node: ast.Transform, ctx: Ctx) -> Val:
    """The members' union (sets), maximum (numbers) or disjunction; a count with ``count`` or a range."""
    values = [cm.eval(member, ctx) for member in cm.expansions(node)]
    size = len(ctx)
    hits = np.zeros(size, np.int64)
    for value in values:
        hits += value.truth()
    if node.low is not None:
        bounds = []
        ok = np.ones(size, bool)
        for bound in (node.low, node.high):
            if isinstance(bound, ast.Node):
                b, b_ok = cm.eval(bound, ctx).counts(bound)
                ok &= b_ok
            else:
                b = np.full(size, bound, np.int64)
            bounds.append(b)
        return number(hits, ok & (bounds[0] <= hits) & (hits <= bounds[1]))
    if node.count:
        return number(hits, np.ones(size, bool))
    if not values:
        return matched(np.zeros(size, bool))
    # A member defined at no row (a compound whose first filters fail at every row of the batch
    # has no kind of its own) adds nothing: the others' kind is the transform's.
    live = [value for value in values if value.ok.any()] or values
    kinds = {value.kind for value in live}
    if kinds == {SET}:  # nothing matched: the empty set when every member has a value
        data = np.zeros(size, np.uint64)
        every = np.ones(size, bool)
        for value in values:
            every &= value.ok
        for value in live:
            data |= np.where(value.ok, value.data, np.uint64(0))
        return Val(SET, data, (hits > 0) | every)
    if kinds == {NUM}:
        best = np.full(size, np.iinfo(np.int64).min, np.int64)
        for value in live:
            best = np.where(value.ok, np.maximum(best, value.data), best)
        return number(best, hits > 0)
    if kinds <= {BOOL, NUM, SET}:  # a mixture that matches: a bare match, as the tree-walker's MATCH
        if NUM in kinds:
            # One matching number alone would be that number there; mixed kinds are rare enough to refuse.
            raise NotColumnar(node, "a transform whose members are numbers and other kinds")
        if SET in kinds and BOOL in kinds:
            raise NotColumnar(node, "a transform whose members are sets and matches")
        return matched(hits > 0)
    raise NotColumnar(node, f"a transform of {sorted(kinds)}")


@kernel(ast.Sort)
def sort(cm: Columnar, node: ast.Sort, ctx: Ctx) -> Val:
    """Matches where its body does (an empty set does not), and notes its number at each row it
    is evaluated at (a set's size, a position's id): the game's best is its sort value."""
    value = cm.eval(node.body, ctx)
    if value.kind == SET:
        value = Val(SET, value.data, value.ok & (value.data != 0))
    if value.kind == BOOL:
        return value  # a bare match has no number
    if value.kind == POS:
        numbers = cm.frame.positionid[value.data].astype(np.int64)
    else:
        numbers = value.counts(node)[0]
    cm.note_sort(node, ctx.rows[value.ok], numbers[value.ok])
    return value


@kernel(ast.Output)
def comment(cm: Columnar, node: ast.Output, ctx: Ctx) -> Val:
    """``comment`` always matches; its text is written by the tree-walker on the matching positions."""
    if node.name != "comment":
        raise NotColumnar(node, f"'{node.name}' speaks wherever it is evaluated")
    return matched(np.ones(len(ctx), bool))
