"""Which targets ``echo (s t) body`` need try for a source: necessary conditions read off its body.

The echo evaluates its body at every other position t of the game for each source s: n² bodies,
each a walk of the AST in Python (flipverticalecho.cql compares 64 squares per pair: minutes on
the studies file). But the body is a sequence of filters tried in order, and while they change
nothing (no assignment, sort, comment or message: :func:`cqlindex.query.analyse.plain`), a pair
where one of them fails leaves no trace but the failure. So for the leading filters that change
nothing, any condition that each of them needs is a condition for the pair to be tried at all.
This module finds such conditions that are cheap for many pairs, evaluated once per position of
the game instead of once per pair:

* a filter reading no variable is about t alone: its verdict at each target, once per game;
* ``s:F``, F reading no variable: its verdict at each source;
* ``F == s:G`` (either order; ``t:F`` is F), F and G reading no variable: the pair needs the two
  values equal, so targets are grouped by F's value (when every value of the game is of one
  kind, for which CQL's ``==`` is Python's equality) and a source tries only the group of G's;
* ``square all v in . {f(E) == s:g(E')}``, f and g ``piecename`` or ``typename`` and E, E' squares
  computed from v alone (``makesquare``, ``file``, ``rank``, arithmetic): the letters on the
  squares E(v) of t must be those on the squares E'(v) of s, for every v: a key of each board,
  read with numpy (the mirror of a board for flipverticalecho.cql);
* ``s & t == .``: the same board;
* ``s < t`` and the other comparisons of the two positions: their ids;
* ``consecutivemoves (s t)`` with a range of numbers, bare or compared with a number: its value
  for every pair at once (:func:`cqlindex.filters.moves.consecutive.all_pairs`).

The echo then evaluates the whole body, as before, at the targets kept, in the same order: the
answer and everything the body does are the old ones, only the pairs that could not match are
not tried. ``ENABLED = False`` turns this off (the tests compare both ways on real games).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np

from cqlindex.cql import ast
from cqlindex.evaluate.context import Evaluator
from cqlindex.evaluate.values import Squares
from cqlindex.filters.moves.consecutive import pair_table
from cqlindex.filters.relation.python import GameBoards
from cqlindex.query.analyse import plain
from cqlindex.store.trees import Position

#: Whether echo narrows its targets (the tests turn it off to compare with the plain evaluation).
ENABLED = True

#: The nodes a square expression E of the square idiom may hold: they never read the position.
_SQUARE_MATH = (ast.Number, ast.Binary, ast.Unary, ast.Call, ast.Variable)
_SQUARE_OPS = frozenset({"+", "-", "*", "/", "%", "file", "rank", "abs"})
_LETTERS = {"piecename": "_KQRBNPkqrbnp", "typename": "_KQRBNPKQRBNP"}  # by piece code (0 empty)
_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq,
          "!=": operator.ne}
_SWAPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_EVERY_LETTER = frozenset("KQRBNPkqrbnp_")


@dataclass(frozen=True, slots=True)
class Plan:
    """The necessary conditions found in one echo body (see the module docstring)."""

    target_tests: tuple[ast.Node, ...] = ()
    source_tests: tuple[ast.Node, ...] = ()
    equalities: tuple[tuple[ast.Node, ast.Node], ...] = ()  # (F at t, G at s)
    letters: tuple[tuple[str, ast.Node, str, ast.Node, str, int], ...] = ()  # (f, E, g, E', v, domain)
    same_board: bool = False
    orders: tuple[str, ...] = ()  # op of 'id(t) op id(s)'
    consecutive: tuple[tuple[str, int], ...] = ()  # (op, n) of 'consecutivemoves(s t) op n'

    def __bool__(self) -> bool:
        return any((self.target_tests, self.source_tests, self.equalities, self.letters, self.same_board,
                    self.orders, self.consecutive))


def _acts(node: ast.Node) -> bool:
    """Whether something in ``node`` may change anything or read what is not the position."""
    return not all(plain(n) for n in ast.walk(node))


def _closed(node: ast.Node) -> bool:
    """Whether ``node``'s value depends on the position alone (no variable, nothing acting)."""
    return not _acts(node) and not any(isinstance(n, (ast.Variable, ast.Subscript)) for n in ast.walk(node))


