"""What kind of value a filter has (set, number, position, string, logical), known at parse time.

CQL rejects some combinations when it parses, not when it runs (``#`` of a logical filter,
a set compared with ``<`` to a set, a logical filter in a comparison); the parser asks this
module, so the rules sit in one place.
"""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.filters import catalogue
from cqlindex.filters.spec import ANY, LOGICAL, NUMBER, POSITION, SET, STRING  # noqa: F401  (re-exported)

_STRING_TAGS = frozenset(d.name for d in catalogue.declarations()
                         if d.node is ast.GameFilter and d.kind != NUMBER and d.name != "result")
#: Operators written with symbols; the named one-argument filters' kinds are in the catalogue.
_UNARY_KINDS = {"-": NUMBER, "#": NUMBER, "~": SET}


def kind_of(node: ast.Node, variables: dict[str, str] | None = None) -> str:
    """The kind of value ``node`` has, or ANY when it depends on what runs."""
    if isinstance(node, (ast.Pieces, ast.Direction, ast.Pin, ast.Ray)):
        return SET
    if isinstance(node, ast.Number):
        return NUMBER
    if isinstance(node, (ast.String, ast.Index)):
        return STRING
    if isinstance(node, ast.Capture):
        return NUMBER if node.index else STRING
    if isinstance(node, ast.Keyword):
        return catalogue.keyword_kind(ast.Keyword, node.name) or ANY
    if isinstance(node, ast.Unary):
        return _UNARY_KINDS.get(node.op) or catalogue.keyword_kind(ast.Unary, node.op) or ANY
    if isinstance(node, ast.Binary):
        if node.op == "~~":
            return STRING
        if node.op in ("|", "&", "attacks", "attackedby"):
            return SET  # position & position is a set too: the squares with the same contents
        if node.op == "in":
            return LOGICAL
        if node.op != "+":
            return NUMBER
        return STRING if any(kind_of(o, variables) == STRING for o in _sum_operands(node)) else NUMBER
    if isinstance(node, ast.Echo):
        return NUMBER if kind_of(node.body, variables) == NUMBER else LOGICAL
    if isinstance(node, ast.CurrentTransform):
        return STRING
    if isinstance(node, ast.CountMoves):
        return NUMBER
    if isinstance(node, ast.HHdb):  # a rank, a part of the GBR code, or a flag
        return NUMBER if node.item in ("award", "commendation", "hm", "prize") else \
            STRING if node.item.startswith("gbr") else LOGICAL
    if isinstance(node, ast.Dash) and node.mode != "played":
        return SET  # the reference accepts 'legal -- & legal --' and 'legal -- == 3'
    if isinstance(node, ast.Dash) and node.target:
        return kind_of(node.target[-1], variables)
    if isinstance(node, ast.GameFilter) and node.name in ("year", "elo") and not any(
            isinstance(a, ast.String) for a in node.args):
        return NUMBER
    if isinstance(node, ast.GameFilter) and node.name in _STRING_TAGS and not any(
            isinstance(a, ast.String) for a in node.args):
        return STRING  # 'event', 'player white', 'fen': the text itself
    if isinstance(node, (ast.Not, ast.And, ast.Or, ast.Compare, ast.GameFilter, ast.Output, ast.Echo, ast.Dash,
                         ast.Relation, ast.SimilarPosition)):
        return LOGICAL
    if isinstance(node, ast.Call) and node.name == "currentmove":
        return kind_of(node.args[0], variables)  # the dash's own value, read at the move that led here
    if isinstance(node, ast.Call):
        return catalogue.keyword_kind(ast.Call, node.name) or ANY
    if isinstance(node, ast.ChildN):
        return POSITION
    if isinstance(node, ast.Colon):
        return kind_of(node.body, variables)
    if isinstance(node, ast.Compound):
        return kind_of(node.items[-1], variables) if node.items else LOGICAL
    if isinstance(node, ast.Transform):
        return NUMBER if node.count or node.low is not None else kind_of(node.arg, variables)
    if isinstance(node, ast.Move):
        if any(name == "count" for name, _ in node.params):
            return NUMBER
        first = node.params[0][0] if node.params else None
        return SET if first in ("from", "to", "capture") else LOGICAL
    if isinstance(node, ast.Find):
        return NUMBER if node.all or node.low is not None else POSITION  # a range makes a count
    if isinstance(node, ast.Line):
        return POSITION if "lastposition" in node.params else NUMBER
    if isinstance(node, (ast.Path, ast.ConsecutiveMoves)):
        return NUMBER
    if isinstance(node, ast.Iterate):
        return LOGICAL if node.all else SET
    if isinstance(node, ast.Sort):
        return kind_of(node.body, variables)
    if isinstance(node, ast.Variable):
        return (variables or {}).get(node.name, ANY)
    if isinstance(node, ast.Subscript):
        return node.kind
    if isinstance(node, (ast.Assign, ast.Lasting, ast.Control, ast.Dictionary, ast.SubscriptAssign)):
        return LOGICAL
    if isinstance(node, ast.If):  # a value only when both branches have one, of one kind
        kinds = {kind_of(node.then, variables), kind_of(node.other, variables) if node.other else LOGICAL} - {ANY}
        return kinds.pop() if len(kinds) == 1 else ANY if not kinds else LOGICAL
    return ANY


def comparison_kind(op: str, left: str, right: str) -> str:
    """The kind of value of a comparison ``left op right`` of values of those kinds: the
    reference gives it its left side's value, a number when a set is compared with a number,
    and none (LOGICAL) for a '!=' or two sets compared (``x = (#A == 1)`` is a number,
    ``x = (A == a)`` nothing)."""
    kinds = {left, right}
    if kinds == {SET} or op == "!=":
        return LOGICAL
    return next((k for k in (ANY, NUMBER, STRING, POSITION) if k in kinds), ANY)


def compared_value_kind(node: ast.Node, variables: dict[str, str] | None = None) -> str:
    """:func:`kind_of`, but a comparison has the value :func:`comparison_kind` gives it, also as
    the argument of a transform or a sort, the last filter of a list or the body of a ':'
    (``- flipcolor (A >= 4)`` negates a count). Kept apart from kind_of because cqlindex runs a
    comparison only as a filter: the parser refuses its value as not run yet."""
    while isinstance(node, (ast.Transform, ast.Sort, ast.Compound, ast.Colon)):
        if isinstance(node, ast.Transform) and (node.count or node.low is not None) or (
                isinstance(node, ast.Compound) and not node.items):
            return kind_of(node, variables)
        node = node.arg if isinstance(node, ast.Transform) else node.items[-1] if isinstance(
            node, ast.Compound) else node.body
    if not isinstance(node, ast.Compare):
        return kind_of(node, variables)
    kind = kind_of(node.operands[-1], variables)
    for op, left in zip(reversed(node.ops), reversed(node.operands[:-1])):
        kind = comparison_kind(op.strip("[]"), kind_of(left, variables), kind)  # read from the right
    return kind


def _sum_operands(node: ast.Binary) -> list[ast.Node]:
    """The operands of a chain of '+' (``a + b + c``), gathered without recursion: a chain may be long."""
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Binary) and current.op == "+":
            stack += (current.right, current.left)
        else:
            out.append(current)
    return out
