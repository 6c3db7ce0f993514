"""Sequencing, boolean logic, comparisons, numbers, strings and arithmetic."""

from __future__ import annotations

import math
import operator

from cqlindex.cql import ast
from cqlindex.evaluate.context import Evaluator, decides, evaluates
from cqlindex.evaluate.values import MATCH, Squares, count, truncated_division
from cqlindex.filters.sets.python import set_binary
from cqlindex.store.trees import Position


@evaluates(ast.Compound)
def compound(ev: Evaluator, node: ast.Compound, pos: Position) -> object:
    """Every member must match; the value is the last one's (of the others only whether they match)."""
    items = node.items
    if not items:
        return MATCH
    for item in items[:-1]:
        if not ev.test(item, pos):
            return None
    value = ev.eval(items[-1], pos)
    return None if value is None or (type(value) is Squares and not value) else value


@decides(ast.Compound)
def compound_matches(ev: Evaluator, node: ast.Compound, pos: Position) -> bool:
    """Where only whether it matches is asked, so is it of every member (the last one included)."""
    for item in node.items:
        if not ev.test(item, pos):
            return False
    return True


@evaluates(ast.And)
def conjunction(ev: Evaluator, node: ast.And, pos: Position) -> object:
    for item in node.items:
        if not ev.test(item, pos):
            return None
    return MATCH


@evaluates(ast.Or)
def disjunction(ev: Evaluator, node: ast.Or, pos: Position) -> object:
    for item in node.items:
        if ev.test(item, pos):
            return MATCH
    return None


@evaluates(ast.Not)
def negation(ev: Evaluator, node: ast.Not, pos: Position) -> object:
    return None if ev.test(node.arg, pos) else MATCH


@evaluates(ast.If)
def conditional(ev: Evaluator, node: ast.If, pos: Position) -> object:
    if ev.test(node.cond, pos):
        return ev.eval(node.then, pos)
    return ev.eval(node.other, pos) if node.other is not None else MATCH


@evaluates(ast.Number)
def number(ev: Evaluator, node: ast.Number, pos: Position) -> object:
    return node.value


@evaluates(ast.String)
def string(ev: Evaluator, node: ast.String, pos: Position) -> object:
    return node.value


#: Each comparison operator; CQL 6.2's [<] [>] [<=] [>=] compare as < > <= >= do.
_COMPARE = {op: fn for ops, fn in (("<", operator.lt), ("<=", operator.le), ("==", operator.eq), (">=", operator.ge),
                                   (">", operator.gt), ("!=", operator.ne)) for op in (ops, f"[{ops}]")}


def _holds(op: str, left: object, right: object) -> bool:
    if type(left) is int and type(right) is int:  # the common case, first
        return _COMPARE[op](left, right)
    if type(left) is Squares and type(right) is int:  # then a set's size against a number
        return _COMPARE[op](int.bit_count(left), right)
    op = op.strip("[]")
    if isinstance(left, Squares) and isinstance(right, Squares):
        return (int(left) == int(right)) == (op == "==")
    if isinstance(left, Position) or isinstance(right, Position):
        same = isinstance(left, Position) and isinstance(right, Position) and left.id == right.id
        if op in ("==", "!="):
            return same == (op == "==")
        if not (isinstance(left, Position) and isinstance(right, Position)):
            return False
        a, b = left.id, right.id
    elif isinstance(left, str) or isinstance(right, str):
        if not (isinstance(left, str) and isinstance(right, str)):
            return False
        a, b = left, right  # type: ignore[assignment]
    else:
        a, b = count(left), count(right)  # type: ignore[assignment]
        if a is None or b is None:
            return False
    return _COMPARE[op](a, b)


@evaluates(ast.Compare)
def comparison(ev: Evaluator, node: ast.Compare, pos: Position) -> object:
    if len(node.ops) == 1:  # most comparisons: no list of values
        left = ev.eval(node.operands[0], pos)
        if left is None:
            return None
        right = ev.eval(node.operands[1], pos)
        if right is None:
            return None
        return MATCH if _holds(node.ops[0], left, right) else None
    values = []
    for operand in node.operands:
        value = ev.eval(operand, pos)
        if value is None:
            return None
        values.append(value)
    if len(values) > 2 and any(type(v) is int for v in values):
        # In a chain with a number, sets stand for their sizes: the reference reads
        # 'Q == q == 2' as 'Q == 2 and q == 2', not as a set equality.
        values = [count(v) if type(v) is Squares else v for v in values]
    for op, left, right in zip(node.ops, values, values[1:]):
        if not _holds(op, left, right):
            return None
    return MATCH


@evaluates(ast.Binary)
def binary(ev: Evaluator, node: ast.Binary, pos: Position) -> object:
    if node.op in ("|", "&", "attacks", "attackedby", "in"):
        return set_binary(ev, node, pos)
    if node.op == "~~":
        from cqlindex.filters.strings.python import regex_match

        return regex_match(ev, node, pos)
    values = ev.operands(node.left, node.right, pos)
    if values is None:
        return None
    left, right = values
    if node.op == "+" and isinstance(left, str) and isinstance(right, str):
        return left + right
    a, b = count(left), count(right)
    if a is None or b is None:
        return None
    if node.op == "+":
        return a + b
    if node.op == "-":
        return a - b
    if node.op == "*":
        return a * b
    if b == 0:
        return None  # CQL: division by zero does not match
    quotient, remainder = truncated_division(a, b)
    return quotient if node.op == "/" else remainder


@evaluates(ast.Unary)
def unary(ev: Evaluator, node: ast.Unary, pos: Position) -> object:
    from cqlindex.filters.sets.python import set_unary

    if node.op in ("~", "#", "light", "dark", "rank", "file", "power", "type", "colortype"):
        return set_unary(ev, node, pos)
    value = ev.eval(node.arg, pos)
    n = count(value)
    if n is None:
        return None
    if node.op == "-":
        return -n
    if node.op == "abs":
        return abs(n)
    if node.op == "sqrt":
        return math.isqrt(n) if n >= 0 else None
    raise ev.unsupported(f"'{node.op}'", node)


@evaluates(ast.Call)
def call(ev: Evaluator, node: ast.Call, pos: Position) -> object:
    handler = _CALL_HANDLERS.get(node.name)
    if handler is None:
        handler = _CALL_HANDLERS[node.name] = _call_handler(node.name)
    return handler(ev, node, pos)


def _extreme(ev: Evaluator, node: ast.Call, pos: Position) -> object:
    values = []
    for arg in node.args:
        value = count(ev.eval(arg, pos))
        if value is None:
            return None
        values.append(value)
    return max(values) if node.name == "max" else min(values)


#: Each named helper's evaluator, found once (the families are imported when first asked for:
#: they import this module's neighbours).
_CALL_HANDLERS: dict = {"max": _extreme, "min": _extreme}


def _call_handler(name: str):
    from cqlindex.filters.position.python import tree_call
    from cqlindex.filters.sets.python import set_call
    from cqlindex.filters.strings.python import CALLS

    if name in CALLS:
        return CALLS[name]
    if name in ("between", "makesquare"):
        return set_call
    if name == "currentmove":
        from cqlindex.filters.moves.python import currentmove

        return currentmove
    if name == "unbind":
        from cqlindex.filters.variables.python import unbind

        return unbind
    if name in ("isbound", "isunbound"):
        from cqlindex.filters.variables.python import binding_test

        return binding_test
    return tree_call
