"""Facts of the current position and navigation in the game tree: parent, child, ':', find.

The tree is the one the engine visits: main line only unless ``variations``, so ``child``,
``terminal`` and ``find`` see variation moves only when the reference engine would.
"""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.cql.kinds import LOGICAL
from cqlindex.evaluate.context import Evaluator, evaluates
from cqlindex.evaluate.values import MATCH, Squares, count
from cqlindex.filters import catalogue
from cqlindex.filters.sets.python import pawn_structure
from cqlindex.filters.variables.hoist import find_guard, possible_here
from cqlindex.filters.position.matepatterns import NAMES as MATE_PATTERNS, mate_pattern
from cqlindex.query.analyse import plain
from cqlindex.store.trees import Position

#: The facts declared with their Python value (this family's, and the dash target's move kinds).
_FACTS = {decl.name: decl for decl in catalogue.declarations() if decl.node is ast.Keyword and decl.python}
_PAWNS = ("passedpawns", "isolatedpawns", "doubledpawns", "connectedpawns")


@evaluates(ast.Keyword)
def keyword(ev: Evaluator, node: ast.Keyword, pos: Position) -> object:
    name = node.name
    fact = _FACTS.get(name)
    if fact is not None:
        value = fact.python(ev, pos)
        if fact.kind == LOGICAL:
            return MATCH if value else None
        return value
    if name == "terminal":
        return None if pos.children else MATCH
    if name == "virtualmainline":
        return MATCH if _virtual_mainline(ev, pos) else None
    if name in MATE_PATTERNS:
        return Squares(mate_pattern(name, pos.board()))
    if name in _PAWNS:
        return Squares(pawn_structure(name, pos))
    positions = ev.tree.positions
    if name == "parent":
        return positions[pos.parent] if pos.parent is not None else None
    if name == "child":
        return positions[pos.children[0]] if pos.children else None
    if name in ("to", "from"):
        # CQL 6.2: the square the move that led here went to / came from (none at the start).
        square = pos.move_to if name == "to" else pos.move_from
        if pos.null_move:  # a null move is its side's king moving to its own square (moves/python.py)
            square = pos.board().king(not pos.wtm)
        if square is None:
            return Squares(0)
        mask = 1 << square
        if pos.castle is not None:
            from cqlindex.filters.moves.python import castling_rook

            rook_from, rook_to = castling_rook(pos, ev.tree.positions[pos.parent], ev.tree.chess960)
            mask |= 1 << (rook_to if name == "to" else rook_from)
        return Squares(mask)
    if name == "currentposition":
        return pos
    if name == "initialposition":
        return positions[0]
    if name == "lastgamenumber" and ev.query.header.last_gamenumber is not None:
        return ev.query.header.last_gamenumber
    raise ev.unsupported(f"'{name}'", node)


@evaluates(ast.Colon)
def colon(ev: Evaluator, node: ast.Colon, pos: Position) -> object:
    target = ev.eval(node.position, pos)
    if not isinstance(target, Position):
        return None
    return ev.eval(node.body, target)


@evaluates(ast.ChildN)
def child_n(ev: Evaluator, node: ast.ChildN, pos: Position) -> object:
    index = count(ev.eval(node.index, pos))
    if index is None:
        return None
    positions = ev.tree.positions
    if node.name == "child":
        return positions[pos.children[index]] if 0 <= index < len(pos.children) else None
    return positions[index] if 0 <= index < len(positions) else None


def descendants(ev: Evaluator, pos: Position) -> list[Position]:
    """``pos`` and everything below it in the visited tree, in pre-order."""
    positions = ev.tree.positions
    return positions[pos.id:pos.last_descendant + 1]


def ancestors(ev: Evaluator, pos: Position) -> list[Position]:
    """``pos`` and its ancestors, nearest first."""
    positions = ev.tree.positions
    out = [pos]
    while out[-1].parent is not None:
        out.append(positions[out[-1].parent])
    return out


_IMPURE = (ast.Variable, ast.Assign, ast.Iterate, ast.Sort, ast.Echo, ast.Output, ast.Lasting, ast.Control,
           ast.Dictionary, ast.Subscript, ast.SubscriptAssign)


def _pure(node: ast.Node) -> bool:
    """Whether ``node``'s verdict at a position depends on that position alone and it has no
    side effect (no variables, sort values or comments): then it can be remembered per position
    for the rest of the game."""
    return not any(isinstance(inner, _IMPURE) for inner in ast.walk(node))


