"""A piece loop whose body can match only where the loop's piece moves first: the other pieces
are not tried.

Why: ``piece T1 in a { piece T2 in A { C1 = T1 ... path focus T1|T2 (T1--~C1 ...)+ ... } }``
(two-piece-cycle) asks its path of every pair of pieces at every position, some 250 pairs, and
every walk begins with a move of T1 played there: where T1 does not move, the path fails before
it walks (:func:`cqlindex.filters.sequences.path_needs.first_move_played`), but only after the
loops have bound the pair and made the assignments before it. Here that test is asked once per
position, of the loop: the pieces that make no move here are left out of its domain.

Sound where leaving a piece out changes nothing but its own failure:

- the body is a compound whose members before the path change nothing (``plain``), make
  comments (a failing filter's are taken back) or assign variables; the path may stand inside a
  ``sort`` (which records nothing where its filter fails) and inside iterations (not ``all``)
  over plain domains, which then fail for every square;
- every variable the body assigns is the body's own: nothing outside the loop names it, it
  does not last between positions, and each run of the body assigns it before reading it
  (:func:`cqlindex.columnar.variables.fresh`), so no run sees what a skipped one would have left;
- the loop is not ``all``: a skipped piece fails, and ``all`` would stop there.

A walk's path begins with a move of the loop's piece when its first move constituent is
``x--...`` or when its focus is the piece alone (``focus x``: its first move is x's, played at
the start). Castling and null moves are not looked into: where one is played, nothing is skipped.
"""

from __future__ import annotations

from collections import Counter

from cqlindex.columnar.variables import fresh, members
from cqlindex.cql import ast
from cqlindex.evaluate.context import Evaluator
from cqlindex.filters.sequences.path_needs import first_move, leading_move, played_from
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
    if _guarding_path(node.body, node.var, skipped) is None:
        return False
    inside = Counter(_names(node.body))
    everywhere = Counter(_names(root))
    return all(inside[name] == everywhere[name] and fresh(_items(node.body), name) for name in skipped)


def _guarding_path(node: ast.Node, var: str, skipped: list[str]) -> ast.Path | None:
    """The path whose failure makes ``node`` fail with nothing seen, where every walk of it begins
    with a move of ``var``'s piece; None if there is none. ``skipped`` gets the names assigned
    before it, which a skipped run would have assigned."""
    if isinstance(node, ast.Path):
        return node if _begins_with_move_of(node, var) else None
    if isinstance(node, ast.Sort):
        return _guarding_path(node.body, var, skipped)
    if isinstance(node, ast.Iterate):
        if node.all or node.var == var or not all(plain(x) for x in ast.walk(node.domain)):
            return None
        return _guarding_path(node.body, var, skipped)
    if isinstance(node, ast.Compound):
        for item in members(node):
            found = _guarding_path(item, var, skipped)
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
