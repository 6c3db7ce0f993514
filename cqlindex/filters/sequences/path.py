"""CQL 6.2's ``path`` (``⊢``): a regular expression of moves and filters from the current position.

A path walks down the tree from the position it is evaluated at. A *move* constituent
(``F--G``, ``F[x]G``) steps to a child reached by a move it describes (any child with
``variations``; without, the loaded tree is the main line), or with a ``focus`` to the next
move in focus below (:mod:`path_focus`); an ordinary filter constituent tests the position the
walk has reached and does not move; groups and repetitions combine them as the parser folded
them (:mod:`path_grammar`). The search itself is :mod:`path_walk`; this module decides what a
finished search means. These are the reference engine's rules (CQL 6.2, build 9.493), which
the example files and the acceptance answers confirm:

* The path matches at the position it starts from, when some walk of at least one move
  matches; its value is the number of moves of the walk kept (focused moves only, with a
  focus), or with ``max F`` the largest value of ``F`` at the end of a walk (``F`` must match
  there), or with ``lastposition`` that walk's last position. A range among the parameters
  (``path 3 10 ...``) bounds that number (the max value, with ``max``).
* ``nestban``: the positions a kept walk starts from and passes through (all but its end)
  cannot start a later match of the same path filter in the same game. consecutive-checks
  matches games 74 and 190 only at position 0, though checks continue long after it;
  queentriangulation matches game 155 at positions 10, 20, 30 ..., each walk ending where the
  next one starts. The start itself is banned too: a path inside a piece loop matches once
  per start position, for the first piece that makes it match.
* ``primary`` admits only main continuations; the filters ``primary`` / ``secondary`` inside a
  path hold at a position reached by such a move (and at the start of the game neither holds).
* ``quiet``, ``title``, ``verbose``, ``piecepath`` and ``keepallbest`` only shape comments,
  which cqlindex does not write for a path; they change no match.
* A match leaves its start, last position and count for ``pathstart``, ``pathlastposition``
  and ``pathcount`` written after it (:mod:`path_refs`).
"""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.evaluate.context import Evaluator, evaluates
from cqlindex.filters.sequences.path_focus import Focus
from cqlindex.filters.sequences.path_needs import first_move_played, leading_move, may_match
from cqlindex.filters.sequences.path_refs import ACTIVE, STATUS, PathStatus
from cqlindex.filters.sequences.path_walk import Walk, has_effects, memo_allowed
from cqlindex.store.trees import GameTree, Position


@evaluates(ast.Path)
def path(ev: Evaluator, node: ast.Path, pos: Position) -> object:
    banned = _banned(ev, node) if "nestban" in node.params else None
    if banned is not None and pos.id in banned:
        return None
    if not may_match(ev, node, pos) or not first_move_played(ev, node, pos):
        return None  # a move every walk makes is made nowhere below (or not played here first)
    focus = None
    if node.focus is not None or "singlecolor" in node.params:
        focus = Focus(ev, node, pos)
        if ev.fact("path starts with a move", node, _starts_with_move) and not focus.children(pos):
            return None  # the first move must be a focused move played here: none is
    walk = Walk(ev, node, pos, not _effects(ev, node), focus, _memo(ev, node))
    walks = getattr(ev, ACTIVE, None)
    if walks is None:
        walks = []
        setattr(ev, ACTIVE, walks)
    walks.append(walk)
    try:
        walk.run()
    finally:
        walks.pop()
    if walk.best is None:
        return None
    length, last, best_max = walk.best
    value = length if node.max is None else best_max
    if node.low is not None and not (node.low <= value <= node.high):
        return None
    ev.memo[STATUS] = PathStatus(pos, last, length)
    if banned is not None:
        current = last
        while current.id != pos.id:
            current = ev.tree.positions[current.parent]
            banned.add(current.id)
    return last if "lastposition" in node.params else value


def _starts_with_move(node: ast.Path) -> bool:
    """Whether every walk of ``node`` begins with a move (nothing is tested before it)."""
    return leading_move(node) is not None


def _memo(ev: Evaluator, node: ast.Path) -> bool:
    return ev.fact("path memo", node, memo_allowed)


def _effects(ev: Evaluator, node: ast.Path) -> bool:
    return ev.fact("path effects", node, has_effects)


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
