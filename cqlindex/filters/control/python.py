"""``try`` and ``loop`` in the evaluator.

``try`` is CQL's abbreviation of ``1 == find <-- quiet all {btm secondary}``: among the current
position and its ancestors, exactly one is reached by a white move that is not the first
continuation of its parent (a white move off the main line of that point: a try in a study).
Counted here directly by walking the parent links, so it does not depend on how ``find`` or
``secondary`` are run.

``loop F`` evaluates F until it fails and matches when F matched at least once, as the
reference manual says; the query's deadline is checked on every round, since a loop whose body
never fails would otherwise never end.
"""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.evaluate.context import Evaluator, evaluates
from cqlindex.evaluate.values import MATCH
from cqlindex.store.trees import Position


def white_tries_on_the_way(ev: Evaluator, pos: Position) -> int:
    """How many of ``pos`` and its ancestors are reached by a white move that is not primary."""
    positions = ev.tree.positions
    tries = 0
    current: Position | None = pos
    while current is not None and current.parent is not None:
        parent = positions[current.parent]
        if not current.wtm and parent.children and parent.children[0] != current.id:
            tries += 1
        current = parent
    return tries


@evaluates(ast.Control)
def control(ev: Evaluator, node: ast.Control, pos: Position) -> object:
    if node.name == "try":
        return MATCH if white_tries_on_the_way(ev, pos) == 1 else None
    if node.name == "loop":
        matched = False
        while ev.test(node.args[0], pos):
            matched = True
            if ev.deadline is not None:
                ev.deadline.check()
        return MATCH if matched else None
    raise ev.unsupported(f"'{node.name}'", node)
