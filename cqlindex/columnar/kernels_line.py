"""``line`` on columns: the tree-walker's set simulation, advanced for every start row at once.

A state is (start, next position to consume, last position consumed), as in
:mod:`cqlindex.filters.sequences.line`; here the states of all the context's rows are arrays,
and a constituent maps them to the states it can end in with one evaluation of its filter at
all the positions they consume. A constituent that reads no variable is evaluated once per
frame instead: at every row, or, when it plays a move (move linearization, seed 003), at every
(position, next position) edge, so that each start's states only look its verdicts up. A state
is encoded as one integer (its start, and its next position or its end), so the sets of the
simulation are sorted arrays of keys.

Left to the tree-walker: ``singlecolor``, ``primary``, ``secondary`` and ``nestban``.
"""

from __future__ import annotations

import numpy as np

from cqlindex.columnar.engine import EVERY_CHILD, NO_CHILD, Columnar, Ctx, kernel
from cqlindex.columnar.values import POS, NotColumnar, Val, number
from cqlindex.columnar.variables import free_variables
from cqlindex.cql import ast
from cqlindex.filters.sequences.line import LINEARIZE, _walk_for_move

#: Parameters the kernel follows (``quiet`` and ``nonatomic`` change nothing the engine decides).
PARAMS = frozenset({"quiet", "firstmatch", "lastposition", "nonatomic", "nolinearize"})


class _States:
    """A set of states of one line filter over one context: parallel arrays, unique, sorted by key."""

    __slots__ = ("owner", "nxt", "last")

    def __init__(self, owner: np.ndarray, nxt: np.ndarray, last: np.ndarray, size: int) -> None:
        key = owner * (2 * size + 1) + np.where(nxt >= 0, nxt, size + last + 1)
        key, first = np.unique(key, return_index=True)
        self.owner, self.nxt, self.last = owner[first], nxt[first], last[first]

    def __len__(self) -> int:
        return len(self.owner)

    def keys(self, size: int) -> np.ndarray:
        return self.owner * (2 * size + 1) + np.where(self.nxt >= 0, self.nxt, size + self.last + 1)


def _join(parts: list[_States], size: int) -> _States:
    return _States(np.concatenate([p.owner for p in parts]), np.concatenate([p.nxt for p in parts]),
                   np.concatenate([p.last for p in parts]), size)


def _minus(a: _States, parts: list[tuple[np.ndarray]], size: int) -> _States:
    """The states of ``a`` in none of ``parts`` (each the sorted keys of a set of states): a binary
    search in each, as a repetition's rounds are many and each adds few states."""
    keys = a.keys(size)
    keep = np.ones(len(keys), bool)
    for known in parts:
        if not len(known) or not keep.any():
            continue
        spot = np.minimum(np.searchsorted(known, keys), len(known) - 1)
        keep &= known[spot] != keys
    return _States(a.owner[keep], a.nxt[keep], a.last[keep], size)


def edge_verdicts(cm: Columnar, item: ast.Node, here: np.ndarray, linear: np.ndarray, backward: bool) -> np.ndarray:
    """``item`` (which plays a move and reads no variable) at each (position, linear) pair,
    evaluated once per frame at every edge: a child row stands for the move that reaches
    it, a childless row for the end of a line, and a row asked with every child for itself.
    Only the pairs a line's direction asks are evaluated: going forward, the edges and the
    ends of lines (a line goes on to a child where there is one); going back, the edges and
    every row with every child (a line's first position). Each asked everywhere made the
    kernel test three rows per position where one is asked (p11 of the patterns)."""
    by_child, by_row = edges(cm, item, backward)
    # Forward, NO_CHILD only at a childless row; back, EVERY_CHILD only: by_row answers both.
    return np.where(linear >= 0, by_child[np.maximum(linear, 0)], by_row[here])


def edges(cm: Columnar, item: ast.Node, backward: bool) -> tuple[np.ndarray, np.ndarray]:
    """(per child row, whether the move reaching it is ``item``; per row asked alone, the verdict
    there), kept for the frame: a path's moves ask the same edges (see kernels_path)."""
    key = ("edges", id(item), backward)
    entry = cm.memo.get(key)
    frame = cm.frame
    if entry is None or entry[0] is not item:
        children = np.flatnonzero(frame.parent >= 0)
        if backward:
            alone, mode = np.arange(frame.size), EVERY_CHILD
        else:
            alone, mode = np.flatnonzero(frame.child_count == 0), NO_CHILD
        rows = np.r_[frame.parent[children], alone]
        lin = np.r_[children, np.full(len(alone), mode)]
        verdict = cm.test(item, Ctx(rows, {}, lin))
        by_child = np.zeros(frame.size, bool)
        by_child[children] = verdict[:len(children)]
        by_row = np.zeros(frame.size, bool)
        by_row[alone] = verdict[len(children):]
        entry = (item, by_child, by_row)
        cm.memo[key] = entry
    return entry[1], entry[2]


