"""Bounds on what a query may ask for, so that no input crashes, overflows or hangs cqlindex.

Every stage after the lexer (parser, kind checks, transform rewriting, the SQL compiler,
sqlglot, DuckDB's own parser, the evaluator) walks the AST recursively, so the AST's depth
must be bounded well inside Python's recursion limit, and the parser must stop before its own
recursion gets there. Real queries nest at most about a dozen levels (the 90 example files, the
visible queries and the parse cases: 11 at most), so the limits below leave ample room.

Long chains of one associative operator (``1 + 1 + ... + 1``, ``K | Q | ...``) are not deep
nesting but a parser artefact: each is regrouped into a balanced tree (depth log2 of its
length), which evaluates its operands in the same order with the same result. A run of
``not`` is shortened (``not not not F`` is ``not F``: ``not`` yields a bare match, whatever F's
value). For the engines, :func:`simplify` also folds numbers and keeps a repeated filter
without side effects once (the last one, whose value a compound takes): ``K K ... K`` is ``K``.

Every refusal is a :class:`CqlSyntaxError` located at the construct and saying the limit.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import fields, replace
from typing import TypeVar

from cqlindex.cql import ast
from cqlindex.cql.kinds import SET, kind_of
from cqlindex.errors import CqlSyntaxError

#: Deepest AST allowed (nodes on one path from the body down; the real queries reach 11).
MAX_DEPTH = 24
#: How many nested calls of the parser's recursive methods it allows before refusing: each
#: brace or parenthesis level costs about six of them, each prefix operator (not, -, ~) one.
MAX_PARSER_NESTING = 6 * MAX_DEPTH
#: Largest product of the member counts of nested transforms (flip: 8, flipcolor: 2, shift:
#: 225). Every nest of different transforms fits (``flipcolor flip shift F``: 3,600; the
#: command line's ``-flip -shift`` makes 1,800), while repeating one past use does not:
#: ``flip flip flip F`` (512) runs, ``flip flip flip flip F`` (4,096, minutes of work) is refused.
MAX_TRANSFORM_MEMBERS = 3600
#: Numbers are 64-bit signed, as in the reference engine and in DuckDB's BIGINT.
MAX_NUMBER = 2**63 - 1
#: Operators whose chains are regrouped: associative on every value they take.
ASSOCIATIVE = frozenset({"+", "*", "|", "&"})
#: Nodes with an effect beyond their value: never dropped as repeats.
_EFFECTS = (ast.Assign, ast.Iterate, ast.Output, ast.Sort, ast.Echo, ast.Lasting, ast.Control, ast.Dictionary,
            ast.SubscriptAssign)

_F = TypeVar("_F", bound=Callable)


def nested(method: _F) -> _F:
    """Decorate a recursive parser method: refuse input nested deeper than the parser may go.

    The parser counts its active recursive calls in ``self.nesting``; past
    :data:`MAX_PARSER_NESTING` it stops with a located error instead of exhausting the stack.
    """

    @functools.wraps(method)
    def counted(self, *args, **kwargs):
        depth = getattr(self, "nesting", 0) + 1
        if depth > MAX_PARSER_NESTING:
            raise too_deep(self.text, self.peek().span, self.source)
        self.nesting = depth
        try:
            return method(self, *args, **kwargs)
        finally:
            self.nesting = depth - 1

    return counted  # type: ignore[return-value]


def too_deep(text: str, span, source: str) -> CqlSyntaxError:
    return CqlSyntaxError(f"nested too deeply (at most {MAX_DEPTH} levels of filters inside filters)", text,
                          span, source)


def check_number(text: str, digits: str, span, source: str) -> int:
    """The value of a numeric literal; refused when it does not fit in 64 bits."""
    value = int(digits)
    if value > MAX_NUMBER:
        raise CqlSyntaxError(f"number too large: {digits[:30]}{'…' if len(digits) > 30 else ''} "
                             f"(numbers are 64-bit, at most {MAX_NUMBER})", text, span, source)
    return value


def enforce(query: ast.Query) -> ast.Query:
    """``query`` with its long chains regrouped, checked against every limit (the parser's last step)."""
    query = replace(query, body=normalize(query.body, simplify=False))
    _check_depth(query)  # before anything compares or hashes nodes, which recurses
    _check_transforms(query)
    return query


def simplify(query: ast.Query) -> ast.Query:
    """What the engines run: ``query`` (from :func:`enforce`) with numbers folded (``1 + 1`` is
    ``2``) and pure repeated filters and set operands kept once.

    Kept apart from parsing so that the parsed AST shows what was written."""
    return replace(query, body=normalize(query.body, simplify=True))


# -- regrouping ------------------------------------------------------------------------------

def normalize(root: ast.Node, *, simplify: bool) -> ast.Node:
    """Rebuild ``root`` bottom-up without recursion: chains balanced, and with ``simplify`` the
    rewrites of :func:`simplify` (dropping repeats compares nodes: only once the depth is bounded)."""
    # Links inside a chain are rebuilt as they are; the chain's top node gathers and balances
    # them all at once (balancing at every link would cost the square of the chain's length).
    interior = {id(side) for node in _iter_nodes(root) if isinstance(node, ast.Binary) and node.op in ASSOCIATIVE
                for side in (node.left, node.right) if isinstance(side, ast.Binary) and side.op == node.op}
    done: dict[int, object] = {}
    stack: list[tuple[object, bool]] = [(root, False)]
    while stack:
        value, ready = stack.pop()
        children = _children(value)
        if not ready:
            stack.append((value, True))
            stack.extend((child, False) for child in children if id(child) not in done)
            continue
        done[id(value)] = _rebuild(value, done, id(value) in interior, simplify)
    return done[id(root)]  # type: ignore[return-value]


def _children(value: object) -> list[object]:
    if isinstance(value, ast.Node):
        return [getattr(value, f.name) for f in fields(value) if f.name != "span"]
    if isinstance(value, (tuple, list)):
        return list(value)
    return []


def _rebuild(value: object, done: dict[int, object], interior: bool, simplify: bool) -> object:
    if isinstance(value, tuple):
        return tuple(done.get(id(v), v) for v in value)
    if not isinstance(value, ast.Node):
        return value
    changes = {f.name: done[id(getattr(value, f.name))] for f in fields(value)
               if f.name != "span" and id(getattr(value, f.name)) in done
               and done[id(getattr(value, f.name))] is not getattr(value, f.name)}
    node = replace(value, **changes) if changes else value
    if simplify and isinstance(node, ast.Binary) and isinstance(node.left, ast.Number) and isinstance(
            node.right, ast.Number):
        folded = _fold(node)
        if folded is not None:
            return folded
    if isinstance(node, ast.Binary) and node.op in ASSOCIATIVE and not interior:
        return _balance(node, simplify)
    if isinstance(node, ast.Not) and isinstance(node.arg, ast.Not) and isinstance(node.arg.arg, ast.Not):
        return replace(node, arg=node.arg.arg.arg)  # 'not not not F' is 'not F': 'not' yields a bare match
    if simplify and isinstance(node, (ast.Compound, ast.And)) and len(node.items) > 1:
        items = _without_repeats(node.items)
        if len(items) != len(node.items):
            return replace(node, items=items)
    return node


def _fold(node: ast.Binary) -> ast.Node | None:
    """``2 + 3`` as ``5`` (``+ - *`` of two numbers), unless the result leaves 64 bits."""
    a, b = node.left.value, node.right.value
    value = {"+": a + b, "-": a - b, "*": a * b}.get(node.op)
    if value is None or not -MAX_NUMBER - 1 <= value <= MAX_NUMBER:
        return None
    return ast.Number(node.span, value)


def _balance(node: ast.Binary, dedupe: bool) -> ast.Node:
    """A chain ``a op b op c ...`` (left- or right-leaning) as a balanced tree; with ``dedupe``,
    a set operand repeated in a ``|`` or ``&`` chain kept once (both are idempotent)."""
    operands: list[ast.Node] = []
    stack: list[ast.Node] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Binary) and current.op == node.op:
            stack.append(current.right)
            stack.append(current.left)
        else:
            operands.append(current)
    if node.op == "&" and any(kind_of(o) != SET for o in operands):
        return node  # '&' of two positions is a set: regrouping would change what meets what
    count = len(operands)
    if dedupe and node.op in ("|", "&"):
        operands = _first_of_repeats(operands)
    if len(operands) <= 3 and len(operands) == count:
        return node

    def build(lo: int, hi: int) -> ast.Node:
        if hi - lo == 1:
            return operands[lo]
        mid = (lo + hi) // 2
        left, right = build(lo, mid), build(mid, hi)
        return ast.Binary(left.span.to(right.span), node.op, left, right)

    return build(0, len(operands))


