"""``line``: a regular expression of filters over consecutive positions of one line of the tree.

The constituents match, in order, the positions of a path that starts at the current position
and steps to a child each time (``-->``) or to the parent (``<--``); ``singlecolor`` steps two
plies, so only positions with the start's side to move are matched. Every path through the
visited tree is a candidate line: with ``variations`` a position's variation children are
continuations too, without it the loaded tree is the main line only.

Matching is a set simulation, not backtracking: a *state* is (the next position to consume,
the last position consumed), and a constituent maps a set of states to the set of states it
can end in. A filter consumes one position; a group consumes its items in turn; a repetition
iterates its argument, collecting the states after ``low`` .. ``high`` rounds. Because the
path from the start to a position is unique in a tree, a state fixes the whole matched
sequence, so the final states are exactly the matching sequences and their ends give the
value: the length (number of matched positions) of the longest one (``firstmatch``: the
shortest), or with ``lastposition`` its last position; between sequences of the same length
the one ending at the lowest position id is selected (seed 003, "Multiple Matching
Sequences"). A line that matches no position at all (every constituent repeated zero times)
does not match: a matching sequence has a positive length (seed 003, auxiliary comments).

Parameters: ``primary`` / ``secondary`` admit only steps onto positions that do not / do
start a variation (for a backward line: ancestors that do not / do start one; with
``singlecolor`` the skipped intermediate position is checked too); ``nestban`` bans the
positions after the start of the selected sequence from starting a later match of the same
line filter in the same game; the range ``line m n`` applies to the length; ``quiet`` only
concerns comments, which the evaluator does not write.

Move linearization (seed 003): an ordinary ``move`` filter evaluated directly by a constituent
sees only the move to the next position of the line being matched. The constituent is then
evaluated at a copy of the position whose ``children`` hold that one child (none at the end of
a line); everything that navigates to other positions reads ``ev.tree.positions`` and so sees
the real tree. Only constituents that contain such a ``move`` filter get the copy, and only
where it differs from the position (a position with more than one continuation). Known
limits of the copy: ``move primary`` / ``move secondary`` there count the one remaining move
as the primary one, and ``child`` / ``terminal`` in the same constituent see the copy too. A
backward line linearizes an ancestor's moves to the one toward the position matched before
it, and does not linearize at its start. ``nolinearize`` turns linearization off for the
line's own constituents (a nested line linearizes on its own); a move filter inside the body of
``find``, ``echo`` or ``:`` is not linearized either (seed 003). ``nonatomic`` is accepted and
changes nothing here: constituents already assign as the simulation tries them (below).

Not done: atomic evaluation. A constituent that assigns a variable changes it at every
position the simulation tries (each at most once per start position), not only along the
selected sequence.
"""

from __future__ import annotations

import copy
import dataclasses

from cqlindex.cql import ast
from cqlindex.errors import CqlSyntaxError
from cqlindex.evaluate.context import Evaluator, evaluates
from cqlindex.store.trees import GameTree, Position

#: Move linearization (seed 003) on or off: the one switch to flip if the reference engine
#: turns out not to linearize.
LINEARIZE = True
#: A state: (id of the next position to consume or None at the end of the line,
#:           id of the last position consumed or None before the first).
State = tuple[int | None, int | None]
#: What an ordinary move filter may see at a consumed position: None = every child,
#: a tuple = only these children (the one the line goes on to, or none at its end).
Linear = tuple[int, ...] | None


@evaluates(ast.Line)
def line(ev: Evaluator, node: ast.Line, pos: Position) -> object:
    params = node.params
    if "nestban" in params and node.backward:
        raise CqlSyntaxError("'nestban' cannot be used with a backward line ('<--')", ev.query.text, node.span,
                             ev.query.source)
    banned = _banned(ev, node) if "nestban" in params else None
    if banned is not None and pos.id in banned:
        return None
    matcher = _Matcher(ev, node, pos)
    states = matcher.run()
    best = matcher.select(states)
    if best is None:
        return None
    length, last = best
    if node.low is not None and not (node.low <= length <= node.high):
        return None
    if banned is not None:
        banned.update(matcher.sequence(last)[1:])
    if "lastposition" in params:
        return ev.tree.positions[last]
    return length


def _banned(ev: Evaluator, node: ast.Line) -> set[int]:
    """The positions of the current game banned from starting ``node`` (nestban)."""
    store: dict[int, tuple[GameTree, ast.Line, set[int]]] | None = getattr(ev, "_line_nestban", None)
    if store is None:
        store = {}
        ev._line_nestban = store  # per evaluator; reset below whenever the game changes
    entry = store.get(id(node))
    if entry is None or entry[0] is not ev.tree or entry[1] is not node:
        entry = (ev.tree, node, set())
        store[id(node)] = entry
    return entry[2]


