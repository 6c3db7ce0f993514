"""The colours a set filter's pieces can have, as the SQL of attacks and iterations asks them.

Shared by :mod:`cqlindex.filters.sets.sql` and :mod:`cqlindex.filters.sets.sql_loops`: an attack
map is per colour, so a set of pieces reads one where all its pieces share a colour.
"""

from __future__ import annotations

from collections.abc import Callable

from cqlindex.cql import ast
from cqlindex.plan.terms import ALL_SQUARES, LETTERS
from cqlindex.query.rewrite import expand

def colours(node: ast.Node, members: Callable[[ast.Transform], list[ast.Node]] = expand) -> str:
    """The colours ("w", "b") of the pieces a set filter's squares can hold, for attack maps."""
    if isinstance(node, ast.Pieces):
        if len(node.pieces) == 13:
            return "wb"
        return ("w" if any(x in "KQRBNP" for x in node.pieces) else "") + \
            ("b" if any(x in "kqrbnp" for x in node.pieces) else "")
    if isinstance(node, ast.Binary) and node.op in ("|", "&"):
        left, right = colours(node.left, members), colours(node.right, members)
        if node.op == "|":
            return "".join(c for c in "wb" if c in left or c in right)
        return "".join(c for c in "wb" if c in left and c in right)
    if isinstance(node, ast.Transform) and not node.count:
        images = [colours(m, members) for m in members(node)]
        return "".join(c for c in "wb" if any(c in m for m in images))
    if isinstance(node, (ast.Compound,)) and len(node.items) == 1:
        return colours(node.items[0], members)
    if isinstance(node, ast.Sort):
        return colours(node.body, members)
    return "wb"

def whole_sides(node: ast.Node) -> str | None:
    """The colours whose every piece ``node`` holds (``A``, ``a``, ``[Aa]``, with any ``_``), else None."""
    if not isinstance(node, ast.Pieces) or node.squares != ALL_SQUARES:
        return None
    letters = node.pieces - {"_"}
    if letters == set("KQRBNP") or letters == set("kqrbnp") or letters == set(LETTERS):
        return colours(node)
    return None
