"""``path`` on columns: the longest walk from every position of a frame at once, level by level.

The tree-walker searches each start depth first (:mod:`cqlindex.filters.sequences.path_walk`)
and keeps, of the longest walks, the first it finds. Where no constituent reads a variable or
changes anything, what a walk can do from a position depends on that position and on what is
left to match alone, never on where it started; so the search is a finite machine whose
states are "what is left" (:class:`Machine`), and the first longest walk from every
(position, state) is worked out for the whole frame from the deepest positions up: a move's
options sit one level down, a filter's and a repetition's at the same position, later in the
machine's order. An option replaces the best so far only when it is longer, and options are
taken in the walker's order (children in child order, a repetition's stop before another
round), which is how the walker breaks ties; so the walk kept, and with it ``lastposition``
and what ``nestban`` bans, are the tree-walker's.

Left to the tree-walker: ``focus``/``singlecolor``, ``max``, ``firstmatch``, constituents that
read a variable or change something (a path inside a path sets what ``pathcount`` reads), see
:func:`why_not`.
"""

from __future__ import annotations

import numpy as np

from cqlindex.columnar.engine import Columnar, Ctx, kernel
from cqlindex.columnar.kernels_line import edges
from cqlindex.columnar.values import POS, NotColumnar, Val, number
from cqlindex.columnar.variables import free_variables
from cqlindex.cql import ast
from cqlindex.query.analyse import quiet_path

#: Parameters the kernel follows (the rest of what it takes shapes comments only).
PARAMS = frozenset({"quiet", "title", "verbose", "piecepath", "keepallbest", "primary", "nestban", "lastposition"})
#: Machines with more states than this (``(-- --){1000}``) stay with the tree-walker.
MAX_STATES = 2_000
#: A constituent filter that the walker tests itself, not as a filter of the position.
_WALK_KEYWORDS = ("primary", "secondary")


def why_not(node: ast.Path) -> str | None:
    """Why ``node`` is left to the tree-walker, or None when this kernel evaluates it."""
    if node.focus is not None or "singlecolor" in node.params:
        return "a path with a focus has no columnar kernel yet"
    if node.max is not None:
        return "'path max' has no columnar kernel yet"
    unknown = node.params - PARAMS
    if unknown:
        return f"'path {sorted(unknown)[0]}' has no columnar kernel yet"
    if not quiet_path(node):
        return "a path whose constituents change something has no columnar kernel yet"
    if free_variables(node):
        return "a path reading a variable has no columnar kernel yet"
    return None


class _Round:
    """A repetition under way in a state: rounds done (saturated at the least owed when unbounded,
    where more make no difference), and whether no move was made since the round began."""

    __slots__ = ("repeat", "done", "fresh", "key")

    def __init__(self, repeat: ast.Repeat, done: int, fresh: bool) -> None:
        if repeat.high is None:
            done = min(done, repeat.low)
        self.repeat, self.done, self.fresh = repeat, done, fresh
        self.key = (id(repeat), done, fresh)


def _key(stack: tuple) -> tuple:
    return tuple(entry.key if isinstance(entry, _Round) else id(entry) for entry in stack)


class Machine:
    """The states of one path's search, as the walker's stack of what is left to match.

    ``steps[i]`` is what state ``i`` does: ``("end",)``, ``("test", filter, j)``,
    ``("move", dash, j)`` or ``("choose", [j, ...])`` (options in the walker's order). The
    states are numbered so that a test's or a choice's targets come after it: those are at the
    same position, and the frame is worked out from the last state to the first.
    """

    def __init__(self, node: ast.Path) -> None:
        self.node = node
        found: dict[tuple, int] = {}
        stacks: list[tuple] = []
        raw: list[tuple] = []

        def state(stack: tuple) -> int:
            key = _key(stack)
            index = found.get(key)
            if index is None:
                if len(stacks) >= MAX_STATES:
                    raise NotColumnar(node, "a path with too many states for the columnar engine")
                index = found[key] = len(stacks)
                stacks.append(stack)
                raw.append(None)
            return index

        state(tuple(node.items))
        done = 0
        while done < len(stacks):
            raw[done] = self._step(stacks[done], state)
            done += 1
        order = self._order(raw)
        renumber = {old: new for new, old in enumerate(order)}
        self.steps = []
        for old in order:
            step = raw[old]
            if step[0] == "choose":
                self.steps.append(("choose", [renumber[j] for j in step[1]]))
            elif step[0] == "end":
                self.steps.append(step)
            else:
                self.steps.append((step[0], step[1], renumber[step[2]]))
        self.start = renumber[0]

    @staticmethod
    def _step(stack: tuple, state) -> tuple:
        if not stack:
            return ("end",)
        top, rest = stack[0], stack[1:]
        if isinstance(top, ast.Dash):
            moved = tuple(_Round(e.repeat, e.done, False) if isinstance(e, _Round) else e for e in rest)
            return ("move", top, state(moved))
        if isinstance(top, ast.Sequence):
            return ("choose", [state(tuple(top.items) + rest)])
        if isinstance(top, ast.Repeat):
            return ("choose", [state((_Round(top, 0, False),) + rest)])
        if isinstance(top, _Round):  # path_walk.Walk._round, the same rules in the same order
            repeat, done = top.repeat, top.done
            if top.fresh and done < repeat.low:
                done = repeat.low
            options = []
            if done >= repeat.low and (repeat.high is None or done <= repeat.high):
                options.append(state(rest))
            stop = (repeat.high is not None and done >= repeat.high) or (
                repeat.high is None and done >= repeat.low and top.fresh)
            if not stop:
                options.append(state((repeat.arg, _Round(repeat, done + 1, True)) + rest))
            return ("choose", options)
        return ("test", top, state(rest))

    def _order(self, raw: list[tuple]) -> list[int]:
        """The states such that a test's or a choice's targets come after it (they are worked
        out first at a position); a cycle of them cannot happen by the round rules, but is
        refused rather than looped on."""
        order: list[int] = []
        mark = [0] * len(raw)  # 0 new, 1 on the way, 2 placed
        for root in range(len(raw)):
            if mark[root]:
                continue
            pending = [(root, False)]
            while pending:
                index, leaving = pending.pop()
                if leaving:
                    mark[index] = 2
                    order.append(index)
                    continue
                if mark[index] == 2:
                    continue
                if mark[index] == 1:
                    raise NotColumnar(self.node, "a path whose rounds need no move")
                mark[index] = 1
                pending.append((index, True))
                step = raw[index]
                nexts = step[1] if step[0] == "choose" else [step[2]] if step[0] == "test" else []
                pending.extend((j, False) for j in nexts if mark[j] != 2)
        return order[::-1]


