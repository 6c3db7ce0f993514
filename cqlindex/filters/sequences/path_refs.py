"""The filters about a path: ``pathcount``, ``pathcountunfocused``, ``pathstart``, ``pathlastposition``.

Inside a path (while its walk is under way: in a constituent, or in its ``max`` filter) they
describe that walk: the number of moves made so far (focused moves only, with a focus), the
position the path started from, and the last position of the best walk found so far (none
yet: the filter fails). Elsewhere they describe the last path that matched in the current
game, whichever path filter it was and wherever it matched; before any did, they fail.
``pathcountunfocused`` is, as CQL 6.2 defines it, ``ply - pathstart:ply - pathcount`` at the
current position.

The walk under way is :data:`ACTIVE` on the evaluator (a stack: a path may hold another one),
pushed by :mod:`cqlindex.filters.sequences.path`; the game's last match is kept in the
evaluator's per-game memo under :data:`STATUS`.
"""

from __future__ import annotations

from collections.abc import Callable

from cqlindex.cql import ast
from cqlindex.cql.frozen import Frozen, frozen

#: The evaluator attribute holding the walks under way, innermost last.
ACTIVE = "_path_walks"
#: The evaluator memo key of the game's last matched path (a :class:`PathStatus`).
STATUS = "path status"


@frozen
class PathStatus(Frozen):
    """What a matched path leaves for the filters after it: where it started and ended, its count."""

    start: object  # Position
    last: object  # Position
    count: int


def _current(ev) -> tuple[object, object, int] | None:
    """(start, last or None, count) of the innermost walk under way, else of the game's last match."""
    walks = getattr(ev, ACTIVE, None)
    if walks:
        walk = walks[-1]
        return walk.start, walk.best_position(), walk.count
    status = ev.memo.get(STATUS)
    if status is None:
        return None
    return status.start, status.last, status.count


def _pathcount(ev, pos) -> object:
    found = _current(ev)
    return None if found is None else found[2]


def _pathcountunfocused(ev, pos) -> object:
    found = _current(ev)
    return None if found is None else pos.ply - found[0].ply - found[2]


def _pathstart(ev, pos) -> object:
    found = _current(ev)
    return None if found is None else found[0]


def _pathlastposition(ev, pos) -> object:
    found = _current(ev)
    return None if found is None else found[1]


_REFERENCES: dict[str, Callable[[object, object], object]] = {
    "pathcount": _pathcount, "pathcountunfocused": _pathcountunfocused,
    "pathstart": _pathstart, "pathlastposition": _pathlastposition,
}


def path_reference(name: str) -> Callable[[object, object], object]:
    """The evaluation ``(evaluator, position) -> value or None`` of the path filter ``name``."""
    return _REFERENCES[name]


def carries_state(node: ast.Node) -> bool:
    """Whether matching ``node`` at one position depends on the path filters evaluated at others:
    a ``nestban`` path, or a path filter (``pathcount`` ...) outside any path."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Path) and "nestban" in inner.params:
            return True
    return _outside_paths(node)


def _outside_paths(node: object) -> bool:
    if isinstance(node, ast.Path):
        return False
    if isinstance(node, ast.Keyword):
        return node.name in _REFERENCES
    if isinstance(node, ast.Node):
        return any(_outside_paths(getattr(node, name)) for name in node.__dataclass_fields__ if name != "span")
    if isinstance(node, (tuple, list)):
        return any(_outside_paths(item) for item in node)
    return False
