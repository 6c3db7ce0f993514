"""One evaluation of a path at one start position: a depth-first search, in the reference's order.

Why depth-first and not a set of states: a constituent may change variables
(``C1=C1|T1`` in two-piece-cycle, ``x=to`` in followpaths-simple), and what it sets stays set
when the search backs out of a branch and tries the next one, as in the reference engine. The
walk kept, and the values the variables end with, then depend on the order the walks are
tried in, so this search tries them in the reference's order:

* the constituents are a stack of what is left to match; a group pushes its items;
* a move tries each move it may make in turn (the children of the position in child order, or
  with a focus the moves in focus below it in pre-order, see :mod:`path_focus`), and for each
  goes on with the rest from the position it reached; a filter goes on only where it holds;
* a repetition first tries to stop (when it has matched enough times), then to match once
  more (when it may): ``*`` ``?`` ``{m,n}`` stop first, so does ``+`` after one round;
* when nothing is left, the walk ends: a walk of no moves is not a match (CQL 6.2: "we do not
  allow matches at the start"); otherwise it is kept if it has more moves than the best so far
  (with ``max``: a larger value of the max filter at its end, which must match there), so of
  equally long walks the first found is kept; ``firstmatch`` stops at the first walk kept.

An unbounded repetition that comes back to where its previous round started (a round that
made no move) is not tried again: it could only do what it already did. The reference
engine recurses for ever there; a bounded one is followed as written. A repetition that still
owes more rounds than the game has plies left below the position (each round making a move at
least) is given up there: ``path (k --){4294967296,}`` would otherwise walk every line to its
end from every start.

Filter results are kept per (constituent, position) for the one evaluation when nothing in
the path has an effect (no assignment, comment, sort, nested path or path filter), since
only then is a filter's result at a position the same whenever the search reaches it.
For such paths (without ``max`` or ``firstmatch``) the first longest walk from each state
(position, what is left) is kept too, so a path with exponentially many walks through a game
(``(-- --? --)+``) is searched in time linear in the game.
"""

from __future__ import annotations

import sys

from cqlindex.cql import ast
from cqlindex.evaluate.context import Evaluator
from cqlindex.evaluate.values import MATCH, count
from cqlindex.filters.moves.python import dash_moves
from cqlindex.filters.sequences.path_focus import Focus
from cqlindex.filters.variables.python import PieceBinding, piece_ids
from cqlindex.query.analyse import plain, quiet_path
from cqlindex.store.trees import Position

#: Python frames per move of a walk are a handful; games are at most a few thousand plies.
_DEPTH = 50_000
#: The evaluator memo key of the states known to fail, per path and variable values, per game.
_FAILED = "path failed states"
#: The evaluator memo key of the longest walk from each state, per path and variable values, per game.
_LONGEST = "path longest walks"
#: Not yet worked out (None is a state known to reach no end).
_UNKNOWN = object()
#: An atomic variable without a value.
_UNBOUND = object()
#: The evaluator memo key of the moves of variable-free path moves, per (move, position), per game.
_STATIC_STEPS = "path static steps"
#: The evaluator memo key of each position's height (the plies of its longest line below), per game.
_HEIGHTS = "path heights"


def starts_variation(ev: Evaluator, position: Position) -> bool:
    """Whether the move that led to ``position`` is not its parent's main continuation."""
    return position.parent is not None and ev.tree.positions[position.parent].children[0] != position.id


def has_effects(node: ast.Path) -> bool:
    """Whether a filter of the path may change something or depend on the walk under way."""
    return not all(plain(item) for item in ast.walk(node.items))


class _Round:
    """A repetition under way: ``done`` rounds matched, the last one started at ``begun``."""

    __slots__ = ("repeat", "done", "begun")

    def __init__(self, repeat: ast.Repeat, done: int, begun: int) -> None:
        self.repeat, self.done, self.begun = repeat, done, begun


