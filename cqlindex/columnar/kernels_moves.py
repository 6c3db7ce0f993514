"""``move`` (played and previous) on columns: the moves as edges, one per (position, child).

A move is stored on the row it leads to, so the moves played from the context's rows are the
edges to their children (the one child a line goes on to, where the context is linear), and
``move previous`` is the row's own move, read with its parameter sets evaluated at the parent.
Each parameter tests every edge at once; an edge's verdict and squares are gathered back to its
position. The answers are :mod:`cqlindex.filters.moves.python`'s, quirks included: a null
move is the passing side's king going to its own square, and ``promote`` compares piece types.
"""

from __future__ import annotations

import numpy as np

from cqlindex.columnar import bitboards as B, kernels_generated as generated
from cqlindex.columnar.engine import EVERY_CHILD, Columnar, Ctx, kernel
from cqlindex.columnar.values import SET, STR, NotColumnar, Val, matched, squares
from cqlindex.cql import ast
from cqlindex.cql.kinds import SET as SET_KIND, kind_of

#: Parameters the kernel takes of a played move ('comment' changes no answer: the tree-walker
#: writes it at the matches, see cqlindex.exec.run.confirm; generated moves are kernels_generated's).
PARAMS = frozenset({"from", "to", "capture", "promote", "enpassant", "null", "o-o", "o-o-o", "castle", "primary",
                    "secondary", "enpassantsquare", "previous", "comment"})
_PROMOTION_TYPES = {"Q": 5, "R": 4, "B": 3, "N": 2}