def _is_var(node: ast.Node, name: str) -> bool:
    return isinstance(node, ast.Variable) and node.name == name


def _at(node: ast.Node, name: str) -> ast.Node | None:
    """G of ``name:G``, else None."""
    return node.body if isinstance(node, ast.Colon) and _is_var(node.position, name) else None


def make_plan(node: ast.Echo) -> Plan:
    """The conditions of ``node``'s leading filters that change nothing (an empty plan: none)."""
    s, t = node.source, node.target
    if s == t:
        return Plan()
    items = list(node.body.items if isinstance(node.body, (ast.Compound, ast.And)) else (node.body,))
    found: dict[str, list] = {key: [] for key in ("target_tests", "source_tests", "equalities", "letters",
                                                  "orders", "consecutive")}
    same_board = False
    for item in items:
        if _acts(item):
            break  # what comes after may depend on what this one did
        item = _at(item, t) or item
        if _closed(item):
            found["target_tests"].append(item)
        elif (body := _at(item, s)) is not None and _closed(body):
            found["source_tests"].append(body)
        elif isinstance(item, ast.Compare) and len(item.ops) == 1:
            op, (left, right) = item.ops[0].strip("[]"), item.operands
            if op == "==" and (pair := _equality(left, right, s, t) or _equality(right, left, s, t)):
                found["equalities"].append(pair)
            elif _is_var(left, t) and _is_var(right, s):
                found["orders"].append(op)
            elif _is_var(left, s) and _is_var(right, t):
                found["orders"].append(_SWAPPED[op])
            elif op == "==" and (_same_board(left, right, s, t) or _same_board(right, left, s, t)):
                same_board = True
            elif (bound := _consecutive_bound(op, left, right, s, t)) is not None:
                found["consecutive"].append(bound)
        elif isinstance(item, ast.Iterate) and (letters := _letters(item, s, t)) is not None:
            found["letters"].append(letters)
        elif isinstance(item, ast.ConsecutiveMoves) and _pair_of(item, s, t) and isinstance(item.low, int) \
                and isinstance(item.high, int):
            found["consecutive"] += [(">=", item.low), ("<=", item.high)]
    return Plan(same_board=same_board, **{key: tuple(value) for key, value in found.items()})


def _equality(left: ast.Node, right: ast.Node, s: str, t: str) -> tuple[ast.Node, ast.Node] | None:
    """(F, G) of ``F == s:G`` (``t:F`` is F), both reading no variable."""
    left = _at(left, t) or left
    body = _at(right, s)
    return (left, body) if body is not None and _closed(left) and _closed(body) else None


def _same_board(left: ast.Node, right: ast.Node, s: str, t: str) -> bool:
    """``s & t == .`` (or ``t & s``): every square holds the same in both."""
    if not (isinstance(left, ast.Binary) and left.op == "&" and isinstance(right, ast.Pieces)):
        return False
    a, b = left.left, left.right
    return ((_is_var(a, s) and _is_var(b, t)) or (_is_var(a, t) and _is_var(b, s))) \
        and right.pieces >= _EVERY_LETTER and right.squares == (1 << 64) - 1


def _pair_of(node: ast.ConsecutiveMoves, s: str, t: str) -> bool:
    return {node.left.name, node.right.name} == {s, t} if isinstance(node.left, ast.Variable) and \
        isinstance(node.right, ast.Variable) else False


