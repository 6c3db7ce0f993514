"""CQL 5's game-tree parameters of ``relation``: where source and target sit in the game tree.

Not in seed 001; their meaning is CQL 5.2's (the engine reference/relation.md was read from).
Source s and target t meet at their lowest common ancestor L (with no variations both lie on
the main line, so L is the earlier of the two). ``sd`` is the number of moves from L down to s,
``td`` from L down to t, and each parameter holds one number to its range:

* ``(lcasource R)``: sd; ``(lcatarget R)``: td; ``(lcamax R)``: max(sd, td); ``(lcasum R)``:
  sd + td, the length of the path from s to t;
* ``(ancestor)`` is ``(lcatarget 0)``: t is L, an ancestor of s; ``(descendant)`` is
  ``(lcasource 0)``: s is L, t lies below it;
* ``(lcasubstring R)``: the length of the longest run of consecutive moves played on both
  branches below L, the moves compared as (moving piece with its colour, from, to), so a
  promotion is the pawn's move whatever it becomes. Both branches must have a move (neither
  position is an ancestor of the other) and the run must be in R, whose minimum the parser
  keeps at 1 or more. CQL 5.2 stops the run where a null move lies on a branch it compares
  (a pass has no moving piece); so does this evaluator.
"""

from __future__ import annotations

import numpy as np

from cqlindex.cql import ast
from cqlindex.errors import CqlError
from cqlindex.evaluate.context import Evaluator
from cqlindex.store.trees import Position

#: (ancestor) and (descendant): the number parameter and the range each stands for.
_SAME_AS = {"ancestor": ("lcatarget", (0, 0)), "descendant": ("lcasource", (0, 0))}


class Lineage:
    """Per game tree: each position's distance from the root, last descendant (pre-order ids),
    children, and the move that led to it as a number (piece and colour, from, to; a null move,
    which CQL 5 cannot read, a number of its own that equals no other)."""

    __slots__ = ("children", "height", "last", "moves", "null", "parent")

    def __init__(self, positions: list[Position]) -> None:
        self.parent = [p.parent for p in positions]
        self.children = [p.children for p in positions]
        self.last = np.array([p.last_descendant for p in positions], dtype=np.int64)
        height = np.zeros(len(positions), dtype=np.int64)
        moves = np.zeros(len(positions), dtype=np.int64)
        self.null = np.zeros(len(positions), dtype=bool)
        for p in positions:  # pre-order: a parent comes before its children
            if p.parent is None:
                continue
            height[p.id] = height[p.parent] + 1
            if p.null_move or p.move_from is None:
                self.null[p.id] = True
                moves[p.id] = -1 - p.id
            else:
                moves[p.id] = ((p.move_piece * 2 + (not p.wtm)) * 64 + p.move_from) * 64 + p.move_to
        self.height, self.moves = height, moves

    def chain(self, here: int) -> np.ndarray:
        """The ids from the root down to ``here``."""
        ids = [here]
        while self.parent[ids[-1]] is not None:
            ids.append(self.parent[ids[-1]])
        return np.array(ids[::-1], dtype=np.int64)


def tree_holds(ev: Evaluator, param: ast.RelationParam, here: int, targets: np.ndarray) -> np.ndarray:
    """For each of ``targets``, whether the game-tree parameter ``param`` holds with source ``here``."""
    lineage = ev.memo.get(Lineage)
    if lineage is None:
        lineage = ev.memo[Lineage] = Lineage(ev.tree.positions)
    chain = lineage.chain(here)
    word, (low, high) = _SAME_AS.get(param.lca, (param.lca, param.lca_range))
    if word == "lcasubstring":
        runs = _longest_runs(ev, param, lineage, chain, targets)
        return (low <= runs) & (runs <= high)
    # The ancestors of the source are nested intervals of pre-order ids: a target lies in a prefix
    # of them, and the last of that prefix is the lowest common ancestor.
    inside = (chain[:, None] <= targets[None, :]) & (targets[None, :] <= lineage.last[chain][:, None])
    lca = chain[inside.sum(axis=0) - 1]
    sd = lineage.height[here] - lineage.height[lca]
    td = lineage.height[targets] - lineage.height[lca]
    value = {"lcasource": sd, "lcatarget": td, "lcamax": np.maximum(sd, td), "lcasum": sd + td}[word]
    return (low <= value) & (value <= high)


def _longest_runs(ev: Evaluator, param: ast.RelationParam, lineage: Lineage, chain: np.ndarray,
                  targets: np.ndarray) -> np.ndarray:
    """For each target, the longest run of moves common to the branches below its lowest common
    ancestor with the source (0 where one branch has no move: an ancestor or a descendant).

    The targets that meet the source at its ancestor chain[k] lie below the other children of
    chain[k]; going down those subtrees in pre-order, each position's row of run lengths against
    the source's branch (the moves into chain[k+1:]) follows from its parent's row, one move
    longer: the common-substring recurrence spread over the tree instead of over one sequence.
    """
    runs = np.zeros(targets.size, dtype=np.int64)
    where = {int(t): i for i, t in enumerate(targets)}
    for k in range(chain.size - 1):
        branch = lineage.moves[chain[k + 1:]]
        branch_null = bool(lineage.null[chain[k + 1:]].any())
        for child in lineage.children[int(chain[k])]:
            if child == chain[k + 1]:
                continue
            end = int(lineage.last[child])
            if not np.any((targets >= child) & (targets <= end)):
                continue
            rows = {int(chain[k]): (np.zeros(branch.size, dtype=np.int64), 0, False)}
            for node in range(child, end + 1):
                above, best, null = rows[lineage.parent[node]]
                row = np.zeros_like(above)
                row[0] = branch[0] == lineage.moves[node]
                row[1:] = np.where(branch[1:] == lineage.moves[node], above[:-1] + 1, 0)
                rows[node] = row, max(best, int(row.max())), null or bool(lineage.null[node])
                if node in where:
                    if branch_null or rows[node][2]:
                        raise CqlError("'lcasubstring' met a null move on the branches it compares: CQL 5 "
                                       "stops the run here", ev.query.text, param.span, ev.query.source)
                    runs[where[node]] = rows[node][1]
    return runs
