"""Variables and set iteration on columns.

``square x in S body`` becomes one context row per (position, square of S), with x bound to
that square; the body is evaluated once over all of them and the squares where it held are
gathered back per position (``all``: whether it held on every one). A piece variable is the
square of its piece at the position it was bound at; carried to another position, the
frame's piece ids (the moves replayed down every line) say where that piece stands there.
"""

from __future__ import annotations

import numpy as np

from cqlindex.columnar import bitboards as B
from cqlindex.columnar.effects import through, write_back
from cqlindex.columnar.engine import Columnar, Ctx, PieceVar, kernel
from cqlindex.columnar.narrowing import narrowing
from cqlindex.columnar.values import BOOL, NUM, SET, NotColumnar, Val, divided, matched, squares
from cqlindex.columnar.variables import ASSIGNMENTS, serial, serial_facts
from cqlindex.cql import ast


@kernel(ast.Variable)
def variable(cm: Columnar, node: ast.Variable, ctx: Ctx) -> Val:
    value = ctx.vars.get(node.name)
    if value is None:
        raise NotColumnar(node, f"the variable {node.name} here")
    if isinstance(value, PieceVar):
        return piece_squares(cm, value, ctx.rows)
    return value


def piece_squares(cm: Columnar, piece: PieceVar, rows: np.ndarray) -> Val:
    """Where the piece of ``piece`` stands at each of ``rows`` (the empty set once it is taken)."""
    away = rows != piece.rows
    if not away.any():
        return squares(piece.bits)
    frame = cm.frame
    try:
        ids = frame.piece_ids
    except LookupError as error:
        raise NotColumnar(None, str(error)) from None
    out = piece.bits.copy()
    moved = np.flatnonzero(away)
    name = ids[piece.rows[moved], B.lowest_square(piece.bits[moved])].astype(np.int64)
    if "piece_places" in frame.__dict__ or 2 * len(moved) >= frame.size:
        # Asked at as many rows as the frame has: turning piece_ids round once pays (a path's copies).
        there = np.where(name >= 0, frame.piece_places[rows[moved], np.maximum(name, 0)], -1)
        out[moved] = np.where(there >= 0, B.bits_of(np.maximum(there, 0)), np.uint64(0))
    else:
        found = ids[rows[moved]] == name[:, None]
        out[moved] = np.where(found.any(axis=1), B.bits_of(found.argmax(axis=1)), np.uint64(0))
    return squares(out)


@kernel(ast.Assign)
def assign(cm: Columnar, node: ast.Assign, ctx: Ctx) -> Val:
    if node.op not in ASSIGNMENTS:
        raise NotColumnar(node, f"the assignment {node.op}")
    value = cm.eval(node.value, ctx)
    if node.piece:
        return _bind_piece(cm, node, value, ctx)
    if node.op != "=":
        return _update(node, value, ctx)
    if value.kind == BOOL:
        value = Val(NUM, np.ones(len(ctx), np.int64), value.ok)  # a bare match is stored as 1
    assigned = value.ok
    before = ctx.vars.get(node.name)
    if isinstance(before, Val) and not value.ok.all():  # where it has no value, the old one stays
        if before.kind != value.kind:
            raise NotColumnar(node, f"the variable {node.name} changes kind")
        value = Val(value.kind, np.where(value.ok, value.data, before.data), value.ok | before.ok)
    ctx.vars[node.name] = Val(value.kind, value.data, value.ok)
    return matched(assigned)


def _update(node: ast.Assign, value: Val, ctx: Ctx) -> Val:
    """``x += v`` and the like, as the tree-walker does them (filters/variables/python.py): a
    variable without a value counts as 0, a set as its number of squares; where v has no number
    (or divides by 0) the filter does not match and x keeps its value. Numbers only: a string
    that grows (``+=`` on strings) stays with the tree-walker."""
    before = ctx.vars.get(node.name)
    if before is None:
        old, had = np.zeros(len(ctx), np.int64), np.zeros(len(ctx), bool)
    elif isinstance(before, Val) and before.kind == NUM:
        old, had = np.where(before.ok, before.data, 0), before.ok
    else:
        raise NotColumnar(node, f"{node.op} on the variable {node.name} of this kind")
    if value.kind not in (NUM, SET, BOOL):
        raise NotColumnar(node, f"{node.op} of a {value.kind}")
    new, ok = value.counts(node.value)
    if node.op == "+=":
        result = old + new
    elif node.op == "-=":
        result = old - new
    elif node.op == "*=":
        result = old * new
    else:
        result, nonzero = divided(old, new, node.op[0])
        ok = ok & nonzero
    ctx.vars[node.name] = Val(NUM, np.where(ok, result, old), ok | had)
    return matched(ok)


def _bind_piece(cm: Columnar, node: ast.Assign, value: Val, ctx: Ctx) -> Val:
    """``piece x = S``: x names the piece on S where S is one occupied square, as the tree-walker
    binds it (:func:`cqlindex.filters.variables.python._bind_piece`); elsewhere the filter does
    not match and x names the piece it named before (serialpin.cql's loop reads it after the
    round that failed)."""
    if value.kind != SET:
        return matched(np.zeros(len(ctx), bool))
    bits = np.where(value.ok, value.data, np.uint64(0))
    bound = (np.bitwise_count(bits) == 1) & ((bits & cm.frame.occupied[ctx.rows]) != 0)
    before = ctx.vars.get(node.name)
    if isinstance(before, PieceVar):  # where nothing is bound, x names what it named before
        ctx.vars[node.name] = PieceVar(np.where(bound, ctx.rows, before.rows), np.where(bound, bits, before.bits))
    elif before is None or bound.all():
        ctx.vars[node.name] = PieceVar(ctx.rows.copy(), np.where(bound, bits, np.uint64(0)))
    else:
        raise NotColumnar(node, f"the variable {node.name} changes kind")
    return matched(bound)


