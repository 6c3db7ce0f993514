"""``ray``, ``xray`` and ``pin`` on columns: each direction one sliding fill per member.

A ray match S1 ... Sn along one direction is a chain of squares with only empty squares
between neighbours, so the squares where the first k members can end are those a slider on
the squares of member k-1 reaches in that direction, within Sk: n-1 fills per direction answer
every start square of every row at once (definitions: :mod:`cqlindex.filters.sets.pins_rays`).
A pin is found the same way from the pinning pieces: the first piece their line meets, of the
other colour, and what lies behind it; then walking back from what was found keeps only the
pinned pieces and pinners that belong to a complete pin.

Pins to the kings (``pin`` alone, ``pin through x``, ``to k``: the usual question) are found
from each king instead: its own pieces its rook and bishop lines meet first, and the enemy
sliders those lines meet behind them, by one-square table look-ups; only the rows where some
slider stands behind a piece (few) then look at which piece lies between.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from cqlindex.columnar import bitboards as B
from cqlindex.columnar.engine import Columnar, Ctx, distinct_rows, every_row, kernel
from cqlindex.columnar.narrowing import narrows
from cqlindex.columnar.values import SET, NotColumnar, Val, squares
from cqlindex.board.directions import steps_of
from cqlindex.cql import ast


def ray_ends(sets: list[np.ndarray], steps: tuple[str, ...], empty: np.ndarray) -> np.ndarray:
    """The squares of the last set where a ray of ``sets`` along one of ``steps`` ends; the fills
    only at the rows where the members lie on the lines through it (:func:`_aligned`)."""
    out = np.zeros(len(empty), np.uint64)
    rows = _aligned(sets, steps)
    if not len(rows):
        return out
    if len(rows) < len(empty):
        sets, empty = [member[rows] for member in sets], empty[rows]
    found = np.zeros(len(rows), np.uint64)
    for step in steps:
        reached = sets[0]
        for member in sets[1:]:
            reached = B.slide(reached, empty, step) & member
        found |= reached
    out[rows] = found
    return out


@cache
def _behind(steps: tuple[str, ...]) -> np.ndarray:
    """Per square, the squares a ray along one of ``steps`` can come to it from."""
    out = np.zeros(64, np.uint64)
    for step in steps:
        out |= B.RAYS[B.OPPOSITE[step]]
    return out


def _aligned(sets: list[np.ndarray], steps: tuple[str, ...]) -> np.ndarray:
    """The rows where a ray may end: every member has a square there, and where the last member
    is one square at every row (a king, as rays are mostly asked), every other member has one
    on the lines it can be reached along. A fill costs a dozen operations a direction; this
    test, a gather and an AND a member, leaves p01's rays (``ray orthogonal ([RQ] q k)``) a
    few rows in a hundred."""
    live = np.ones(len(sets[0]), bool)
    for member in sets:
        live &= member != 0
    last = sets[-1]
    if (np.bitwise_count(last) <= 1).all():
        lines = _behind(steps)[np.minimum(B.lowest_square(last), 63)]  # an empty last member: no row
        for member in sets[:-1]:
            live &= (member & lines) != 0
    return np.flatnonzero(live)


@kernel(ast.Ray)
def ray(cm: Columnar, node: ast.Ray, ctx: Ctx) -> Val:
    values = [cm.eval(arg, ctx) for arg in node.args]
    ok = np.ones(len(ctx), bool)
    for value in values:
        if value.kind != SET:
            return Val(SET, np.zeros(len(ctx), np.uint64), np.zeros(len(ctx), bool))
        ok &= value.ok
    sets = [np.where(ok, v.data, np.uint64(0)) for v in values]
    empty = ~cm.frame.occupied[ctx.rows]
    steps = steps_of(node.directions)
    if node.kind == "ray":
        return squares(ray_ends(sets, steps, empty), ok)
    boards = cm.frame.boards[:, ctx.rows]
    rook_movers = boards[1] | boards[2] | boards[7] | boards[8]
    bishop_movers = boards[1] | boards[3] | boards[7] | boards[9]
    out = np.zeros(len(ctx), np.uint64)
    if node.kind in ("->", "<-"):
        return squares(_arrows(sets if node.kind == "->" else sets[::-1], rook_movers, bishop_movers, empty,
                               node.kind == "->"), ok)
    orthogonal = tuple(s for s in steps if s in B.ORTHOGONAL)
    diagonal = tuple(s for s in steps if s in B.DIAGONAL)
    if orthogonal:
        out |= ray_ends([sets[0] & rook_movers, *sets[1:]], orthogonal, empty)
    if diagonal:
        out |= ray_ends([sets[0] & bishop_movers, *sets[1:]], diagonal, empty)
    return squares(out, ok)


def _arrows(sets: list[np.ndarray], rook_movers: np.ndarray, bishop_movers: np.ndarray, empty: np.ndarray,
            starts: bool) -> np.ndarray:
    """``S1 -> S2 -> ... -> Sn``: a ray of the sets along a line the piece on its first square
    moves along (:func:`cqlindex.filters.sets.pins_rays.arrow_chain`); the first squares that
    start one (``starts``), else the last squares. A ray's squares between members are empty
    whichever way it is read, so its first squares are where the same ray read backwards,
    from the last member, ends."""
    out = np.zeros(len(empty), np.uint64)
    for movers, steps in ((rook_movers, B.ORTHOGONAL), (bishop_movers, B.DIAGONAL)):
        chain = [sets[0] & movers, *sets[1:]]
        out |= ray_ends(chain[::-1] if starts else chain, steps, empty)  # both ways along the lines
    return out


def pins(cm: Columnar, rows: np.ndarray, pinners: np.ndarray, pinned: np.ndarray,
         targets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(pinning squares, pinned squares, to squares) of every pin with its parts in the given sets."""
    frame = cm.frame
    boards = frame.boards[:, rows]
    white, black = frame.white[rows], frame.black[rows]
    occupied = white | black
    empty = ~occupied
    found = [np.zeros(len(rows), np.uint64) for _ in range(3)]
    for base, own, enemy in ((0, white, black), (6, black, white)):
        queens, rooks, bishops = boards[base + 1], boards[base + 2], boards[base + 3]
        for steps, movers in ((B.ORTHOGONAL, queens | rooks), (B.DIAGONAL, queens | bishops)):
            sliders = pinners & movers & own
            for step in steps:
                back = B.OPPOSITE[step]
                first = B.slide(sliders, empty, step) & occupied
                held = first & enemy & pinned
                behind = B.slide(held, empty, step)
                to = behind & targets & (empty | enemy)
                held &= B.slide(to, empty, back)
                found[0] |= sliders & B.slide(held, empty, back)
                found[1] |= held
                found[2] |= to
    return found[0], found[1], found[2]