def edges(cm: Columnar, ctx: Ctx) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(owner: index into ctx, child row, primary) of every move played from the context's rows,
    owners ascending and children in child order."""
    frame = cm.frame
    first, order = frame.children
    rows = ctx.rows
    counts = first[rows + 1] - first[rows]
    if ctx.linear is not None:
        counts = np.where(ctx.linear == EVERY_CHILD, counts, (ctx.linear >= 0).astype(np.int64))
    owner = np.repeat(np.arange(len(rows)), counts)
    starts = np.cumsum(counts) - counts
    rank = np.arange(len(owner)) - np.repeat(starts, counts)
    child = order[first[rows][owner] + rank] if len(owner) else np.zeros(0, np.int64)
    primary = rank == 0
    if ctx.linear is not None:  # a line's copy of the position: its one child is its first
        chosen = ctx.linear[owner] >= 0
        child = np.where(chosen, ctx.linear[owner], child)
    return owner, child, primary


def _squares_of_moves(cm: Columnar, child: np.ndarray) -> tuple[np.ndarray, ...]:
    """(source, target, captured square, has source, has capture) of the moves leading to ``child``."""
    frame = cm.frame
    null = frame.null_move[child]
    source = frame.move_from[child].astype(np.int64)
    target = frame.move_to[child].astype(np.int64)
    # A null move: the side that passed is the one not to move at the child; its king stands still.
    kings = np.where(frame.wtm[child], frame.boards[6, child], frame.boards[0, child])
    king = B.lowest_square(np.where(kings != 0, kings, np.uint64(1)))
    has_king = kings != 0
    source = np.where(null, king, source)
    target = np.where(null, king, target)
    has_source = np.where(null, has_king, source >= 0)
    passant = frame.en_passant[child]
    captured = np.where(passant, target + np.where(frame.wtm[child], 8, -8),
                        np.where(frame.captured[child] >= 0, target, -1))
    return source, target, captured, has_source, captured >= 0


def _bit(boards: np.ndarray, squares_: np.ndarray, has: np.ndarray) -> np.ndarray:
    return has & ((boards >> np.where(has, squares_, 0).astype(np.uint64)) & np.uint64(1)).astype(bool)


@kernel(ast.Move)
def move(cm: Columnar, node: ast.Move, ctx: Ctx) -> Val:
    if node.mode in ("legal", "pseudolegal"):
        return generated.move(cm, node, ctx)
    for name, _ in node.params:
        if name not in PARAMS:
            raise NotColumnar(node, f"'move {name}'")
    frame = cm.frame
    size = len(ctx)
    if node.mode == "previous":
        parents = frame.parent[ctx.rows]
        at_index = np.flatnonzero(parents >= 0)
        at = ctx.moved(at_index, parents[at_index])
        owner = at_index
        child = ctx.rows[at_index]
        primary = child == parents[at_index] + 1  # the parent's first child follows it in pre-order
        set_ctx, set_owner = at, np.arange(len(at_index))
    else:
        owner, child, primary = edges(cm, ctx)
        set_ctx, set_owner = ctx, owner
    sets: dict[str, np.ndarray] = {}
    defined = np.zeros(size, bool)
    defined[owner if node.mode == "previous" else np.arange(size)] = True
    params_ok = np.ones(size, bool)  # where every parameter set has a value (at the first position: true)
    for name, value in node.params:
        if name in ("from", "to", "capture", "enpassantsquare"):
            got = cm.eval(value, set_ctx)
            if got.kind != SET:
                return Val(SET, np.zeros(size, np.uint64), np.zeros(size, bool))
            ok = np.zeros(size, bool)
            ok[owner if node.mode == "previous" else np.arange(size)] = got.ok
            defined &= ok
            params_ok[owner if node.mode == "previous" else np.arange(size)] &= got.ok
            sets[name] = got.data[set_owner]
    source, target, captured, has_source, has_capture = _squares_of_moves(cm, child)
    accept = np.ones(len(child), bool)
    for name, value in node.params:
        if name == "from":
            accept &= _bit(sets["from"], source, has_source)
        elif name == "to":
            accept &= _bit(sets["to"], target, has_source)
        elif name == "capture":
            accept &= _bit(sets["capture"], captured, has_capture)
        elif name == "promote":
            types = [_PROMOTION_TYPES[letter.upper()] for letter in value.pieces if letter.upper() in _PROMOTION_TYPES]
            accept &= np.isin(frame.promotion[child], types)
        elif name == "enpassant":
            accept &= frame.en_passant[child]
        elif name == "null":
            accept &= frame.null_move[child]
        elif name in ("o-o", "o-o-o"):
            accept &= frame.castle[child] == (1 if name == "o-o" else 2)
        elif name == "castle":
            accept &= frame.castle[child] >= 0
        elif name == "primary":
            accept &= primary
        elif name == "secondary":
            accept &= ~primary
        elif name == "enpassantsquare":
            accept &= frame.en_passant[child] & _bit(sets["enpassantsquare"], target, has_source)
    accept &= defined[owner]
    hit = np.zeros(size, bool)
    hit[owner[accept]] = True
    value_kind = node.params[0][0] if node.params and node.params[0][0] in ("from", "to", "capture") else None
    if value_kind is None:
        return matched(hit)
    squares_of = {"from": (source, has_source), "to": (target, has_source), "capture": (captured, has_capture)}
    where, has = squares_of[value_kind]
    keep = accept & has
    bits = B.bits_of(np.where(keep, where, 0)[keep])
    # A set value always has one, empty where no move matches (at the first position too, for
    # 'move previous'), as the reference reads it; only a parameter without a value leaves none.
    defined = np.ones(size, bool) if node.mode == "previous" else defined
    return squares(B.or_by_owner(owner[keep], bits, size), defined & params_ok)


def _has(boards: np.ndarray | None, squares_: np.ndarray, has: np.ndarray) -> np.ndarray:
    """Where a side's set holds the square (no set: any square does)."""
    return has.copy() if boards is None else _bit(boards, squares_, has)


#: A one-letter string's code point -> the promotion type it names (either case), 0 for none.
_TYPE_OF_CODE = np.zeros(128, np.int64)
_TYPE_OF_CODE[[ord(c) for c in "QRBNqrbn"]] = [_PROMOTION_TYPES[c.upper()] for c in "QRBNqrbn"]


def _named_promotion(cm: Columnar, node: ast.Dash, ctx: Ctx) -> np.ndarray | None:
    """``--=T``: per row, the promotion type T's value names (a piece type letter in either case,
    as the tree-walker reads it: cqlindex.filters.moves.legal.promotion_letters), 0 where it
    names none (no move matches there); None without ``=T``."""
    if node.promote_by is None:
        return None
    value = cm.eval(node.promote_by, ctx)
    if value.kind != STR:
        return np.zeros(len(ctx), np.int64)
    code = np.where(value.ok & (value.data >= 0) & (value.data < 128), value.data, 0)
    return _TYPE_OF_CODE[code]


