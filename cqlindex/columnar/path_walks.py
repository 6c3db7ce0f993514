"""The first longest walk of a path machine from every position of a forest at once.

A *forest* is positions with their parents, in level order: each level (distance from its
tree's root) a slice, its children the next slice, and within a level pre-order kept, so a
sibling's place there is its child order. It is a frame's rows, or, where a path reads
variables, a copy of a stretch of a game for each class of starts that read the same values
(:mod:`cqlindex.columnar.kernels_path`).

From the deepest level up, every (position, state) gets the number of moves and the last
position of the first longest walk to the machine's end: a move's options sit one level down,
a test's and a choice's at the same position, later in the machine's order. An option replaces
the best so far only when it is longer, and options are taken in the walker's order (children
in child order, a repetition's stop before another round), which is how the walker breaks
ties; so the walk kept, its end (``lastposition``) and what ``nestban`` bans are the walker's.
Per level and state this is a few operations on views: Python's share is the cost on a small
collection.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cqlindex.columnar.path_machine import Machine


@dataclass(slots=True)
class Forest:
    rows: np.ndarray    # frame row of each position, level order
    parent: np.ndarray  # index of each position's parent here, -1 at a root
    bounds: list[int]   # level d is the slice bounds[d]:bounds[d + 1]

    @property
    def size(self) -> int:
        return len(self.rows)


def in_level_order(rows: np.ndarray, parent: np.ndarray, level: np.ndarray) -> tuple[Forest, np.ndarray]:
    """(the forest of ``rows`` (frame rows, each tree in pre-order) with parents ``parent``
    (indexes into ``rows``, -1 at a root) and levels ``level``, the index of each of ``rows``
    in it)."""
    size = len(rows)
    if size:
        level = level - level.min()  # a copied stretch starts deep: no empty levels above it
    order = np.argsort(level, kind="stable")
    rank = np.empty(size, np.int64)
    rank[order] = np.arange(size)
    up = parent[order]
    up = np.where(up >= 0, rank[np.maximum(up, 0)], -1)
    counts = np.bincount(level, minlength=int(level.max()) + 1) if size else np.zeros(0, np.int64)
    return Forest(rows[order], up, np.r_[0, np.cumsum(counts)].tolist()), rank


class _Best:
    """Per parent, the best of its children's options: most moves, then the first child; a key
    per option, one scatter of maxima, read back at the parents."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.scratch = np.full(size, -1, np.int64)

    def pick(self, parents: np.ndarray, moves: np.ndarray, children: np.ndarray, rows: slice):
        """(moves, child, found) at ``rows`` of the best option of each, from options (parent,
        moves, child)."""
        size = self.size
        np.maximum.at(self.scratch, parents, moves * (size + 1) + (size - children))
        got = self.scratch[rows].copy()
        self.scratch[parents] = -1
        found = got >= 0
        return np.where(found, got // (size + 1), -1), np.where(found, size - got % (size + 1), 0), found


def longest(forest: Forest, machine: Machine, verdicts: list, focused: np.ndarray | None
            ) -> tuple[np.ndarray, np.ndarray]:
    """(moves, last frame row) of the first longest walk from each position of ``forest``, from
    the machine's first state; -1 moves where no walk ends.

    ``verdicts``: per state, where its test holds (a move: the positions reached by it), over
    the forest. ``focused`` (a focus): whether the move reaching each position is in focus. A
    move then goes on to the first move in focus on each line below and counts those alone;
    from the start, only the moves in focus played there."""
    size = forest.size
    bounds = forest.bounds
    steps = machine.steps
    length = np.full((len(steps), size), -1, np.int64)
    last = np.zeros((len(steps), size), np.int64)  # frame rows
    best = _Best(size)
    for depth in range(len(bounds) - 2, -1, -1):
        rows = slice(bounds[depth], bounds[depth + 1])
        below = slice(bounds[depth + 1], bounds[depth + 2] if depth + 2 < len(bounds) else size)
        for index in range(len(steps) - 1, -1, -1):
            step = steps[index]
            if step[0] != "move":
                _here(step, index, rows, verdicts, length, last, forest.rows)
            elif below.start < below.stop:
                _move(step, index, rows, below, verdicts, focused, length, last, forest.parent, best)
    if focused is not None:
        length, last = _from_start(machine, verdicts, focused, length, last, forest, best)
    return length[machine.start], last[machine.start]


def _move(step: tuple, index: int, rows: slice, below: slice, verdicts, focused, length: np.ndarray,
          last: np.ndarray, parent: np.ndarray, best: _Best) -> None:
    """A move at the positions of a level: the best of their children one level down."""
    target = step[2]
    reach = length[target, below]
    live = verdicts[index][below] & (reach >= 0)
    moves = reach + 1
    if focused is not None:  # an unfocused child hands on its own first moves in focus
        on = focused[below]
        live = np.where(on, live, length[index, below] >= 0)
        moves = np.where(on, moves, length[index, below])
    if not live.any():
        return
    children = np.flatnonzero(live) + below.start
    # Siblings' subtrees come in child order, so the first child of equals holds the first
    # move in focus of equals below as well.
    got, chosen, found = best.pick(parent[children], moves[live], children, rows)
    length[index, rows] = got
    ends = last[target, chosen]
    if focused is not None:
        ends = np.where(focused[chosen], ends, last[index, chosen])
    last[index, rows] = np.where(found, ends, 0)


def _here(step: tuple, index: int, rows: slice, verdicts, length: np.ndarray, last: np.ndarray,
          frame_rows: np.ndarray) -> None:
    """A state that stays at the position (the end, a test, a choice), from its targets there."""
    kind = step[0]
    if kind == "end":
        length[index, rows] = 0
        last[index, rows] = frame_rows[rows]
    elif kind == "test":
        target = step[2]
        ok = verdicts[index][rows]
        length[index, rows] = np.where(ok, length[target, rows], -1)
        last[index, rows] = last[target, rows]
    elif step[1]:  # a choice: the first of its longest options
        options = step[1]
        got = length[options[0], rows]
        end = last[options[0], rows]
        for option in options[1:]:
            other = length[option, rows]
            longer = other > got
            if longer.any():
                got = np.where(longer, other, got)
                end = np.where(longer, last[option, rows], end)
        length[index, rows] = got
        last[index, rows] = end


def _from_start(machine: Machine, verdicts, focused: np.ndarray, length: np.ndarray, last: np.ndarray,
                forest: Forest, best: _Best) -> tuple[np.ndarray, np.ndarray]:
    """The states met at the start again, every position a start: a move there is one in focus
    played there (its child's values are the ones below, already worked out)."""
    size = forest.size
    rows = slice(0, size)
    parent = forest.parent
    children = np.flatnonzero(parent >= 0)
    # Only the states met again at the start are read from here on (the first one among them,
    # and what their tests and choices read: the premove states are closed under those), so
    # only their rows are copied, the rest left unwritten (indian.cql's 13 states over 615,000
    # exploded starts: two whole copies were 0.3 of its 1.2 s).
    kept = machine.premove
    start_length, start_last = np.empty_like(length), np.empty_like(last)
    start_length[kept], start_last[kept] = length[kept], last[kept]
    for index in reversed(machine.premove):
        step = machine.steps[index]
        if step[0] != "move":
            _here(step, index, rows, verdicts, start_length, start_last, forest.rows)
            continue
        target = step[2]
        reach = length[target, children]
        live = focused[children] & verdicts[index][children] & (reach >= 0)
        got, chosen, found = best.pick(parent[children[live]], reach[live] + 1, children[live], rows)
        start_length[index] = got
        start_last[index] = np.where(found, last[target, chosen], 0)
    return start_length, start_last