def _machine(cm: Columnar, node: ast.Path) -> Machine:
    key = ("path machine", id(node))
    entry = cm.memo.get(key)
    if entry is None or entry.node is not node:
        entry = Machine(node)
        cm.memo[key] = entry
    return entry


def _verdicts(cm: Columnar, machine: Machine) -> list[np.ndarray | None]:
    """Per state, where its test holds (a move: the child rows reached by it), over the frame."""
    frame = cm.frame
    main = np.zeros(frame.size, bool)
    has = frame.parent >= 0
    main[has] = np.flatnonzero(has) == frame.parent[has] + 1  # a first child follows its parent
    primary = "primary" in machine.node.params
    out: list[np.ndarray | None] = []
    for step in machine.steps:
        if step[0] == "move":
            by_child = edges(cm, step[1], False)[0]
            out.append(by_child & main if primary else by_child)
        elif step[0] == "test":
            item = step[1]
            if isinstance(item, ast.Keyword) and item.name in _WALK_KEYWORDS:
                out.append(has & (main if item.name == "primary" else ~main))
            else:
                out.append(cm.everywhere(item).truth())
        else:
            out.append(None)
    return out


def longest(cm: Columnar, machine: Machine) -> tuple[np.ndarray, np.ndarray]:
    """(moves, last row) of the first longest walk from every row of the frame, from the
    machine's first state; -1 moves where no walk ends."""
    frame = cm.frame
    size = frame.size
    steps = machine.steps
    verdicts = _verdicts(cm, machine)
    length = np.full((len(steps), size), -1, np.int64)
    last = np.zeros((len(steps), size), np.int64)
    best = np.full(size, -1, np.int64)  # scratch: per parent, its best child's key
    parent = frame.parent
    levels = frame.levels
    for depth in range(len(levels) - 1, -1, -1):
        rows = levels[depth]
        below = levels[depth + 1] if depth + 1 < len(levels) else rows[:0]
        for index in range(len(steps) - 1, -1, -1):
            step = steps[index]
            kind = step[0]
            if kind == "end":
                length[index, rows] = 0
                last[index, rows] = rows
            elif kind == "test":
                target = step[2]
                ok = verdicts[index][rows]
                length[index, rows] = np.where(ok, length[target, rows], -1)
                last[index, rows] = last[target, rows]
            elif kind == "choose":
                options = step[1]
                if not options:
                    continue
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
            elif len(below):  # a move: the best child one level down, the first of equals
                target = step[2]
                reach = length[target, below]
                live = verdicts[index][below] & (reach >= 0)
                if not live.any():
                    continue
                children = below[live]
                keys = (reach[live] + 1) * (size + 1) + (size - children)
                np.maximum.at(best, parent[children], keys)
                got = best[rows]
                found = got >= 0
                chosen = np.where(found, size - got % (size + 1), 0)
                length[index, rows] = np.where(found, got // (size + 1), -1)
                last[index, rows] = np.where(found, last[target, chosen], 0)
                best[parent[children]] = -1
    return length[machine.start], last[machine.start]


def _ban(frame, rows: np.ndarray, ok: np.ndarray, moves: np.ndarray, last: np.ndarray) -> np.ndarray:
    """``nestban``: in order, a match bans its start and the positions its walk passes through
    (all but its end) from starting a later match of the same path in the game."""
    ok = ok.copy()
    banned = np.zeros(frame.size, bool)
    parent = frame.parent
    for index in np.flatnonzero(ok).tolist():
        row = int(rows[index])
        if banned[row]:
            ok[index] = False
            continue
        at = int(last[index])
        for _ in range(int(moves[index])):
            at = int(parent[at])
            banned[at] = True
    return ok


@kernel(ast.Path)
def path(cm: Columnar, node: ast.Path, ctx: Ctx) -> Val:
    why = why_not(node)
    if why is not None:
        raise NotColumnar(node, why)
    entry = cm.memo.get(("path", id(node)))
    if entry is None or entry[0] is not node:
        entry = (node, *longest(cm, _machine(cm, node)))
        cm.memo[("path", id(node))] = entry
    _, every_length, every_last = entry
    rows = ctx.rows
    moves, last = every_length[rows], every_last[rows]
    ok = moves >= 1  # a walk of no move is no match
    if node.low is not None:
        ok &= (node.low <= moves) & (moves <= node.high)
    if "nestban" in node.params:
        ok = _ban(cm.frame, rows, ok, moves, last)
    if "lastposition" in node.params:
        return Val(POS, np.where(ok, last, 0), ok)
    return number(np.where(ok, moves, 0), ok)