def _consecutive_bound(op: str, left: ast.Node, right: ast.Node, s: str, t: str) -> tuple[str, int] | None:
    """(op, n) of ``consecutivemoves(s t) op n`` (either order), without a range of its own."""
    if isinstance(right, ast.ConsecutiveMoves):
        left, right, op = right, left, _SWAPPED[op]
    if isinstance(left, ast.ConsecutiveMoves) and left.low is None and _pair_of(left, s, t) \
            and isinstance(right, ast.Number):
        return op, right.value
    return None


def _letters(node: ast.Iterate, s: str, t: str):
    """(f, E, g, E', v, domain) of ``square all v in D {f(E) == s:g(E')}``, D every square of the board."""
    domain, body = node.domain, node.body
    if not (node.kind == "square" and node.all and node.var not in (s, t) and isinstance(domain, ast.Pieces)
            and domain.pieces >= _EVERY_LETTER and isinstance(body, ast.Compare) and body.ops == ("==",)):
        return None
    for left, right in (body.operands, body.operands[::-1]):
        left = _at(left, t) or left
        right = _at(right, s)
        if right is None or not all(isinstance(side, ast.Call) and side.name in _LETTERS and len(side.args) == 1
                                    and _square_math(side.args[0], node.var) for side in (left, right)):
            continue
        return left.name, left.args[0], right.name, right.args[0], node.var, domain.squares
    return None


def _square_math(node: ast.Node, var: str) -> bool:
    """Whether ``node`` computes a square from ``var`` alone, reading nothing of the position."""
    for inner in ast.walk(node):
        if not isinstance(inner, _SQUARE_MATH):
            return False
        if isinstance(inner, ast.Variable) and inner.name != var:
            return False
        if isinstance(inner, (ast.Binary, ast.Unary)) and inner.op not in _SQUARE_OPS:
            return False
        if isinstance(inner, ast.Call) and inner.name not in ("makesquare", "max", "min"):
            return False
    return True


class _Game:
    """One echo's conditions worked out for every position of the current game."""

    __slots__ = ("allowed", "source_ok", "groups", "source_keys", "pairs")

    def __init__(self, allowed: np.ndarray, source_ok: np.ndarray, groups: dict | None, source_keys: list | None,
                 pairs: np.ndarray | None) -> None:
        self.allowed = allowed  # targets passing the target filters (and with every key)
        self.source_ok = source_ok  # sources passing the source filters (and with every key)
        self.groups = groups  # key -> targets having it (ascending ids), or None without keys
        self.source_keys = source_keys
        self.pairs = pairs  # consecutivemoves of every pair, or None


def candidates(ev: Evaluator, node: ast.Echo, pos: Position) -> np.ndarray | None:
    """The ids of the targets worth trying for source ``pos``, ascending; None: every position."""
    if not ENABLED:
        return None
    plan = ev.fact("echo plan", node, make_plan)
    if not plan:
        return None
    game = ev.memo.get(("echo pairs", id(node)))
    if game is None:
        positions = ev.tree.positions
        if any(p.id != i for i, p in enumerate(positions)):
            game = False  # ids are not indexes (never so today): no narrowing
        else:
            game = _game(ev, node, plan, positions)
        ev.memo[("echo pairs", id(node))] = game
    if game is False:
        return None
    here = pos.id
    if not game.source_ok[here]:
        return np.zeros(0, dtype=np.intp)
    if game.groups is None:
        targets = np.flatnonzero(game.allowed)
    else:
        targets = game.groups.get(game.source_keys[here], np.zeros(0, dtype=np.intp))
    for op in plan.orders:
        targets = targets[_ORDER[op](targets, here)]
    for op, bound in plan.consecutive if game.pairs is not None else ():
        targets = targets[_ORDER[op](game.pairs[here, targets], bound)]
    return targets


