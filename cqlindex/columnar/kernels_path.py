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
PARAMS = frozenset({"quiet", "title", "verbose", "piecepath", "keepallbest", "primary", "nestban", "lastposition",
                    "focus", "singlecolor"})
#: Machines with more states than this (``(-- --){1000}``) stay with the tree-walker.
MAX_STATES = 2_000
#: A constituent filter that the walker tests itself, not as a filter of the position.
_WALK_KEYWORDS = ("primary", "secondary")


def why_not(node: ast.Path) -> str | None:
    """Why ``node`` is left to the tree-walker, or None when this kernel evaluates it."""
    if node.focus is not None and not _whole_side(node.focus):
        return "a path with a focus on some pieces has no columnar kernel yet"
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


_SIDES = (frozenset("KQRBNP"), frozenset("kqrbnp"), frozenset("KQRBNPkqrbnp"))
_EVERY_SQUARE = (1 << 64) - 1


def _whole_side(node: ast.Node | None) -> bool:
    """Whether a focus is every piece of a side (or of both) wherever it is asked: ``A``, ``a``,
    ``[Aa]``, ``if wtm A else a``. Pieces are never added to a side, so the pieces a focus takes
    at the start are all the pieces that side moves later: the moves in focus are that side's
    moves (and with ``capture``, the other side's captures), whatever the start."""
    if isinstance(node, ast.Pieces):
        return node.pieces in _SIDES and node.squares == _EVERY_SQUARE
    if isinstance(node, ast.If):
        return _whole_side(node.then) and _whole_side(node.other)
    return False


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
        #: The states met at the start before any move (a focused move from there is one played
        #: there, not the next one in focus below).
        self.premove = self._premove()

    def _premove(self) -> list[int]:
        found, pending = {self.start}, [self.start]
        while pending:
            step = self.steps[pending.pop()]
            nexts = step[1] if step[0] == "choose" else [step[2]] if step[0] == "test" else []
            for target in nexts:
                if target not in found:
                    found.add(target)
                    pending.append(target)
        return sorted(found)

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
    primary = "primary" in machine.node.params  # (CQL 6.2 refuses it with a focus)
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


class _Best:
    """Per parent row, the best of its children's options: most moves, then the first in
    pre-order; a key per option, one scatter of maxima, read back at the parents."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.scratch = np.full(size, -1, np.int64)

    def pick(self, parents: np.ndarray, moves: np.ndarray, children: np.ndarray, rows: np.ndarray):
        """(moves, child, found) at ``rows`` of the best option of each, from options (parent,
        moves, child row)."""
        size = self.size
        np.maximum.at(self.scratch, parents, moves * (size + 1) + (size - children))
        got = self.scratch[rows].copy()
        self.scratch[parents] = -1
        found = got >= 0
        return np.where(found, got // (size + 1), -1), np.where(found, size - got % (size + 1), 0), found


def longest(cm: Columnar, machine: Machine, focused: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(moves, last row) of the first longest walk from every row of the frame, from the
    machine's first state; -1 moves where no walk ends.

    ``focused`` (a focus): per row, whether the move reaching it is in focus. A move then goes
    on to the first move in focus on each line below, and counts those alone; from the start,
    only the moves in focus played there.

    The work is done with the rows in level order (each level a slice, its children the next
    slice), so a state at a level is a few operations on views: per level and state, Python's
    share is most of the cost on a small collection. Within a level the rows keep pre-order,
    so a sibling's place there is its child order."""
    frame = cm.frame
    size = frame.size
    levels = frame.levels
    order = np.concatenate(levels) if levels else np.zeros(0, np.int64)
    rank = np.empty(size, np.int64)
    rank[order] = np.arange(size)
    bounds = np.r_[0, np.cumsum([len(level) for level in levels])].tolist()
    parent = frame.parent[order]
    parent = np.where(parent >= 0, rank[np.maximum(parent, 0)], -1)
    verdicts = [None if v is None else v[order] for v in _verdicts(cm, machine)]
    if focused is not None:
        focused = focused[order]
    steps = machine.steps
    length = np.full((len(steps), size), -1, np.int64)
    last = np.zeros((len(steps), size), np.int64)  # frame rows
    best = _Best(size)
    for depth in range(len(levels) - 1, -1, -1):
        rows = slice(bounds[depth], bounds[depth + 1])
        below = slice(bounds[depth + 1], bounds[depth + 2] if depth + 2 < len(bounds) else size)
        for index in range(len(steps) - 1, -1, -1):
            step = steps[index]
            if step[0] != "move":
                _here(step, index, rows, verdicts, length, last, order)
            elif below.start < below.stop:
                _move(step, index, rows, below, verdicts, focused, length, last, parent, best)
    if focused is not None:
        length, last = _from_start(machine, verdicts, focused, length, last, parent, best, order)
    moves = np.empty(size, np.int64)
    ends = np.empty(size, np.int64)
    moves[order] = length[machine.start]
    ends[order] = last[machine.start]
    return moves, ends