class _Simulation:
    def __init__(self, cm: Columnar, node: ast.Line, ctx: Ctx) -> None:
        self.cm = cm
        self.ctx = ctx
        self.frame = cm.frame
        self.size = cm.frame.size
        self.backward = node.backward
        self.linearize = LINEARIZE and "nolinearize" not in node.params

    def states(self, owner, nxt, last) -> _States:
        return _States(owner, nxt, last, self.size)

    def advance(self, item: ast.Node, states: _States) -> _States:
        if isinstance(item, ast.Sequence):
            for inner in item.items:
                states = self.advance(inner, states)
                if not len(states):
                    break
            return states
        if isinstance(item, ast.Repeat):
            return self.repeat(item, states)
        live = states.nxt >= 0
        owner, here, last = states.owner[live], states.nxt[live], states.last[live]
        frame = self.frame
        if self.backward:
            following = frame.parent[here]
            linear = np.where(last >= 0, last, EVERY_CHILD)
        else:
            first, order = frame.children
            counts = first[here + 1] - first[here]
            fan = np.maximum(counts, 1)
            index = np.repeat(np.arange(len(here)), fan)
            rank = np.arange(len(index)) - np.repeat(np.cumsum(fan) - fan, fan)
            has = counts[index] > 0
            following = np.where(has, order[np.where(has, first[here][index] + rank, 0)], -1) \
                if len(order) else np.full(len(index), -1)
            owner, here, last = owner[index], here[index], last[index]
            linear = np.where(has, following, NO_CHILD)
        holds = self.test(item, owner, here, linear)
        return self.states(owner[holds], following[holds], here[holds])

    def test(self, item: ast.Node, owner: np.ndarray, here: np.ndarray, linear: np.ndarray) -> np.ndarray:
        plays = self.linearize and _walk_for_move(item)
        if not free_variables(item):
            if not plays:
                return self.cm.everywhere(item).truth()[here]
            return edge_verdicts(self.cm, item, here, linear, self.backward)
        sub = self.ctx.moved(owner, here)
        if plays:
            sub.linear = linear
        return self.cm.test(item, sub)

    def repeat(self, item: ast.Repeat, states: _States) -> _States:
        if item.high is not None and item.high < item.low:
            return self.states(*(np.zeros(0, np.int64),) * 3)
        for _ in range(item.low):
            before, states = states, self.advance(item.arg, states)
            if not len(states):
                return states
            if np.array_equal(states.keys(self.size), before.keys(self.size)):
                break
        # A state reached again in a later round can only do less (fewer rounds left), so each
        # round goes on from the new states alone; unbounded, this is a fixpoint.
        found = [states]
        known = [states.keys(self.size)]
        frontier = states
        rounds = item.high - item.low if item.high is not None else None
        while len(frontier) and (rounds is None or rounds > 0):
            frontier = _minus(self.advance(item.arg, frontier), known, self.size)
            found.append(frontier)
            known.append(frontier.keys(self.size))
            if rounds is not None:
                rounds -= 1
        return _join(found, self.size) if len(found) > 1 else states


@kernel(ast.Line)
def line(cm: Columnar, node: ast.Line, ctx: Ctx) -> Val:
    unknown = node.params - PARAMS
    if unknown:
        raise NotColumnar(node, f"'line {sorted(unknown)[0]}'")
    size = len(ctx)
    simulation = _Simulation(cm, node, ctx)
    states = simulation.states(np.arange(size), ctx.rows.copy(), np.full(size, -1))
    for item in node.items:
        states = simulation.advance(item, states)
        if not len(states):
            break
    ended = states.last >= 0
    owner, last = states.owner[ended], states.last[ended]
    ply = cm.frame.ply.astype(np.int64)
    length = np.abs(ply[last] - ply[ctx.rows[owner]]) + 1
    # Per start: the longest sequence, ending at the lowest position (firstmatch: the shortest).
    order = np.lexsort((last, length if "firstmatch" in node.params else -length, owner))
    owner, last, length = owner[order], last[order], length[order]
    firsts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]]) if len(owner) else np.zeros(0, np.int64)
    ok = np.zeros(size, bool)
    best_length = np.zeros(size, np.int64)
    best_last = np.zeros(size, np.int64)
    ok[owner[firsts]] = True
    best_length[owner[firsts]] = length[firsts]
    best_last[owner[firsts]] = last[firsts]
    if node.low is not None:
        ok &= (node.low <= best_length) & (best_length <= node.high)
    if "lastposition" in node.params:
        return Val(POS, best_last, ok)
    return number(best_length, ok)
