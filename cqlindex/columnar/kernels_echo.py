"""``echo (s t) body`` on columns: the body at every (source, target) pair of a game at once.

Each context row is a source; its targets are the positions of its game (not itself, unless
``all``), and the body is evaluated at the targets with ``s`` and ``t`` bound to the two
positions, a chunk of pairs at a time so that memory stays bounded. The pairs of a game are
its size squared, so a body that begins by asking for the same board (``s & t == .``, the
usual idiom) only gets pairs whose boards hash alike, kept where their planes (the board in four
bitboards, :data:`cqlindex.columnar.frame.PLANES`) are equal, and the rest of the body is
evaluated on those: a collision costs time, never an answer, and the twelve boards are not read
(p18 of the patterns, the whole file: 1.5-1.9 -> 1.05-1.35 s in process). The answer is the tree-walker's
(:func:`cqlindex.filters.output.python.echo`): the largest number the body gave, or a bare match.
"""

from __future__ import annotations

import numpy as np

from cqlindex.columnar import bitboards as B
from cqlindex.columnar.engine import Columnar, Ctx, kernel
from cqlindex.columnar.values import NUM, POS, SET, Val, matched, number
from cqlindex.columnar.values import squares as values_squares
from cqlindex.cql import ast

#: (source, target) pairs evaluated at once.
PAIRS_PER_CHUNK = 1 << 21
_EVERYTHING = frozenset("KQRBNPkqrbnp_")
_MIX = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93], np.uint64)


def _same_board_first(node: ast.Echo) -> bool:
    """Whether the body's first filter is ``s & t == .`` (or ``t & s == .``): the same board."""
    body = node.body
    first = body.items[0] if isinstance(body, ast.Compound) and body.items else body
    if not (isinstance(first, ast.Compare) and first.ops == ("==",) and len(first.operands) == 2):
        return False
    left, right = first.operands
    if isinstance(left, ast.Pieces):
        left, right = right, left
    names = {node.source, node.target}
    return (isinstance(right, ast.Pieces) and right.pieces == _EVERYTHING and right.squares == (1 << 64) - 1
            and isinstance(left, ast.Binary) and left.op == "&"
            and all(isinstance(x, ast.Variable) for x in (left.left, left.right))
            and {left.left.name, left.right.name} == names)


def _rest(node: ast.Echo) -> ast.Node | None:
    """The body after its leading ``s & t == .`` (None: nothing after it), which pairs of equal
    boards hold by how they are made."""
    body = node.body
    if not isinstance(body, ast.Compound) or len(body.items) < 2:
        return None
    return ast.Compound(body.span, body.items[1:])


def _board_keys(planes: np.ndarray) -> np.ndarray:
    """A hash of each row's board (its four planes), equal for equal boards."""
    key = np.zeros(planes.shape[1], np.uint64)
    with np.errstate(over="ignore"):
        for index, plane in enumerate(planes):
            key ^= (plane * _MIX[index]) ^ (plane >> np.uint64(29))
            key *= np.uint64(0xBF58476D1CE4E5B9)
    return key


def _in_game(cm: Columnar, keys: np.ndarray) -> np.ndarray:
    """``keys`` mixed with each row's game: equal for rows of one game with equal keys."""
    with np.errstate(over="ignore"):
        return keys ^ (cm.frame.start.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))


def _letter_keys(cm: Columnar, node: ast.Echo, ctx: Ctx) -> tuple[np.ndarray, np.ndarray] | None:
    """(each row's key as a target, as a source) of the body's leading ``square all v in D {f(E)
    == s:g(E')}`` filters (echo_pairs finds them), or None where it has none: a hash of the
    letters f gives on the squares E(v) (E'(v)) of the row's board, v over D."""
    from cqlindex.filters.output.echo_pairs import make_plan  # the tree-walker's reading of the body

    idioms = make_plan(node).letters
    if not idioms or not len(ctx):
        return None
    codes = _square_codes(cm)
    target = np.zeros(cm.frame.size, np.uint64)
    source = np.zeros(cm.frame.size, np.uint64)
    for f, e, g, e2, var, domain in idioms:
        squares = np.array([sq for sq in range(64) if domain >> sq & 1], np.uint64)
        at_t, at_s = _square_map(cm, ctx, e, var, squares), _square_map(cm, ctx, e2, var, squares)
        if at_t is None or at_s is None:
            return None  # a square off the board: the body fails at every pair, and says so itself
        _mix_letters(target, codes, f, at_t)
        _mix_letters(source, codes, g, at_s)
    return target, source