def _move(step: tuple, index: int, rows: slice, below: slice, verdicts, focused, length: np.ndarray,
          last: np.ndarray, parent: np.ndarray, best: _Best) -> None:
    """A move at the rows of a level: the best of their children one level down, the first of equals."""
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
          order: np.ndarray) -> None:
    """A state that stays at the position (the end, a test, a choice) at ``rows``, from its
    targets' values there."""
    kind = step[0]
    if kind == "end":
        length[index, rows] = 0
        last[index, rows] = order[rows]
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
                parent: np.ndarray, best: _Best, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The states met at the start again, every row a start: a move there is one in focus
    played there (its child's values are the ones below, already worked out)."""
    size = length.shape[1]
    rows = slice(0, size)
    children = np.flatnonzero(parent >= 0)
    start_length = length.copy()
    start_last = last.copy()
    for index in reversed(machine.premove):
        step = machine.steps[index]
        if step[0] != "move":
            _here(step, index, rows, verdicts, start_length, start_last, order)
            continue
        target = step[2]
        reach = length[target, children]
        live = focused[children] & verdicts[index][children] & (reach >= 0)
        got, chosen, found = best.pick(parent[children[live]], reach[live] + 1, children[live], rows)
        start_length[index] = got
        start_last[index] = np.where(found, last[target, chosen], 0)
    return start_length, start_last


def _ban(frame, rows: np.ndarray, ok: np.ndarray, last: np.ndarray) -> np.ndarray:
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
        while at != row:  # up to the start: with a focus, the plies between focused moves too
            at = int(parent[at])
            banned[at] = True
    return ok


#: The sides a focus may take at a start: none, white, black, both.
_NOBODY, _WHITE, _BLACK, _BOTH = range(4)


def _focus_sides(cm: Columnar, node: ast.Path, rows: np.ndarray) -> np.ndarray:
    """Per start row, whose pieces the focus takes there (:data:`_WHITE`...)."""
    frame = cm.frame
    if node.focus is None:  # singlecolor: the side to move's
        return np.where(frame.wtm[rows].astype(bool), _WHITE, _BLACK)
    squares = cm.eval(node.focus, Ctx(rows)).board(node.focus)
    white, black = frame.white[rows], frame.black[rows]
    sides = np.select([squares == 0, squares == white, squares == black, squares == white | black],
                      [_NOBODY, _WHITE, _BLACK, _BOTH], -1)
    if (sides < 0).any():
        raise NotColumnar(node, "a path focused on some pieces of a side")
    return sides


def _in_focus(frame, side: int, capture: bool) -> np.ndarray:
    """Per row, whether the move reaching it is in focus when the focus is ``side``'s pieces:
    one of them moves (castling: the king does), or with ``capture`` one is taken."""
    size = frame.size
    has = frame.parent >= 0
    mover_white = np.zeros(size, bool)
    mover_white[has] = frame.wtm[frame.parent[has]].astype(bool)
    moved = has & ~frame.null_move.astype(bool)
    mine = {_NOBODY: np.zeros(size, bool), _WHITE: mover_white, _BLACK: ~mover_white,
            _BOTH: np.ones(size, bool)}[side]
    focused = moved & mine
    if capture and side in (_WHITE, _BLACK):
        takes = (frame.captured >= 0) | frame.en_passant.astype(bool)
        focused |= moved & ~mine & takes
    return focused


def _walks(cm: Columnar, node: ast.Path, side: int | None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`longest` from every row of the frame, kept for the frame (per focused side)."""
    key = ("path", id(node), side)
    entry = cm.memo.get(key)
    if entry is None or entry[0] is not node:
        focused = None if side is None else _in_focus(cm.frame, side, node.focus_capture)
        entry = (node, *longest(cm, _machine(cm, node), focused))
        cm.memo[key] = entry
    return entry[1], entry[2]


@kernel(ast.Path)
def path(cm: Columnar, node: ast.Path, ctx: Ctx) -> Val:
    why = why_not(node)
    if why is not None:
        raise NotColumnar(node, why)
    rows = ctx.rows
    if node.focus is None and "singlecolor" not in node.params:
        every_length, every_last = _walks(cm, node, None)
        moves, last = every_length[rows], every_last[rows]
    else:
        sides = _focus_sides(cm, node, rows)
        moves = np.full(len(rows), -1, np.int64)
        last = np.zeros(len(rows), np.int64)
        for side in np.unique(sides).tolist():
            here = sides == side
            every_length, every_last = _walks(cm, node, side)
            moves[here], last[here] = every_length[rows[here]], every_last[rows[here]]
    ok = moves >= 1  # a walk of no move is no match
    if node.low is not None:
        ok &= (node.low <= moves) & (moves <= node.high)
    if "nestban" in node.params:
        ok = _ban(cm.frame, rows, ok, last)
    if "lastposition" in node.params:
        return Val(POS, np.where(ok, last, 0), ok)
    return number(np.where(ok, moves, 0), ok)
