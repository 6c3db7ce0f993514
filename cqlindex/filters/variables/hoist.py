"""Bodies that can match only where a move is played first: the runs that cannot are not made.

Why: ``piece T1 in a { piece T2 in A { C1 = T1 ... path focus T1|T2 (T1--~C1 ...)+ ... } }``
(two-piece-cycle) asks its path of every pair of pieces at every position, some 250 pairs, and
every walk begins with a move of T1 played there: where T1 does not move, the path fails before
it walks (:func:`cqlindex.filters.sequences.path_needs.first_move_played`), but only after the
loops have bound the pair and made the assignments before it. So a piece (square) loop leaves
out of its domain the pieces that make no move here (:func:`movers`). Likewise ``find { piece T2
= [QRNBqrnb]&~T1--(from) path focus T2 piecepath --x --y --z }`` (followpaths-simple) tried its
body at every position after each start, 207,000 times, where the path needs a move to x played
there: a find leaves out the positions where no move played goes from its path's first move's
left side to its right side (:func:`find_guard`, :func:`possible_here`).

Sound where leaving a run out changes nothing but its own failure:

- the body is a compound whose members before the path change nothing (``plain``), make
  comments (a failing filter's are taken back) or assign variables; the path may stand inside a
  ``sort`` (which records nothing where its filter fails) and inside iterations (not ``all``)
  over plain domains, which then fail for every square;
- every variable assigned before the path is the body's own: nothing outside the body names
  it, it does not last between positions, and each run of the body assigns it before reading it
  (:func:`cqlindex.columnar.variables.fresh`), so no run sees what a skipped one would have left;
- a loop is not ``all``: a skipped piece fails, and ``all`` would stop there;
- a find's guarding move reads, on its sides, no variable the body assigns or binds: they are
  asked before the body runs.

A walk's path begins with a move of the loop's piece when its first move constituent is
``x--...`` or when its focus is the piece alone (``focus x``: its first move is x's, played at
the start); any path's first move is one played at the start, focus or not. Captures (en
passant takes elsewhere), castling and null moves are not looked into: nothing is skipped there.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from cqlindex.columnar.variables import fresh, members
from cqlindex.cql import ast
from cqlindex.evaluate.context import Evaluator
from cqlindex.evaluate.values import ALL_SQUARES
from cqlindex.filters.sequences.path_needs import first_move, leading_move, played_from
from cqlindex.filters.sets.python import as_set
from cqlindex.query.analyse import plain
from cqlindex.store.trees import Position


def movers(ev: Evaluator, node: ast.Iterate, pos: Position) -> int | None:
    """The squares the loop ``node`` needs only try at ``pos`` (those a move played there leaves),
    or None where every square must be tried."""
    if not ev.fact("loop needs its piece to move", node, lambda n: _sound(ev.query.body, n)):
        return None
    return played_from(ev, pos)


def _sound(root: ast.Node, node: ast.Iterate) -> bool:
    """Whether skipping the loop's squares whose piece does not move is unobservable (the module's rules)."""
    if node.all:
        return False
    skipped: list[str] = []
    var = node.var
    if _guarding_path(node.body, lambda path: _begins_with_move_of(path, var), (var,), skipped) is None:
        return False
    return _own(root, node.body, skipped)


def find_guard(ev: Evaluator, body: ast.Node) -> ast.Dash | None:
    """The move a find's body needs played at a position (its path's first move, from the left
    side's squares to the right side's), where leaving out the positions without one is
    unobservable (the module's rules, ``find``'s body for the loop's); else None."""
    return ev.fact("find body needs a move here", body, lambda b: _find_sound(ev.query.body, b))


def possible_here(ev: Evaluator, dash: ast.Dash, pos: Position) -> bool:
    """Whether a move played at ``pos`` goes from ``dash``'s left side to its right side (castling
    and null moves are not looked into: where one is played, yes)."""
    positions = ev.tree.positions
    sources = targets = None
    for child_id in pos.children:
        child = positions[child_id]
        if child.castle is not None or child.null_move or child.move_from is None:
            return True
        if sources is None:
            sources = as_set(ev.eval(dash.left, pos)) if dash.left is not None else ALL_SQUARES
            targets = as_set(ev.eval(dash.right, pos)) if dash.right is not None else ALL_SQUARES
            if sources is None or targets is None:
                return False  # a side without a value: the move does not match
        if sources >> child.move_from & 1 and targets >> child.move_to & 1:
            return True
    return False


def _find_sound(root: ast.Node, body: ast.Node) -> ast.Dash | None:
    skipped: list[str] = []
    path = _guarding_path(body, _leads_with_a_plain_move, (), skipped)
    if path is None:
        return None
    dash = leading_move(path)
    made = {name for x in ast.walk(body) for name in _made_here(x)}
    if any(isinstance(x, ast.Variable) and x.name in made for side in (dash.left, dash.right) if side is not None
           for x in ast.walk(side)):
        return None  # a side reads what the body assigns or binds: asked before the body, it could differ
    return dash if _own(root, body, skipped) else None


def _made_here(node: ast.Node) -> tuple[str, ...]:
    """The names ``node`` itself gives a value: an assignment's, a loop's, an echo's."""
    if isinstance(node, (ast.Assign, ast.SubscriptAssign)):
        return (node.name,)
    if isinstance(node, ast.Iterate):
        return (node.var,)
    if isinstance(node, ast.Echo):
        return (node.source, node.target)
    return ()


def _leads_with_a_plain_move(path: ast.Path) -> bool:
    dash = leading_move(path)
    return dash is not None and dash.mode == "played" and not dash.capture and all(
        plain(x) for side in (dash.left, dash.right) if side is not None for x in ast.walk(side))


def _own(root: ast.Node, body: ast.Node, skipped: list[str]) -> bool:
    """Whether each of ``skipped`` is ``body``'s own: named nowhere outside it, and assigned in
    each run of it before it is read."""
    inside = Counter(_names(body))
    everywhere = Counter(_names(root))
    return all(inside[name] == everywhere[name] and fresh(_items(body), name) for name in skipped)


def _guarding_path(node: ast.Node, accept: Callable[[ast.Path], bool], bound: tuple[str, ...],
                   skipped: list[str]) -> ast.Path | None:
    """The path whose failure makes ``node`` fail with nothing seen, where ``accept`` says its
    walks begin as needed; None if there is none. ``bound``: names an inner loop must not bind
    again. ``skipped`` gets the names assigned before the path, which a skipped run would have
    assigned."""
    if isinstance(node, ast.Path):
        return node if accept(node) else None
    if isinstance(node, ast.Sort):
        return _guarding_path(node.body, accept, bound, skipped)
    if isinstance(node, ast.Iterate):
        if node.all or node.var in bound or not all(plain(x) for x in ast.walk(node.domain)):
            return None
        return _guarding_path(node.body, accept, bound, skipped)
    if isinstance(node, ast.Compound):
        for item in members(node):
            found = _guarding_path(item, accept, bound, skipped)
            if found is not None:
                return found
            if not _harmless(item):
                return None
            if isinstance(item, ast.Assign):
                skipped.append(item.name)
    return None


def _begins_with_move_of(node: ast.Path, var: str) -> bool:
    lead = first_move(node)
    if lead is not None and isinstance(lead.left, ast.Variable) and lead.left.name == var:
        return True
    return (leading_move(node) is not None and isinstance(node.focus, ast.Variable) and node.focus.name == var
            and not node.focus_capture)


def _harmless(item: ast.Node) -> bool:
    """A member before the path that, in a skipped run, leaves nothing behind but assignments."""
    if isinstance(item, ast.Output):
        return item.name == "comment" and all(plain(x) for x in ast.walk(item.args))
    if isinstance(item, ast.Assign):
        return item.op == "=" and all(plain(x) for x in ast.walk(item.value))
    return all(plain(x) for x in ast.walk(item))


def _names(node: ast.Node):
    """Every place a variable is named: read, assigned, bound by a loop or an echo, kept lasting."""
    for x in ast.walk(node):
        if isinstance(x, (ast.Variable, ast.Assign, ast.Subscript, ast.SubscriptAssign)):
            yield x.name
        elif isinstance(x, ast.Iterate):
            yield x.var
        elif isinstance(x, ast.Echo):
            yield x.source
            yield x.target


def _items(node: ast.Node) -> tuple[ast.Node, ...]:
    return members(node) if isinstance(node, ast.Compound) else (node,)
