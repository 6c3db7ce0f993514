"""A path's search as a finite machine: its states are what is left to match.

The tree-walker (:mod:`cqlindex.filters.sequences.path_walk`) keeps a stack of what is left
to match, and where no constituent changes anything or reads the walk under way, what it
does from a position depends on that stack alone (with each repetition's rounds, counted as
far as they matter, and whether a move was made since the round began). Those stacks are
finitely many: this module lists them once per path, with what each does in the walker's
order, for :mod:`cqlindex.columnar.path_walks` to work out over a whole frame.
"""

from __future__ import annotations

from cqlindex.columnar.values import NotColumnar
from cqlindex.cql import ast

#: Machines with more states than this (``(-- --){1000}``) stay with the tree-walker.
MAX_STATES = 2_000


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