class Walk:
    """The search of one path filter from one start position."""

    def __init__(self, ev: Evaluator, node: ast.Path, start: Position, pure: bool, focus: Focus | None,
                 memo: bool = False) -> None:
        self.ev = ev
        self.node = node
        self.start = start
        self.positions = ev.tree.positions
        self.focus = focus
        self.primary = "primary" in node.params
        self.firstmatch = "firstmatch" in node.params
        self.count = 0
        self.best: tuple[int, Position, int | None] | None = None  # (count, last position, max value)
        self.best_comments: list = []
        self.atomic = tuple(sorted(node.atomic))
        self.best_atomic: tuple = ()
        self._mark = len(ev.pending)
        self._tests: dict[tuple[int, int], bool] | None = {} if pure else None
        self._steps: dict[tuple[int, int], list[int]] = {}
        self.ends = 0  # walks that reached their end (kept or not)
        self._failed = failures(ev, node, focus) if memo else None
        #: (position, what is left) -> (moves, end) of its first longest walk, or None: when the
        #: outcome of a walk is its length alone (no effects, no max, no firstmatch).
        self._longest = None
        if self._failed is not None and pure and node.max is None and not self.firstmatch:
            self._longest = longest_walks(ev, node, focus)

    def best_position(self) -> Position | None:
        return None if self.best is None else self.best[1]

    def run(self) -> None:
        limit = sys.getrecursionlimit()
        if limit < _DEPTH:
            sys.setrecursionlimit(_DEPTH)  # for this search only (Python's own frames, not C's, in 3.11+)
        before = self._atomic_values()
        try:
            self._go(self.start, _stack(self.node.items, None))
        finally:
            if limit < _DEPTH:
                sys.setrecursionlimit(limit)
        del self.ev.pending[self._mark:]
        if self.best is not None:
            self.ev.pending.extend(self.best_comments)
        self._restore_atomic(self.best_atomic if self.best is not None else before)

    def _atomic_values(self) -> tuple:
        """The values of the path's atomic variables now (``_UNBOUND`` for none)."""
        variables = self.ev.variables
        return tuple(variables.get(name, _UNBOUND) for name in self.atomic)

    def _restore_atomic(self, values: tuple) -> None:
        variables = self.ev.variables
        for name, value in zip(self.atomic, values):
            if value is _UNBOUND:
                variables.pop(name, None)
            else:
                variables[name] = value

    def _go(self, pos: Position, rest) -> None:
        if rest is None:
            if pos is not self.start:
                self.ends += 1
                self._end(pos)
            return
        if self.firstmatch and self.best is not None:
            return
        failed = self._failed
        if failed is not None and pos is not self.start:
            key = (pos.id, _rest_key(rest, pos.id))
            if self._longest is not None:
                self._go_longest(key, pos, rest)
                return
            if key in failed:
                return
            ends = self.ends
            self._step(pos, rest)
            if self.ends == ends:
                failed.add(key)
            return
        self._step(pos, rest)

    def _go_longest(self, key: tuple, pos: Position, rest) -> None:
        """:meth:`_go` from a state whose longest walk to an end is kept: worked out once, then
        reused wherever the search comes back to the state.

        Without this the search follows every walk, and a path such as ``(-- --? --)+`` has
        exponentially many of them in the length of the game. The reuse is exact: the walks from a
        state are the same, in the same order, whatever led there, and the best so far is
        replaced only by a longer walk, so it ends as the longer of itself and the first longest
        walk from the state.
        """
        known = self._longest.get(key, _UNKNOWN)
        if known is _UNKNOWN:
            before, here = self.best, self.count
            self.best = None
            self._step(pos, rest)
            known = None if self.best is None else (self.best[0] - here, self.best[1])
            self._longest[key] = known
            self.best = before
        if known is not None and (self.best is None or self.count + known[0] > self.best[0]):
            self.best = (self.count + known[0], known[1], None)

    def _step(self, pos: Position, rest) -> None:
        item, rest = rest
        kind = type(item)
        if kind is ast.Dash:
            self._move(item, pos, rest)
        elif kind is ast.Sequence:
            self._go(pos, _stack(item.items, rest))
        elif kind is ast.Repeat:
            self._round(_Round(item, 0, -1), pos, rest)
        elif kind is _Round:
            self._round(item, pos, rest)
        elif self._test(item, pos):
            self._go(pos, rest)

    def _round(self, state: _Round, pos: Position, rest) -> None:
        repeat, done = state.repeat, state.done
        if state.begun == pos.id and done < repeat.low:
            # A round that made no move leaves the walk where it was: every further round would do
            # the same again, so the rounds still owed are done ('path (check){4294967296,}').
            done = repeat.low
        if done >= repeat.low and (repeat.high is None or done <= repeat.high):
            self._go(pos, rest)
        if repeat.high is not None and done >= repeat.high:
            return
        if repeat.high is None and done >= repeat.low and state.begun == pos.id:
            return  # a round that made no move: another one would only do the same again
        if done < repeat.low and (repeat.low - done) * self.ev.fact("path least moves", repeat.arg, least_moves) \
                > heights(self.ev)[pos.id]:
            return  # the rounds owed need more moves than any line below has
        self._go(pos, (repeat.arg, (_Round(repeat, done + 1, pos.id), rest)))

    def _move(self, item: ast.Dash, pos: Position, rest) -> None:
        pending = self.ev.pending
        for child_id in self._steps_from(item, pos):
            kept = len(pending)
            atomic = self._atomic_values() if self.atomic else ()
            self.count += 1
            self._go(self.positions[child_id], rest)
            self.count -= 1
            del pending[kept:]
            if self.atomic:  # the reference undoes a move's changes to atomic variables
                self._restore_atomic(atomic)

    def _steps_from(self, item: ast.Dash, pos: Position) -> list[int]:
        key = (id(item), pos.id)
        found = self._steps.get(key)
        if found is not None:
            return found
        if self.focus is None:
            found = self._children_by(item, pos)
            if self.primary:
                found = [c for c in found if not starts_variation(self.ev, self.positions[c])]
        else:
            tails = self.focus.children(pos) if pos is self.start else self.focus.below(pos)
            found = [c for c in tails if c in self._made_by(item, self.positions[c].parent)]
        self._steps[key] = found
        return found

    def _made_by(self, item: ast.Dash, head: int) -> frozenset[int]:
        """The children of ``head`` reached by a move ``item`` describes (its sides seen at ``head``)."""
        key = (id(item), -1 - head)
        found = self._steps.get(key)
        if found is None:
            found = self._children_by(item, self.positions[head])
            self._steps[key] = found
        return frozenset(found)

    def _children_by(self, item: ast.Dash, pos: Position) -> list[int]:
        """The children of ``pos`` reached by a move ``item`` describes. A promotion or a capture
        needs such a move among the children before its sides are worth evaluating; a move
        whose sides name no variable gives the same children from any start, so those are
        kept for the whole game."""
        positions = self.positions
        if item.promotes and not any(positions[c].promotion for c in pos.children):
            return []
        if item.capture and not any(positions[c].captured is not None or positions[c].en_passant
                                    for c in pos.children):
            return []
        static = self.ev.fact("static dash", item, _static_dash)  # once per run, not per walk
        if not static:
            return list(dash_moves(self.ev, item, pos))
        kept = self.ev.memo.setdefault(_STATIC_STEPS, {})
        found = kept.get((id(item), pos.id))
        if found is None:
            found = list(dash_moves(self.ev, item, pos))
            kept[(id(item), pos.id)] = found
        return found

    def _test(self, item: ast.Node, pos: Position) -> bool:
        tests = self._tests
        if tests is not None:
            known = tests.get((id(item), pos.id))
            if known is not None:
                return known
        if isinstance(item, ast.Keyword) and item.name in ("primary", "secondary"):
            known = pos.parent is not None and starts_variation(self.ev, pos) == (item.name == "secondary")
        else:
            known = self.ev.test(item, pos)
        if tests is not None:
            tests[(id(item), pos.id)] = known
        return known

    def _end(self, pos: Position) -> None:
        """A walk ends at ``pos``: keep it if it is better than the best so far."""
        best = self.best
        if self.node.max is not None:
            value = max_value(self.ev, self.node.max, pos)
            if value is None or (best is not None and value <= best[2]):
                return
        elif best is not None and self.count <= best[0]:
            return
        else:
            value = None
        self.best = (self.count, pos, value)
        self.best_comments = self.ev.pending[self._mark:]
        self.best_atomic = self._atomic_values()


