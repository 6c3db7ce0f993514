"""Transform filters, evaluated through their members as the seeds define them.

``T F`` is the union (sets), maximum (numbers) or disjunction of F rewritten by each basic
transform of T; ``T count F`` counts the members that match, and ``T m n F`` (a range after
the name) is that count when it lies in the range. The rewriting itself lives in
:mod:`cqlindex.query.rewrite`, done once per query and shared with the planner.
"""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.evaluate.context import Evaluator, evaluates
from cqlindex.evaluate.values import MATCH, Squares, count
from cqlindex.store.trees import Position

@evaluates(ast.Transform)
def transform(ev: Evaluator, node: ast.Transform, pos: Position) -> object:
    values = [ev.eval(member, pos) for member in ev.expansions(node)]
    matched = [v for v in values if v is not None and not (type(v) is Squares and not v)]
    if node.low is not None:  # 'T m n F' (seed 000): how many members match, within the range
        low, high = (count(ev.eval(b, pos)) if isinstance(b, ast.Node) else b for b in (node.low, node.high))
        if low is None or high is None:
            return None  # a bound held in a variable without a value
        return len(matched) if low <= len(matched) <= high else None
    if node.count:
        return len(matched)
    if not matched:
        sets = [v for v in values if type(v) is Squares]
        return Squares(0) if sets and len(sets) == len(values) else None
    if all(isinstance(v, Squares) for v in matched):
        out = 0
        for v in matched:
            out |= int(v)
        return Squares(out)
    numbers = [count(v) for v in matched]
    if all(isinstance(v, int) and not isinstance(v, Squares) for v in matched):
        return max(n for n in numbers if n is not None)
    return matched[0] if len(matched) == 1 and not isinstance(matched[0], int) else MATCH


@evaluates(ast.CurrentTransform)
def current_transform(ev: Evaluator, node: ast.CurrentTransform, pos: Position) -> object:
    """The manual's string: the transforms acting on this copy of the filter between angle
    brackets, outermost first ('<>' outside every transform, '<reflect_v>' under flipvertical)."""
    return "<" + " ".join(node.applied) + ">"
