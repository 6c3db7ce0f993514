"""CQL 6.2's ``path`` (``⊢``): a regular expression of moves and filters from the current position.

A path walks down the tree from the position it is evaluated at. A *move* constituent
(``F--G``, ``F[x]G``) steps to a child reached by a move it describes (any child with
``variations``; without, the loaded tree is the main line); an ordinary filter constituent
tests the position the walk has reached and does not move; groups and repetitions combine
them as the parser folded them (:mod:`cqlindex.filters.sequences.path_grammar`).

Matching is a set simulation, as for ``line``: a state is the position reached, and since
the way from the start to a position in a tree is unique, a state stands for the whole walk.
Each constituent maps the set of states it starts in to the set it can end in; a repetition
iterates its argument and, unbounded, stops at a fixpoint.

The rules below are what the reference engine's answers imply where nothing else says:

* The value is the number of moves of the selected walk (plies from the start to its end).
  The example consecutive-checks sorts ``path nestban -- check{5,}`` as "number of
  consecutive checks": one move per check, and game 122 of cql6-sample matches at
  position 6, followed by exactly five checking moves.
* The path matches at the position it starts from (D30 matches game 252 at position 22, the
  position before Bxh7+).
* The selected walk is the longest (``firstmatch``: the shortest); between walks of the same
  length the one ending at the lowest position id, as for ``line``.
* A walk of no moves matches, with value 0 (``path k`` is accepted by the reference parser;
  no oracle shows such a match or its absence, so this is a guess).
* ``nestban``: the positions strictly inside a selected walk (after its start, before its
  end: those a move of the walk is made from) cannot start a later match of the same path
  filter in the same game. consecutive-checks matches games 74 and 190 only at position 0,
  though checks continue for many moves after it; queentriangulation matches game 155 at
  positions 10, 20, 30 ..., each walk ending where the next one starts, so the end of a
  walk stays free (``line`` bans its end too).
* ``primary`` / ``secondary`` (parameters) admit only moves that are / are not the main
  continuation, like ``line``'s; the filters ``primary`` / ``secondary`` inside a path hold
  at a position reached by such a move (and at the start of the game neither holds).
* ``quiet`` only concerns comments, which the evaluator does not write.

Not done (refused when parsed): the Tier-3 path family (``focus``, ``piecepath``,
``pathcount``, ``pathstart``, ``keepallbest``, ``max`` ...). Filters inside a path see the
position as it is: an ordinary ``move`` filter there sees every continuation (no move
linearization as ``line`` does; no oracle covers it).
"""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.evaluate.context import Evaluator, evaluates
from cqlindex.filters.moves.python import dash_moves
from cqlindex.store.trees import GameTree, Position


@evaluates(ast.Path)
def path(ev: Evaluator, node: ast.Path, pos: Position) -> object:
    banned = _banned(ev, node) if "nestban" in node.params else None
    if banned is not None and pos.id in banned:
        return None
    walker = _Walker(ev, node)
    ends = walker.advance_all(node.items, {pos.id})
    if not ends:
        return None
    positions = ev.tree.positions
    if "firstmatch" in node.params:
        length, last = min((positions[end].ply - pos.ply, end) for end in ends)
    else:
        length = max(positions[end].ply for end in ends) - pos.ply
        last = min(end for end in ends if positions[end].ply - pos.ply == length)
    if banned is not None and last != pos.id:
        current = positions[last].parent
        while current != pos.id:
            banned.add(current)
            current = positions[current].parent
    return length


def starts_variation(tree: GameTree, position: Position) -> bool:
    """Whether the move that led to ``position`` is not its parent's main continuation."""
    return position.parent is not None and tree.positions[position.parent].children[0] != position.id


def _banned(ev: Evaluator, node: ast.Path) -> set[int]:
    """The positions of the current game banned from starting ``node`` (nestban)."""
    store: dict[int, tuple[GameTree, ast.Path, set[int]]] | None = getattr(ev, "_path_nestban", None)
    if store is None:
        store = {}
        ev._path_nestban = store
    entry = store.get(id(node))
    if entry is None or entry[0] is not ev.tree or entry[1] is not node:
        entry = (ev.tree, node, set())  # a new game (or a new node at a reused id): nothing banned yet
        store[id(node)] = entry
    return entry[2]


class _Walker:
    """One evaluation of a path filter at one start position."""

    def __init__(self, ev: Evaluator, node: ast.Path) -> None:
        self.ev = ev
        self.positions = ev.tree.positions
        self.primary = "primary" in node.params
        self.secondary = "secondary" in node.params
        self.tests: dict[tuple[int, int], bool] = {}
        self.steps: dict[tuple[int, int], list[int]] = {}

    def advance_all(self, items: tuple[ast.Node, ...], states: set[int]) -> set[int]:
        for item in items:
            states = self.advance(item, states)
            if not states:
                break
        return states

    def advance(self, item: ast.Node, states: set[int]) -> set[int]:
        """The positions ``item`` can end at, started at any of ``states``."""
        if isinstance(item, ast.Sequence):
            return self.advance_all(item.items, states)
        if isinstance(item, ast.Repeat):
            return self.repeat(item, states)
        if isinstance(item, ast.Dash):
            return {child for state in states for child in self.step(item, state)}
        return {state for state in states if self.test(item, state)}

    def repeat(self, item: ast.Repeat, states: set[int]) -> set[int]:
        if item.high is not None and item.high < item.low:
            return set()
        for _ in range(item.low):
            states = self.advance(item.arg, states)
            if not states:
                return states
        # A position reached again in a later round can do no more than it already did, so
        # each round goes on from the new positions alone; unbounded, this is a fixpoint.
        result = set(states)
        frontier = states
        rounds = None if item.high is None else item.high - item.low
        while frontier and (rounds is None or rounds > 0):
            frontier = self.advance(item.arg, frontier) - result
            result |= frontier
            if rounds is not None:
                rounds -= 1
        return result

    def step(self, item: ast.Dash, state: int) -> list[int]:
        key = (id(item), state)
        found = self.steps.get(key)
        if found is None:
            found = [c for c in dash_moves(self.ev, item, self.positions[state]) if self._admits(c)]
            self.steps[key] = found
        return found

    def _admits(self, child: int) -> bool:
        if not (self.primary or self.secondary):
            return True
        secondary = starts_variation(self.ev.tree, self.positions[child])
        return secondary if self.secondary else not secondary

    def test(self, item: ast.Node, state: int) -> bool:
        key = (id(item), state)
        known = self.tests.get(key)
        if known is None:
            position = self.positions[state]
            if isinstance(item, ast.Keyword) and item.name in ("primary", "secondary"):
                known = position.parent is not None and (
                    starts_variation(self.ev.tree, position) == (item.name == "secondary"))
            else:
                known = self.ev.test(item, position)
            self.tests[key] = known
        return known