def least_moves(node: ast.Node) -> int:
    """The fewest moves a path constituent makes when it matches (a filter makes none)."""
    kind = type(node)
    if kind is ast.Dash:
        return 1
    if kind is ast.Sequence:
        return sum(least_moves(item) for item in node.items)
    if kind is ast.Repeat:
        return node.low * least_moves(node.arg)
    return 0


def heights(ev: Evaluator) -> list[int]:
    """Per position of the game, the plies of the longest line below it (0 at a line's end);
    every move of a walk goes at least one ply down."""
    found = ev.memo.get(_HEIGHTS)
    if found is None:
        positions = ev.tree.positions
        found = [0] * len(positions)
        for pos in reversed(positions):  # pre-order: children come after their parent
            if pos.children:
                found[pos.id] = 1 + max(found[c] for c in pos.children)
        ev.memo[_HEIGHTS] = found
    return found


def _static_dash(item: ast.Dash) -> bool:
    """Whether a move of the path names no variable, keyword, path or call: the same children
    from any start."""
    return not any(isinstance(n, (ast.Variable, ast.Keyword, ast.Path, ast.Call))
                   for n in ast.walk((item.left, item.right, item.promote_by)))


def failures(ev: Evaluator, node: ast.Path, focus: Focus | None) -> set | None:
    """The (position, what is left) states of ``node`` known, in this game, to reach no end.

    Shared by every evaluation of the path in the game with the same values of the variables
    it reads (and the same focused pieces): from such a state the search does the same
    wherever it started, so a state that reached no end once reaches none again. Only for
    paths whose constituents change nothing and do not read the walk under way (see
    :func:`memo_allowed`); None when a variable's value cannot be a key.
    """
    return _per_game(ev, _FAILED, node, focus, set)