@kernel(ast.Dash)
def dash(cm: Columnar, node: ast.Dash, ctx: Ctx) -> Val:
    """``F--G`` and ``F[x]G`` as played: a move from F to G (the captured piece's square with
    ``[x]``), castling read as the rook's move too, the null move as the king standing still;
    with a target ``--(T ...)`` its value after the matching moves (a set: their union)."""
    if node.mode != "played":
        return generated.dash(cm, node, ctx)
    frame = cm.frame
    size = len(ctx)
    owner, child, _ = edges(cm, ctx)
    ok = np.ones(size, bool)
    sides = []
    for side in (node.left, node.right):
        if side is None:
            sides.append(None)
            continue
        value = cm.eval(side, ctx)
        if value.kind != SET:
            return Val(SET, np.zeros(size, np.uint64), np.zeros(size, bool))
        ok &= value.ok
        sides.append(value.data[owner])
    sources, targets = sides
    letters = {letter.upper() for letter in node.promote} if node.promote is not None else set()
    named = _named_promotion(cm, node, ctx)
    source, target, captured, has_source, has_capture = _squares_of_moves(cm, child)
    null = frame.null_move[child]
    bare = node.left is None and node.right is None and not node.capture and not node.promotes
    king_ok = ~np.asarray(node.capture or node.promotes) & has_source & _has(sources, source, has_source) \
        & _has(targets, target, has_source)
    accept = np.where(null, bare | king_ok, False)
    castles = (frame.castle[child] >= 0) & ~null
    rook_side = np.zeros(len(child), bool)
    if castles.any() and not node.capture and not node.promotes:
        if frame.rook_from is None:
            raise NotColumnar(node, "castling on an index without the rook's squares")
        rook_from, rook_to = frame.rook_from[child].astype(np.int64), frame.rook_to[child].astype(np.int64)
        rook_side = castles & _has(sources, rook_from, castles) & _has(targets, rook_to, castles)
    plain = ~null & ~rook_side & _has(sources, source, ~null)
    if node.capture:
        plain &= _has(targets, captured, has_capture)
    else:
        plain &= _has(targets, target, ~null)
    if letters:
        plain &= np.isin(frame.promotion[child], [_PROMOTION_TYPES[x] for x in letters if x in _PROMOTION_TYPES])
    if named is not None:
        plain &= (frame.promotion[child] == named[owner]) & (named[owner] > 0)
    accept |= rook_side | plain
    accept &= ok[owner]
    if not node.target:
        hit = np.zeros(size, bool)
        hit[owner[accept]] = True
        return matched(hit)
    return _target_value(cm, node, ctx, owner[accept], child[accept])


def _target_value(cm: Columnar, node: ast.Dash, ctx: Ctx, owner: np.ndarray, child: np.ndarray) -> Val:
    """The target filters at the children reached, as a compound there; per position the union
    of the set values, or the first value in child order where it is not a set."""
    size = len(ctx)
    value = Val("bool", None, np.ones(len(child), bool))
    at = ctx.moved(owner, child)
    alive = np.arange(len(child))
    for item in node.target:
        got = cm.eval(item, at.take(alive))
        holds = got.truth()
        alive, value = alive[holds], got.take(np.flatnonzero(holds))
    owner = owner[alive]
    hit = np.zeros(size, bool)
    hit[owner] = True
    if kind_of(node.target[-1]) == SET_KIND and value.kind in (SET, "bool"):
        # a set-valued target: the union over the moves reached, the empty set where none is
        # (the tree-walker's rule: 'v = --e5(to)' always assigns)
        data = B.or_by_owner(owner, value.data, size) if value.kind == SET else np.zeros(size, np.uint64)
        return squares(data, np.ones(size, bool))
    if value.kind == SET:
        return squares(B.or_by_owner(owner, value.data, size), hit)
    if value.kind == "bool":
        return matched(hit)
    raise NotColumnar(node, f"a move's target of kind {value.kind}")


@kernel(ast.CountMoves)
def countmoves(cm: Columnar, node: ast.CountMoves, ctx: Ctx) -> Val:
    """``countmoves D`` for a generated dash (``countmoves legal --``); a played one's count goes
    to the tree-walker."""
    if node.move.mode == "played":
        raise NotColumnar(node, "'countmoves' of played moves")
    return generated.countmoves(cm, node, ctx)
