"""Values asked only whether they match: the slips CQL 6.2 refuses.

A number, a string or a position variable always "matches", so when one stands where a filter is
only tested (an item of a ``{...}`` list that is not its value, a whole body, an operand of
``or``/``and``/``not``, the branches of an ``if`` so tested) it can only be a mistake: a ``sort``
or a comparison operator dropped, two lines run together (``check 1``, ``"label" sort x``).
The reference engine refuses such a query, saying so, and cqlindex does the same with a caret.

A list's last item is its value, and a value may be anything: ``{check 1}`` is a number, and
``x = {check "a"}`` a string; so is the last operand of ``and`` (``check and 2`` runs, ``check
or 2`` does not), as the reference has it. :func:`idle_value` finds the first misplaced value, or None.
"""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.cql.kinds import NUMBER, POSITION, STRING, kind_of

#: String functions whose only use is their value (the reference: "invoked for whether it matches").
_VALUE_CALLS = frozenset({"str", "typename", "piecename", "readfile"})


def _idle(node: ast.Node, variables: dict[str, str]) -> str | None:
    """What ``node`` is when it is a value that always matches, else None."""
    if isinstance(node, ast.Number) or (isinstance(node, ast.Unary) and node.op == "-"
                                        and isinstance(node.arg, ast.Number)):
        return "a number"
    if isinstance(node, ast.String):
        return "a string"
    if isinstance(node, ast.Variable) and variables.get(node.name) in (NUMBER, STRING, POSITION):
        return {NUMBER: "a number", STRING: "a string", POSITION: "a position"}[variables[node.name]] + " variable"
    if isinstance(node, ast.Call) and node.name in _VALUE_CALLS:
        return f"the string of '{node.name}'"
    if isinstance(node, ast.Binary) and node.op == "+" and kind_of(node, variables) == STRING:
        return "a string made with '+'"
    if isinstance(node, ast.GameFilter) and node.name == "fen" and not node.args:
        return "the current FEN"
    return None


def idle_value(body: ast.Compound) -> tuple[ast.Node, str] | None:
    """The first value in ``body`` only tested for a match, and what it is; None if there is none."""
    return _visit(body, True, _variable_kinds(body))


def _variable_kinds(body: ast.Compound) -> dict[str, str]:
    """The kind of each variable the query assigns (its first assignment's), for :func:`_idle`."""
    kinds: dict[str, str] = {}
    for node in ast.walk(body):
        if isinstance(node, ast.Assign) and not node.piece and node.name not in kinds:
            kinds[node.name] = kind_of(node.value, kinds)
    return kinds


def _visit(node: ast.Node, tested: bool, variables: dict[str, str]) -> tuple[ast.Node, str] | None:
    if tested:
        what = _idle(node, variables)
        if what:
            return node, what
    if isinstance(node, (ast.Compound, ast.And)):
        last = len(node.items) - 1
        for i, item in enumerate(node.items):
            if i and isinstance(node.items[i - 1], ast.Compare) and isinstance(item, ast.Number):
                continue  # 'A==2 2': the reference reads the number with the comparison
            found = _visit(item, tested if last == 0 else i < last, variables)
            if found:
                return found
        return None
    if isinstance(node, ast.Or):
        parts = [(item, tested) for item in node.items]
    elif isinstance(node, ast.Not):
        parts = [(node.arg, tested)]
    elif isinstance(node, ast.If):
        parts = [(node.cond, True), (node.then, tested)] + ([(node.other, tested)] if node.other else [])
    else:
        parts = [(child, False) for child in _children(node)]
    for child, child_tested in parts:
        found = _visit(child, child_tested, variables)
        if found:
            return found
    return None


def _children(node: ast.Node):
    for name in node.__dataclass_fields__:
        if name == "span":
            continue
        value = getattr(node, name)
        if isinstance(value, ast.Node):
            yield value
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, ast.Node):
                    yield item
                elif isinstance(item, tuple):
                    yield from (x for x in item if isinstance(x, ast.Node))