#: (position, square) rows of an iteration evaluated at once: memory stays bounded by it.
ROWS_PER_CHUNK = 1 << 20


@kernel(ast.Iterate)
def iterate(cm: Columnar, node: ast.Iterate, ctx: Ctx) -> Val:
    domain = cm.eval(node.domain, ctx)
    if domain.kind != SET:
        return matched(np.zeros(len(ctx), bool)) if node.all else Val(
            SET, np.zeros(len(ctx), np.uint64), np.zeros(len(ctx), bool))
    boards = np.where(domain.ok, domain.data, np.uint64(0))
    if node.kind == "piece":
        boards &= cm.frame.occupied[ctx.rows]
    facts = cm.memo.get(("serial", id(node)))
    if facts is None or facts[0] is not node:  # worked out once a frame, not at every evaluation
        facts = cm.memo[("serial", id(node))] = (node, serial_facts(node))
    if serial(node, frozenset(ctx.vars), facts[1]):
        return _in_turn(cm, node, ctx, boards, domain.ok)
    if node.all and cm._reads(node.body) is not None:
        return matched(domain.ok & _every(cm, node, ctx, boards))
    held = _held(cm, node, ctx, _narrowed(cm, node, ctx, boards))
    if node.all:
        return matched(domain.ok & (held == boards))
    return squares(held, domain.ok)  # empty where the body held nowhere; none where the domain has none


def _in_turn(cm: Columnar, node: ast.Iterate, ctx: Ctx, boards: np.ndarray, defined: np.ndarray) -> Val:
    """The iteration a square at a time, lowest first, as the tree-walker does it, where the body
    assigns what the next square (or what follows the iteration) reads: each round takes the
    next square of every position at once, and what the body assigned there is written back to
    ``ctx`` (:mod:`cqlindex.columnar.effects`). ``all`` stops at a position's first failure."""
    held = np.zeros(len(ctx), np.uint64)
    every = np.ones(len(ctx), bool)
    left = boards.copy()
    live = np.flatnonzero(left)
    while len(live):
        rest = left[live]
        square = rest & (~rest + np.uint64(1))
        left[live] = rest ^ square
        inner = ctx.take(live)
        inner.vars[node.var] = PieceVar(inner.rows.copy(), square) if node.kind == "piece" else squares(square)
        before = dict(inner.vars)
        holds = through(cm, node.body, inner).truth()
        del inner.vars[node.var]  # the iteration's own variable does not outlive it
        write_back(ctx, inner, before, live)
        held[live[holds]] |= square[holds]
        if node.all:
            failed = live[~holds]
            every[failed] = False
            left[failed] = 0
        live = live[left[live] != 0]
    if node.all:
        return matched(defined & every)
    return squares(held, defined)


def _narrowed(cm: Columnar, node: ast.Iterate, ctx: Ctx, boards: np.ndarray) -> np.ndarray:
    """``boards`` without the squares where the body cannot hold, where a member of the body says
    which (:mod:`cqlindex.columnar.narrowing`), asked at the rows with squares to try only."""
    possible = narrowing(cm, node.body, node.var)
    live = np.flatnonzero(boards) if possible is not None else ()
    if not len(live):
        return boards
    out = boards.copy()
    out[live] &= possible(ctx.take(live) if len(live) < len(ctx) else ctx)
    return out


def _held(cm: Columnar, node: ast.Iterate, ctx: Ctx, boards: np.ndarray) -> np.ndarray:
    """The squares of ``boards`` (one board per row of ``ctx``) where the body holds."""
    held = np.zeros(len(ctx), np.uint64)
    # A range of positions at a time, so that their (position, square) rows stay near
    # ROWS_PER_CHUNK: nested iterations multiply them by up to 64 each.
    ends = np.cumsum(np.bitwise_count(boards).astype(np.int64))
    begin = 0
    while begin < len(ctx):
        done = ends[begin - 1] if begin else 0
        stop = min(len(ctx), max(begin + 1, int(np.searchsorted(ends, done + ROWS_PER_CHUNK, side="right"))))
        owner, bits = B.explode(boards[begin:stop])
        owner = owner + begin
        inner = ctx.take(owner)
        inner.repeats = True
        inner.vars[node.var] = PieceVar(inner.rows.copy(), bits) if node.kind == "piece" else squares(bits)
        holds = cm.test(node.body, inner) if len(owner) else np.zeros(0, bool)
        held[begin:stop] = B.or_by_owner(owner[holds] - begin, bits[holds], stop - begin)
        begin = stop
    return held


def _every(cm: Columnar, node: ast.Iterate, ctx: Ctx, boards: np.ndarray) -> np.ndarray:
    """Whether the body holds on every square of each row's board, for a body that changes
    nothing: squares are tried lowest first, 1, then 2, 4, 8... more per row, and a row is
    dropped at its first failure, as the tree-walker stops there. ``[forall] sq in .`` over
    every pair of an echo (flipverticalecho) then tries a few squares of most pairs, not 64."""
    every = np.ones(len(ctx), bool)
    left = boards.copy()
    live = np.flatnonzero(left)
    step = 1
    while len(live):
        rest = left[live]
        part = np.zeros(len(live), np.uint64)
        for _ in range(step):  # the ``step`` lowest squares of each board
            lowest = rest & (~rest + np.uint64(1))
            part |= lowest
            rest ^= lowest
        held = _held(cm, node, ctx.take(live), part)
        failed = held != part
        every[live[failed]] = False
        left[live] = np.where(failed, np.uint64(0), rest)
        live = live[(~failed) & (rest != 0)]
        step = min(2 * step, 64)
    return every