def _per_game(ev: Evaluator, memo_key: str, node: ast.Path, focus: Focus | None, factory):
    """The game's store under ``memo_key`` for ``node`` with the current values of the variables
    it reads (and the focused pieces), made by ``factory`` when new; None when a variable's value
    cannot be a key."""
    names = ev.fact("path variables", node,  # once per path: a walk starts at every position
                    lambda n: tuple(sorted({x.name for x in ast.walk(n.items) if isinstance(x, ast.Variable)})))
    values = []
    for name in names:
        value = ev.variables.get(name)
        if isinstance(value, PieceBinding):
            value = ("piece", piece_ids(ev).at(ev.tree.positions[value.position])[value.square])
        elif isinstance(value, Position):
            value = ("position", value.id)
        elif value is not None and not isinstance(value, (int, str)):
            return None
        values.append(value)
    store = ev.memo.setdefault(memo_key, {})
    key = (id(node), tuple(values), None if focus is None else focus.pieces)
    found = store.get(key)
    if found is None:
        found = store[key] = factory()
    return found


def longest_walks(ev: Evaluator, node: ast.Path, focus: Focus | None) -> dict:
    """The longest walk from each state reached so far in this game, shared by the evaluations of
    ``node`` with the same variable values, as :func:`failures` shares its states."""
    return _per_game(ev, _LONGEST, node, focus, dict)


def memo_allowed(node: ast.Path) -> bool:
    """Whether a failed state of ``node`` fails whenever it is reached again: nothing in it changes
    anything but comments (dropped with a failed walk anyway) or reads the walk under way."""
    return node.max is None and quiet_path(node)


def _rest_key(rest, here: int) -> tuple:
    """What is left to match, as a key: constituents by identity, a repetition by the rounds that
    still matter (beyond its minimum an unbounded one only cares whether the last round moved)."""
    key = []
    while rest is not None:
        item, rest = rest
        if type(item) is _Round:
            repeat = item.repeat
            done = item.done if repeat.high is not None or item.done < repeat.low else -1
            key.append((id(repeat), done, item.begun == here))
        else:
            key.append(id(item))
    return tuple(key)


def max_value(ev: Evaluator, node: ast.Node, pos: Position) -> int | None:
    """The number ``node`` stands for at ``pos``; a comparison that holds stands for its first
    operand that is not a constant (``max pathcountunfocused>=5`` in clearance-delayed)."""
    value = ev.eval(node, pos)
    if value is None:
        return None
    if value is MATCH and isinstance(node, ast.Compare):
        for operand in node.operands:
            if not isinstance(operand, ast.Number):
                return count(ev.eval(operand, pos))
        return None
    return count(value)


def _stack(items: tuple[ast.Node, ...], rest):
    """``items`` pushed in front of ``rest`` (a linked list of (constituent, rest) pairs)."""
    for item in reversed(items):
        rest = (item, rest)
    return rest