def _reads(body: ast.Node) -> tuple[str, ...] | None:
    """The variables ``body`` reads, where its verdict depends on them and the position alone and
    it has no side effect; None otherwise (asked once per run)."""
    if not all(plain(inner) for inner in ast.walk(body)):
        return None
    if any(isinstance(inner, _IMPURE) and not isinstance(inner, ast.Variable) for inner in ast.walk(body)):
        return None
    return tuple(sorted({inner.name for inner in ast.walk(body) if isinstance(inner, ast.Variable)}))


def _values(ev: Evaluator, names: tuple[str, ...]) -> tuple | None:
    """The current values of ``names`` as a key (a number, a set, a string, none), or None when
    one holds something else (a piece, a position)."""
    out = []
    for name in names:
        value = ev.variables.get(name)
        if value is not None and type(value) not in (int, bool, str, Squares):
            return None
        out.append((type(value).__name__, value))
    return tuple(out)


def _tester(ev: Evaluator, body: ast.Node):
    """``ev.test(body, ·)``, remembered per position of the current game when ``body`` changes
    nothing and reads only the position and variables (then per value of those variables).

    Every position of a game runs ``find`` over the positions after it, so without this a game
    of n positions tests the body up to n²/2 times; with it, at most n times per value of the
    variables (``x = 2 find {#A attacks k >= x}``).
    """
    key = id(body)
    pure = ev.memo.get(("pure", key))
    if pure is None:
        pure = ev.memo[("pure", key)] = _pure(body)
    names = () if pure else ev.fact("find body reads", body, _reads)
    values = _values(ev, names) if names else ()
    remembered = names is not None and values is not None
    possible = ev.prefilter.get(body)
    if possible is not None:  # the planner's SQL says where the body can hold at all
        allowed = possible.get(ev.tree.gamenumber, set())
        if not remembered:
            return lambda candidate: candidate.id in allowed and ev.test(body, candidate)
    elif not remembered:
        return lambda candidate: ev.test(body, candidate)
    else:
        allowed = None
    seen = ev.memo.setdefault((key, values) if values else key, {})

    def test(candidate: Position) -> bool:
        if allowed is not None and candidate.id not in allowed:
            return False
        verdict = seen.get(candidate.id)
        if verdict is None:
            verdict = seen[candidate.id] = ev.test(body, candidate)
        return verdict

    return test


@evaluates(ast.Find)
def find(ev: Evaluator, node: ast.Find, pos: Position) -> object:
    candidates = ancestors(ev, pos) if node.backward else descendants(ev, pos)
    test = _tester(ev, node.body)
    guard = find_guard(ev, node.body)
    if guard is not None:  # the body's path needs its first move played there (variables/hoist.py)
        body_test = test
        test = lambda candidate: possible_here(ev, guard, candidate) and body_test(candidate)  # noqa: E731
    if not node.all and node.low is None:
        for candidate in candidates:
            if test(candidate):
                return candidate
        return None
    low, high = (count(ev.eval(b, pos)) if isinstance(b, ast.Node) else b for b in (node.low, node.high))
    if node.low is not None and (low is None or high is None):
        return None  # a variable bound without a value
    hits = sum(1 for candidate in candidates if test(candidate))
    if low is not None:  # the count in the range matches, 0 too ('find 0 2 F', 'find count F')
        return hits if low <= hits <= high else None
    return hits if hits > 0 else None  # 'find all F'


def _virtual_mainline(ev: Evaluator, pos: Position) -> bool:
    """Whether ``pos`` is on the virtual main line, as the reference defines it: every move that led
    here was played, none a null move, and none an alternative (a variation) to a White move;
    Black's alternatives stay on it, so a study's main line and its defences are one line."""
    positions = ev.tree.positions
    while pos.parent is not None:
        parent = positions[pos.parent]
        if pos.null_move or (parent.wtm and parent.children[0] != pos.id):
            return False
        pos = parent
    return True


def tree_call(ev: Evaluator, node: ast.Call, pos: Position) -> object:
    a, b = (ev.eval(arg, pos) for arg in node.args)
    if not (isinstance(a, Position) and isinstance(b, Position)):
        return None
    # Strict: y descends from x when a nonempty sequence of moves leads from x to y (the
    # manual's definition), so a position is neither its own ancestor nor its own descendant.
    if node.name == "ancestor":
        return MATCH if a.id < b.id <= a.last_descendant else None
    if node.name == "descendant":
        return MATCH if b.id < a.id <= b.last_descendant else None
    chain_a = ancestors(ev, a)
    ids_b = {p.id: depth for depth, p in enumerate(ancestors(ev, b))}
    for depth_a, p in enumerate(chain_a):
        if p.id in ids_b:
            return p if node.name == "lca" else depth_a + ids_b[p.id]
    return None