class _Matcher:
    """One evaluation of a line filter at one start position."""

    def __init__(self, ev: Evaluator, node: ast.Line, start: Position) -> None:
        self.ev = ev
        self.node = node
        self.start = start
        self.positions = ev.tree.positions
        params = node.params
        self.backward = node.backward
        self.double = "singlecolor" in params
        self.primary = "primary" in params
        self.secondary = "secondary" in params
        self.shortest = "firstmatch" in params
        self.linearize = LINEARIZE and "nolinearize" not in params
        self.tests: dict[tuple[int, int, Linear], bool] = {}
        self.lines: dict[int, list[tuple[Linear, int | None]]] = {}

    # -- the tree as the line sees it --------------------------------------------------------

    def _admits(self, position_id: int) -> bool:
        """Whether a step onto ``position_id`` is allowed by primary / secondary."""
        if not (self.primary or self.secondary):
            return True
        node = self.positions[position_id]
        starts_variation = node.parent is not None and self.positions[node.parent].children[0] != position_id
        if self.primary and starts_variation:
            return False
        return not (self.secondary and not starts_variation)

    def _children(self, position_id: int) -> list[int]:
        return [c for c in self.positions[position_id].children if self._admits(c)]

    def _continuations(self, state: State) -> list[tuple[Linear, int | None]]:
        """For the position ``state`` consumes next: (what its move filters see, the next position)."""
        n, last = state
        if self.backward:
            return [(self._backward_linear(last), self._up(n))]
        found = self.lines.get(n)
        if found is None:
            found = []
            for m in self._children(n):
                if not self.double:
                    found.append(((m,), m))
                    continue
                after = self._children(m)
                found.extend(((m,), g) for g in after)
                if not after:
                    found.append(((m,), None))
            if not found:
                found.append(((), None))
            self.lines[n] = found
        return found

    def _up(self, position_id: int) -> int | None:
        steps = 2 if self.double else 1
        current = position_id
        for _ in range(steps):
            parent = self.positions[current].parent
            if parent is None or not self._admits(parent):
                return None
            current = parent
        return current

    def _backward_linear(self, last: int | None) -> Linear:
        if last is None:
            return None  # the start of a backward line: the line's continuation is unknown
        if self.double:
            return (self.positions[last].parent,)
        return (last,)

    # -- matching ----------------------------------------------------------------------------

    def run(self) -> set[State]:
        states: set[State] = {(self.start.id, None)}
        for item in self.node.items:
            states = self.advance(item, states)
            if not states:
                break
        return states

    def advance(self, item: ast.Node, states: set[State]) -> set[State]:
        """The states in which ``item`` can end, started in any of ``states``."""
        if isinstance(item, ast.Sequence):
            for inner in item.items:
                states = self.advance(inner, states)
                if not states:
                    break
            return states
        if isinstance(item, ast.Repeat):
            return self.repeat(item, states)
        out: set[State] = set()
        for state in states:
            n = state[0]
            if n is None:
                continue
            for linear, following in self._continuations(state):
                if self.test(item, n, linear):
                    out.add((following, n))
        return out

    def repeat(self, item: ast.Repeat, states: set[State]) -> set[State]:
        if item.high is not None and item.high < item.low:
            return set()  # {m,n} with m > n repeats no number of times
        for _ in range(item.low):
            before, states = states, self.advance(item.arg, states)
            if not states:
                return states
            if states == before:
                break  # the same again: every further round gives the same (a huge '{m,}' ends here)
        # A state reached again in a later round can only do less (fewer rounds left), so
        # each round goes on from the new states alone; unbounded, this is a fixpoint.
        result = set(states)
        frontier = states
        rounds = item.high - item.low if item.high is not None else None
        while frontier and (rounds is None or rounds > 0):
            frontier = self.advance(item.arg, frontier) - result
            result |= frontier
            if rounds is not None:
                rounds -= 1
        return result

    def test(self, item: ast.Node, position_id: int, linear: Linear) -> bool:
        position = self.positions[position_id]
        if linear is not None and (not self.linearize or not _plays_move(self.ev, item)
                                   or list(linear) == position.children):
            linear = None
        key = (id(item), position_id, linear)
        known = self.tests.get(key)
        if known is None:
            if linear is not None:
                position = copy.copy(position)
                position.children = list(linear)
            known = self.ev.test(item, position)
            self.tests[key] = known
        return known

    # -- the result --------------------------------------------------------------------------

    def _length(self, last: int) -> int:
        plies = abs(self.positions[last].ply - self.start.ply)
        return plies // (2 if self.double else 1) + 1

    def select(self, states: set[State]) -> tuple[int, int] | None:
        """(length, last position id) of the selected matching sequence, or None."""
        ends = {last for _, last in states if last is not None}
        if not ends:
            return None
        if self.shortest:
            return min((self._length(last), last) for last in ends)
        length = max(self._length(last) for last in ends)
        return length, min(last for last in ends if self._length(last) == length)

    def sequence(self, last: int) -> list[int]:
        """The matched positions of a forward line from the start to ``last``, in line order."""
        step = 2 if self.double else 1
        out = [last]
        while out[-1] != self.start.id:
            current = out[-1]
            for _ in range(step):
                current = self.positions[current].parent
            out.append(current)
        return out[::-1]


def _plays_move(ev: Evaluator, node: ast.Node) -> bool:
    """Whether ``node`` holds an ordinary ``move`` filter (one that reads the moves played next)."""
    cache: dict[int, tuple[ast.Node, bool]] | None = getattr(ev, "_line_moves", None)
    if cache is None:
        cache = {}
        ev._line_moves = cache
    entry = cache.get(id(node))
    if entry is None or entry[0] is not node:  # the entry keeps its node alive, so ids stay unique
        entry = (node, _walk_for_move(node))
        cache[id(node)] = entry
    return entry[1]


def _walk_for_move(node: object) -> bool:
    """An ordinary move filter outside the bodies that are not linearized (seed 003)."""
    if isinstance(node, ast.Move):
        return node.mode == "played"
    if isinstance(node, (ast.Find, ast.Echo, ast.Line)):
        return False  # their own positions (a nested line linearizes its own constituents)
    if isinstance(node, ast.Colon):
        return _walk_for_move(node.position)
    if isinstance(node, ast.Node):
        return any(_walk_for_move(getattr(node, f.name)) for f in dataclasses.fields(node) if f.name != "span")
    if isinstance(node, tuple):
        return any(_walk_for_move(x) for x in node)
    return False
