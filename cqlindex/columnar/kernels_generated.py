"""Generated moves on columns: ``move legal``/``pseudolegal``, ``legal F--G``, ``countmoves legal --``.

The moves come from :mod:`cqlindex.columnar.generate` as groups (a piece, the board of squares
it may go to); each parameter narrows the groups' boards at once, and what is left is read back
per position: a match, a set, or a count of distinct (from, to) pairs. The answers are
:mod:`cqlindex.filters.moves.python`'s and :mod:`cqlindex.filters.moves.legal`'s: a generated
move is primary, never null, and a castling's target is the king's square (``legal F--G`` also
reads it as the rook's move, from its corner to the f- or d-file).
"""

from __future__ import annotations

import numpy as np

from cqlindex.columnar import bitboards as B
from cqlindex.columnar.engine import Columnar, Ctx
from cqlindex.columnar.move_groups import EN_PASSANT, KINGSIDE, LAST_RANKS, PAWN, QUEENSIDE, Moves
from cqlindex.columnar.values import SET, NotColumnar, Val, matched, number, squares
from cqlindex.cql import ast

#: The parameters of a generated ``move`` this kernel reads ('comment' goes to the tree-walker;
#: 'legal' repeats the mode, as in 'move to . legal'; CQL refuses 'capture' beside 'legal').
PARAMS = frozenset({"from", "to", "promote", "enpassant", "null", "o-o", "o-o-o", "castle", "primary",
                    "secondary", "enpassantsquare", "count", "legal", "pseudolegal"})
_PROMOTES = frozenset("QRBN")
_NONE = np.uint64(0)


def _moves(cm: Columnar, ctx: Ctx, mode: str) -> Moves:
    from cqlindex.columnar.generate import generate  # here: see move_groups

    return generate(cm.frame, ctx.rows, mode == "legal")


def _sets(cm: Columnar, ctx: Ctx, nodes: dict[str, ast.Node]) -> tuple[dict[str, np.ndarray], np.ndarray] | None:
    """Each parameter set's boards, and where all are defined; None where one is no set at all."""
    ok = np.ones(len(ctx), bool)
    out = {}
    for name, value in nodes.items():
        got = cm.eval(value, ctx)
        if got.kind != SET:
            return None
        ok &= got.ok
        out[name] = got.data
    return out, ok


def _holds(boards: np.ndarray, owner: np.ndarray, source: np.ndarray) -> np.ndarray:
    return (boards[owner] >> source.astype(np.uint64)) & np.uint64(1) != 0