def _game(ev: Evaluator, node: ast.Echo, plan: Plan, positions: list[Position]) -> _Game:
    n = len(positions)
    allowed = np.ones(n, dtype=bool)
    source_ok = np.ones(n, dtype=bool)
    for test in plan.target_tests:
        for i in np.flatnonzero(allowed):
            allowed[i] = ev.test(test, positions[i])
    for test in plan.source_tests:
        for i in np.flatnonzero(source_ok):
            source_ok[i] = ev.test(test, positions[i])
    target_columns, source_columns = [], []
    for f, g in plan.equalities:
        at_t = _values(ev, f, positions, allowed)
        at_s = _values(ev, g, positions, source_ok)
        kinds = {_kind(v) for v in (*at_t, *at_s) if v is not None}
        if len(kinds) == 1 and None not in kinds:  # CQL's == is then Python's == of the keys
            target_columns.append([_key(v) for v in at_t])
            source_columns.append([_key(v) for v in at_s])
    if plan.letters or plan.same_board:
        boards = ev.memo.get(GameBoards)
        if boards is None:
            boards = ev.memo[GameBoards] = GameBoards(positions)
        if plan.same_board:
            rows = [row.tobytes() for row in boards.boards]
            target_columns.append(rows)
            source_columns.append(rows)
        for f, e, g, e2, var, domain in plan.letters:
            squares = [sq for sq in range(64) if domain >> sq & 1]
            at_t, at_s = _square_map(ev, e, var, squares, positions[0]), _square_map(ev, e2, var, squares, positions[0])
            if at_t is None or at_s is None:  # a square off the board: the comparison fails for every pair
                source_ok[:] = False
                continue
            target_columns.append(_letter_keys(boards.boards, f, at_t))
            source_columns.append(_letter_keys(boards.boards, g, at_s))
    groups = source_keys = None
    if target_columns:
        target_keys = list(zip(*target_columns))
        source_keys = list(zip(*source_columns))
        found: dict[tuple, list[int]] = {}
        for i in np.flatnonzero(allowed):
            found.setdefault(target_keys[i], []).append(int(i))
        groups = {key: np.array(ids, dtype=np.intp) for key, ids in found.items()}
    pairs = pair_table(ev) if plan.consecutive else None  # None for a very large game: not narrowed by it
    return _Game(allowed, source_ok, groups, source_keys, pairs)


def _values(ev: Evaluator, node: ast.Node, positions: list[Position], ok: np.ndarray) -> list[object]:
    """``node``'s value at each position where ``ok`` (None elsewhere); ``ok`` turns False where it has none."""
    values: list[object] = [None] * len(positions)
    for i in np.flatnonzero(ok):
        value = values[i] = ev.eval(node, positions[i])
        if value is None:
            ok[i] = False
    return values


def _kind(value: object) -> type | None:
    """The kind of a value whose == CQL decides as Python's equality of :func:`_key` does, else None."""
    kind = type(value)
    if kind in (int, str, Squares):
        return kind
    return Position if isinstance(value, Position) else None


def _key(value: object) -> object:
    if value is None:
        return None
    if isinstance(value, Position):
        return value.id
    return int(value) if type(value) is Squares else value


def _square_map(ev: Evaluator, expr: ast.Node, var: str, squares: list[int], pos: Position) -> np.ndarray | None:
    """The square ``expr`` gives for each of ``squares`` bound to ``var`` (it reads no position), or None
    when one is not a single square."""
    saved = ev.variables.get(var)
    out = []
    try:
        for sq in squares:
            ev.variables[var] = Squares(1 << sq)
            value = ev.eval(expr, pos)
            if type(value) is not Squares or int(value).bit_count() != 1:
                return None
            out.append(int(value).bit_length() - 1)
    finally:
        if saved is None:
            ev.variables.pop(var, None)
        else:
            ev.variables[var] = saved
    return np.array(out, dtype=np.intp)


def _letter_keys(boards: np.ndarray, name: str, squares: np.ndarray) -> list[bytes]:
    """Per board, the letters ``name`` gives on ``squares``, as bytes."""
    table = np.frombuffer(_LETTERS[name].encode(), dtype=np.uint8)
    letters = np.ascontiguousarray(table[boards[:, squares]])
    return [row.tobytes() for row in letters]