def _without_repeats(items: tuple[ast.Node, ...]) -> tuple[ast.Node, ...]:
    """``items`` without an item that recurs later unchanged and has no effect but its value."""
    later: set[ast.Node] = set()
    kept: list[ast.Node] = []
    for item in reversed(items):
        try:
            repeat = item in later
            later.add(item)
        except TypeError:  # a node holding something unhashable: keep it
            repeat = False
        if repeat and _pure(item):
            continue
        kept.append(item)
    return tuple(reversed(kept))


def _first_of_repeats(operands: list[ast.Node]) -> list[ast.Node]:
    seen: set[ast.Node] = set()
    kept: list[ast.Node] = []
    for operand in operands:
        try:
            repeat = operand in seen
            seen.add(operand)
        except TypeError:
            repeat = False
        if not (repeat and _pure(operand)):
            kept.append(operand)
    return kept


def _pure(node: ast.Node) -> bool:
    return not any(isinstance(n, _EFFECTS) for n in _iter_nodes(node))


def _iter_nodes(root: object):
    stack = [root]
    while stack:
        value = stack.pop()
        if isinstance(value, ast.Node):
            yield value
        stack.extend(_children(value))


# -- checks ----------------------------------------------------------------------------------

def _check_depth(query: ast.Query) -> None:
    stack: list[tuple[object, int]] = [(query.body, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, ast.Node):
            depth += 1
            if depth > MAX_DEPTH:
                raise too_deep(query.text, value.span, query.source)
        stack.extend((child, depth) for child in _children(value))


#: How many basic transforms each transform filter stands for (query/rewrite.py's members;
#: tests/test_cql_limits.py holds the two to each other): the factor it multiplies work by.
TRANSFORM_MEMBERS = {"notransform": 1, "flip": 8, "rotate90": 4, "flipcolor": 2, "fliphorizontal": 2, "flipvertical": 2,
                     "reversecolor": 1, "rotate45": 8, "shift": 225, "shifthorizontal": 15, "shiftvertical": 15}


def _check_transforms(query: ast.Query) -> None:
    stack: list[tuple[object, int]] = [(query.body, 1)]
    while stack:
        value, product = stack.pop()
        if isinstance(value, ast.Transform):
            for name in (value.name, *value.then):  # a composed orbit ('flipcolor rotate90 4 F') multiplies out
                product *= TRANSFORM_MEMBERS.get(name, 1)
            if product > MAX_TRANSFORM_MEMBERS:
                raise CqlSyntaxError(
                    f"transforms nested too deeply: {product:,} transformed versions of one filter "
                    f"(at most {MAX_TRANSFORM_MEMBERS:,}: three nested flips make 512)", query.text, value.span,
                    query.source)
        stack.extend((child, product) for child in _children(value))