#: The letter each piece code (0 empty, 1-12 K Q R B N P k q r b n p) reads as, by name.
_LETTER_CODES = {"piecename": np.arange(13, dtype=np.uint64),
                 "typename": np.array([0, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6], np.uint64)}


def _square_codes(cm: Columnar) -> np.ndarray:
    """(rows, 64) uint8: the piece code on each square of each row's board."""
    boards = cm.frame.boards
    codes = np.zeros((cm.frame.size, 64), np.uint8)
    for index in range(12):
        bits = np.unpackbits(np.ascontiguousarray(boards[index]).view(np.uint8).reshape(-1, 8), axis=1,
                             bitorder="little")
        codes += bits * np.uint8(index + 1)
    return codes


def _square_map(cm: Columnar, ctx: Ctx, expr: ast.Node, var: str, squares: np.ndarray) -> np.ndarray | None:
    """The square ``expr`` gives for each of ``squares`` bound to ``var`` (it reads no position), or
    None where one is not a single square."""
    inner = ctx.take(np.zeros(len(squares), np.intp))
    inner.vars[var] = values_squares(np.left_shift(np.uint64(1), squares))
    value = cm.eval(expr, inner)
    if value.kind != SET or not value.ok.all() or (np.bitwise_count(value.data) != 1).any():
        return None
    return B.lowest_square(value.data)


def _mix_letters(keys: np.ndarray, codes: np.ndarray, name: str, squares: np.ndarray) -> None:
    """``keys`` mixed with the letters ``name`` gives on ``squares`` of each row, in that order."""
    table = _LETTER_CODES[name]
    with np.errstate(over="ignore"):
        for square in squares:
            keys *= np.uint64(0x100000001B3)
            keys ^= table[codes[:, square]] + np.uint64(0x9E3779B97F4A7C15)


def _sorted_where_shared(keys: np.ndarray) -> np.ndarray:
    """The rows in an order where equal keys are together, rows ascending among them: first the
    rows whose key no other row has (a key's top bits counted, about eight buckets a row), then
    the others in a stable sort by key. A board recurs in few games, so most rows are alone and
    the sort is of a fifth of them (p18 of the patterns on the whole file, in process: 2.0 ->
    1.5 s; the sort of every row was a quarter of its CPU)."""
    bits = max(10, min(24, (8 * len(keys)).bit_length()))
    bucket = (keys >> np.uint64(64 - bits)).astype(np.intp)
    shared = np.bincount(bucket, minlength=1 << bits)[bucket] > 1
    alone, rest = np.flatnonzero(~shared), np.flatnonzero(shared)
    return np.concatenate((alone, rest[np.argsort(keys[rest], kind="stable")]))