def pair_counts(owner: np.ndarray, source: np.ndarray, targets: np.ndarray, size: int) -> np.ndarray:
    """Per position, the distinct (from, to) pairs of the groups (a promotion once)."""
    key = owner * 64 + source
    order = np.argsort(key, kind="stable")
    key, targets = key[order], targets[order]
    if not len(key):
        return np.zeros(size, np.int64)
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    merged = np.bitwise_or.reduceat(targets, starts)
    return np.bincount(key[starts] // 64, weights=np.bitwise_count(merged), minlength=size).astype(np.int64)


def move(cm: Columnar, node: ast.Move, ctx: Ctx) -> Val:
    """``move legal ...`` / ``move pseudolegal ...`` (called by the ``move`` kernel)."""
    for name, _ in node.params:
        if name not in PARAMS:
            raise NotColumnar(node, f"'move {node.mode} {name}'")
    size = len(ctx)
    got = _sets(cm, ctx, {name: value for name, value in node.params if name in ("from", "to", "enpassantsquare")})
    if got is None:
        return Val(SET, np.zeros(size, np.uint64), np.zeros(size, bool))
    sets, defined = got
    moves = _moves(cm, ctx, node.mode)
    owner, kind, t = moves.owner, moves.kind, moves.targets.copy()
    for name, value in node.params:
        if name == "from":
            t = np.where(_holds(sets["from"], owner, moves.source), t, _NONE)
        elif name == "to":
            t &= sets["to"][owner]
        elif name == "promote":
            promotes = bool({letter.upper() for letter in value.pieces} & _PROMOTES)
            t = np.where(kind == PAWN, t & LAST_RANKS, _NONE) if promotes else np.zeros_like(t)
        elif name == "enpassant":
            t = np.where(kind == EN_PASSANT, t, _NONE)
        elif name in ("null", "secondary"):
            t = np.zeros_like(t)
        elif name in ("o-o", "o-o-o", "castle"):
            wanted = (KINGSIDE,) if name == "o-o" else (QUEENSIDE,) if name == "o-o-o" else (KINGSIDE, QUEENSIDE)
            t = np.where(np.isin(kind, wanted), t, _NONE)
        elif name == "enpassantsquare":
            t = np.where(kind == EN_PASSANT, t & sets["enpassantsquare"][owner], _NONE)
    if any(name == "count" for name, _ in node.params):
        return number(pair_counts(owner, moves.source, t, size), defined)
    value_kind = node.params[0][0] if node.params and node.params[0][0] in ("from", "to") else None
    live = t != 0
    if value_kind is None:
        hit = np.zeros(size, bool)
        hit[owner[live]] = True
        return matched(hit & defined)
    bits = B.bits_of(moves.source[live]) if value_kind == "from" else t[live]
    return squares(B.or_by_owner(owner[live], bits, size), defined)


def _dash_groups(cm: Columnar, node: ast.Dash, ctx: Ctx) -> tuple[Moves, np.ndarray, np.ndarray]:
    """(moves, the boards each group matches with, where it matches as a castling's rook move):
    what ``legal F--G`` describes, sides evaluated at the position."""
    if node.promote_by is not None:
        raise NotColumnar(node, "a promotion named by a string")
    sides = {name: side for name, side in (("from", node.left), ("to", node.right)) if side is not None}
    got = _sets(cm, ctx, sides)
    moves = _moves(cm, ctx, node.mode)
    owner, kind = moves.owner, moves.kind
    if got is None:
        return moves, np.zeros(len(owner), np.uint64), np.zeros(len(owner), bool)
    sets, defined = got
    letters = {letter.upper() for letter in node.promote} if node.promote is not None else set()
    wanted = node.target[0].name if node.target else None
    alive = defined[owner] & ~np.asarray(node.promotes and not (letters & _PROMOTES))
    if wanted == "o-o":
        alive &= kind == KINGSIDE
    elif wanted == "o-o-o":
        alive &= kind == QUEENSIDE
    elif wanted == "castle":
        alive &= (kind == KINGSIDE) | (kind == QUEENSIDE)
    elif wanted == "enpassant":
        alive &= kind == EN_PASSANT
    t = np.where(alive, moves.targets, _NONE)
    if "from" in sets:
        t = np.where(_holds(sets["from"], owner, moves.source), t, _NONE)
    if "to" in sets:
        t &= sets["to"][owner]
    if letters:
        t = np.where(kind == PAWN, t & LAST_RANKS, _NONE)
    castles = alive & ((kind == KINGSIDE) | (kind == QUEENSIDE)) & (t == 0) & (not node.promotes)
    rook = np.zeros(len(owner), bool)
    if castles.any():
        rook_to = np.where(kind == KINGSIDE, 5, 3) + (moves.source & ~7)
        rook = castles & ((_holds(sets["from"], owner, moves.rook) if "from" in sets else True)
                          & (_holds(sets["to"], owner, rook_to) if "to" in sets else True))
    return moves, t, rook


def dash(cm: Columnar, node: ast.Dash, ctx: Ctx) -> Val:
    """``legal F--G``: the squares its moves go to (the rook's, for a castling matched as its
    move), empty where none; called by the dash kernel."""
    if node.target and not (len(node.target) == 1 and isinstance(node.target[0], ast.Keyword)):
        raise NotColumnar(node, "a generated move with a target filter")
    moves, t, rook = _dash_groups(cm, node, ctx)
    rook_to = np.where(moves.kind == KINGSIDE, 5, 3) + (moves.source & ~7)
    bits = t | np.where(rook, B.bits_of(rook_to), _NONE)
    live = bits != 0
    return squares(B.or_by_owner(moves.owner[live], bits[live], len(ctx)))


def countmoves(cm: Columnar, node: ast.CountMoves, ctx: Ctx) -> Val:
    """``countmoves legal F--G``: the distinct (from, to) pairs of the moves it describes."""
    moves, t, rook = _dash_groups(cm, node.move, ctx)
    bits = t | np.where(rook, moves.targets, _NONE)
    return number(pair_counts(moves.owner, moves.source, bits, len(ctx)), np.ones(len(ctx), bool))


__all__ = ["PARAMS", "countmoves", "dash", "move", "pair_counts"]