def pinned_to_kings(cm: Columnar, rows: np.ndarray, pinners: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """``pins(cm, rows, pinners, everyone, targets)[1]`` where every square of ``targets`` holds a
    king and each side has one king (rows that do not are left to :func:`pins`)."""
    frame = cm.frame
    column = _gatherer(rows, every_row(rows, frame.size))  # the frame's own columns where rows are all
    boards = frame.boards
    white_king, black_king = column(boards[0]), column(boards[6])
    usual = (np.bitwise_count(white_king) == 1) & (np.bitwise_count(black_king) == 1)
    if not usual.all():
        out = np.zeros(len(rows), np.uint64)
        odd = np.flatnonzero(~usual)
        out[odd] = pins(cm, rows[odd], pinners[odd], frame.occupied[rows[odd]], targets[odd])[1]
        keep = np.flatnonzero(usual)
        out[keep] = pinned_to_kings(cm, rows[keep], pinners[keep], targets[keep])
        return out
    white, black, occupied = column(frame.white), column(frame.black), column(frame.occupied)
    out = np.zeros(len(rows), np.uint64)
    for king, own, enemy in ((white_king, white, 6), (black_king, black, 0)):
        wanted = np.flatnonzero((king & targets) != 0)
        if not len(wanted):
            continue
        pick = _gatherer(wanted, len(wanted) == len(rows))  # targets the kings: both, every row
        square = B.lowest_square(pick(king))
        queens = pick(column(boards[enemy + 1]))
        for attacks_from, lines, movers in (
                (B.rook_attacks_from, B.ROOK_LINES, queens | pick(column(boards[enemy + 2]))),
                (B.bishop_attacks_from, B.BISHOP_LINES, queens | pick(column(boards[enemy + 3])))):
            movers &= pick(pinners)
            # A pin needs an enemy slider on one of the king's lines: most rows have none on
            # either kind of line, and cost no look-up of what stands between.
            near = np.flatnonzero(movers & lines[square])
            if not len(near):
                continue
            at, king_square = wanted[near], square[near]
            occ = occupied[at]
            direct = attacks_from(king_square, occ)
            shields = direct & own[at]
            behind = attacks_from(king_square, occ & ~shields) & ~direct & movers[near]
            hit = np.flatnonzero(behind != 0)
            if not len(hit):
                continue
            owner, pinner = B.explode(behind[hit])
            between = B.BETWEEN[king_square[hit][owner], B.lowest_square(pinner)] & shields[hit][owner]
            out[at[hit]] |= B.or_by_owner(owner, between, len(hit))
    return out


def _gatherer(index: np.ndarray, every: bool):
    """A column's values at ``index``; the column itself where ``index`` takes every row of it
    (read only: a full gather is a copy for nothing)."""
    return (lambda column: column) if every else (lambda column: column[index])


def _others_read_the_position_only(cm: Columnar, node: ast.Pin) -> bool:
    """Whether the value is the pinned pieces and the other parameters read the position alone."""
    first = node.params[0][0] if node.params else "through"
    return first == "through" and all(cm.reads_position_only(arg) for name, arg in node.params if name != "through")


def pinned_pieces(cm: Columnar, node: ast.Pin, ctx: Ctx) -> np.ndarray:
    """Every piece pinned at each row of ``ctx`` by a pin of ``node``'s ``from`` and ``to`` (its
    ``through`` left out; both read the position alone), found once per frame row however often
    it is asked: by every square of an iteration (``pin through x``), by both colours of a
    ``flipcolor`` (its pins are both sides'), by the narrowing of an iteration's domain and by
    the body then. Not kept in a line's context, where a filter could read the line's one child
    of the position rather than every child (the move filters, which do, are not taken for
    position-only parameters today: this is a guard)."""
    if ctx.linear is not None:
        return _pinned(cm, node, ctx)
    key = ("pinned", tuple(param for param in node.params if param[0] != "through"))
    entry = cm.memo.get(key)
    if entry is None:
        entry = cm.memo[key] = (np.zeros(cm.frame.size, bool), np.zeros(cm.frame.size, np.uint64))
    known, pinned = entry
    rows = ctx.rows
    missing = rows[~known[rows]]
    if len(missing):
        missing = distinct_rows(missing)[0]
        pinned[missing] = _pinned(cm, node, Ctx(missing))
        known[missing] = True
    return pinned[rows]


def _pinned(cm: Columnar, node: ast.Pin, ctx: Ctx) -> np.ndarray:
    frame = cm.frame
    rows = ctx.rows
    sets = {name: cm.eval(arg, ctx).data for name, arg in node.params if name != "through"}
    everyone = frame.occupied[rows]
    kings = frame.boards[0, rows] | frame.boards[6, rows]
    targets = sets.get("to", kings)
    if ((targets & ~kings) == 0).all():
        return pinned_to_kings(cm, rows, sets.get("from", everyone), targets)
    return pins(cm, rows, sets.get("from", everyone), everyone, targets)[1]


@kernel(ast.Pin)
def pin(cm: Columnar, node: ast.Pin, ctx: Ctx) -> Val:
    """The pinned pieces (or the pinning ones, or what is behind) with the parameters' sets.

    A pinned piece's pin does not depend on the other pieces asked about, so where the value is
    the pinned pieces, ``through S`` is S & (every pinned piece): the pins are then found once
    per position (:func:`pinned_pieces`), however many squares an iteration asks about."""
    frame = cm.frame
    size = len(ctx)
    first = node.params[0][0] if node.params else "through"
    given: dict[str, np.ndarray] = {}
    ok = np.ones(size, bool)
    for name, arg in node.params:
        value = cm.eval(arg, ctx)
        if value.kind != SET:
            return Val(SET, np.zeros(size, np.uint64), np.zeros(size, bool))
        ok &= value.ok
        given[name] = given[name] & value.data if name in given else value.data
    if _others_read_the_position_only(cm, node):
        pinned = pinned_pieces(cm, node, ctx)
        through = given.get("through")
        return squares(pinned if through is None else pinned & through, ok)
    rows = ctx.rows
    everyone = frame.occupied[rows]
    kings = frame.boards[0, rows] | frame.boards[6, rows]
    found = pins(cm, rows, given.get("from", everyone), given.get("through", everyone), given.get("to", kings))
    return squares(found[{"from": 0, "through": 1, "to": 2}[first]], ok)


@narrows(ast.Pin)
def _pinned_through(cm: Columnar, node: ast.Pin, var: str):
    """``pin through x`` holds where x is a pinned piece (and the other parameters have values)."""
    through = [arg for name, arg in node.params if name == "through"]
    if not (len(through) == 1 and isinstance(through[0], ast.Variable) and through[0].name == var
            and _others_read_the_position_only(cm, node)):
        return None

    def pinned(ctx: Ctx) -> np.ndarray:
        ok = np.ones(len(ctx), bool)
        for name, arg in node.params:
            if name != "through":
                value = cm.eval(arg, ctx)
                if value.kind != SET:
                    return np.zeros(len(ctx), np.uint64)
                ok &= value.ok
        return np.where(ok, pinned_pieces(cm, node, ctx), np.uint64(0))

    return pinned