class _Targets:
    """Where each row of the frame finds its targets: ``count[r]`` of them, at
    ``lookup[begin[r]]``, ``lookup[begin[r] + 1]``... (ascending). Made once per frame, not once
    per chunk of sources: the same-board grouping sorts the whole frame (p18 of the patterns did
    that three times a frame), and a chunk is sized by the pairs it makes, not by game sizes (a
    source has a few targets with the same board, not its game's hundred)."""

    def __init__(self, cm: Columnar, node: ast.Echo, ctx: Ctx) -> None:
        frame = cm.frame
        self.start = self.planes = None
        same_board = _same_board_first(node)
        letters = None if same_board else _letter_keys(cm, node, ctx)
        if letters is not None:
            # Targets by (game, the letters on their squares E(v)); a source looks up the group of
            # the letters on its squares E'(v). A game's key may collide with another game's:
            # pairs() keeps the targets of the source's own game.
            target, source = (_in_game(cm, keys) for keys in letters)
            order = np.argsort(target, kind="stable")
            ordered = target[order]
            self.begin = np.searchsorted(ordered, source, side="left")
            self.count = np.searchsorted(ordered, source, side="right") - self.begin
            self.lookup, self.start = order, frame.start
        elif same_board:
            # By game and board, rows ascending within each: one stable sort of one key mixing the
            # two, half a three-key lexsort's time (p18 of the patterns: 229 frames, 1.3 of its 5.3 s).
            # Rows of two games whose keys collide are cut apart below, where the game changes
            # (a game's rows are one run, so they stay together in row order).
            # The planes, not the twelve boards: where the scan left the boards out, they are
            # never read (the pairs are checked on the planes, exactly, in pairs()).
            self.planes = frame.board_planes()
            keys = _in_game(cm, _board_keys(self.planes))
            order = _sorted_where_shared(keys)
            sorted_start, sorted_keys = frame.start[order], keys[order]
            new = np.r_[True, (sorted_start[1:] != sorted_start[:-1]) | (sorted_keys[1:] != sorted_keys[:-1])]
            group = np.empty(frame.size, np.int64)
            group[order] = np.cumsum(new) - 1
            bounds = np.flatnonzero(np.r_[new, True])
            self.begin, self.count, self.lookup = bounds[:-1][group], np.diff(bounds)[group], order
        else:
            self.begin, self.count, self.lookup = frame.start, frame.end - frame.start + 1, None

    def pairs(self, rows: np.ndarray, include_all: bool) -> tuple[np.ndarray, np.ndarray]:
        """(source index into rows, target row) of every pair the body is tried at, sources in
        order and each source's targets ascending (the tree-walker's order)."""
        begin, count = self.begin[rows], self.count[rows]
        owner = np.repeat(np.arange(len(rows)), count)
        rank = np.arange(len(owner)) - np.repeat(np.cumsum(count) - count, count)
        target = np.repeat(begin, count) + rank
        if self.lookup is not None:
            target = self.lookup[target]
        if not include_all:
            keep = target != rows[owner]
            owner, target = owner[keep], target[keep]
        if self.start is not None:
            keep = self.start[target] == self.start[rows[owner]]
            owner, target = owner[keep], target[keep]
        if self.planes is not None:  # boards whose hashes collided: equal planes are equal boards
            keep = (self.planes[:, target] == self.planes[:, rows[owner]]).all(axis=0)
            owner, target = owner[keep], target[keep]
        return owner, target


@kernel(ast.Echo)
def echo(cm: Columnar, node: ast.Echo, ctx: Ctx) -> Val:
    size = len(ctx)
    hit = np.zeros(size, bool)
    best = np.full(size, np.iinfo(np.int64).min, np.int64)
    numeric = False
    # A range of sources at a time, so that a chunk's pairs stay near PAIRS_PER_CHUNK (a game's
    # pairs are its size squared, and a nested echo multiplies them again).
    targets = _Targets(cm, node, ctx)
    # Each pair has equal boards where the body begins by asking it: the rest is evaluated alone.
    body = node.body if targets.planes is None else _rest(node)
    # A source is in its own group of equal boards: where it is the only one there (its board
    # alone in its game, most rows), it makes no pair.
    counts = targets.count[ctx.rows]
    alone = 1 if targets.planes is not None and not node.include_all else 0
    sources = np.flatnonzero(counts > alone)
    spans = np.cumsum(counts[sources])
    begin = 0
    while begin < len(sources):
        done = spans[begin - 1] if begin else 0
        stop = min(len(sources), max(begin + 1, int(np.searchsorted(spans, done + PAIRS_PER_CHUNK, side="right"))))
        owner, target = targets.pairs(ctx.rows[sources[begin:stop]], node.include_all)
        owner = sources[begin:stop][owner]
        begin = stop
        if body is None:
            hit[owner] = True
            continue
        inner = ctx.moved(owner, target)
        inner.vars[node.source] = Val(POS, ctx.rows[owner], np.ones(len(owner), bool))
        inner.vars[node.target] = Val(POS, target.copy(), np.ones(len(owner), bool))
        value = cm.eval(body, inner)
        holds = value.truth()
        hit[owner[holds]] = True
        if value.kind == NUM:
            numeric = True
            np.maximum.at(best, owner[holds], value.data[holds])
    if numeric:
        return number(best, hit)
    return matched(hit)
