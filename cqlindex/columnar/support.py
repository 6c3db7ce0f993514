"""Whether the columnar engine can answer a query, and if not, which filter keeps it away.

Checked before any batch is read, so that ``--explain`` can say which engine confirms the
candidates and why. The check is by node and name: a node type some kernel evaluates, a
keyword, helper or operator that kernel knows, and variables it can follow
(:mod:`cqlindex.columnar.variables`). A kernel may still meet a value it does not take (a
string where a set was expected); it raises then, and the runner falls back too.
"""

from __future__ import annotations

from collections.abc import Iterator

from cqlindex.columnar.engine import has_kernel
from cqlindex.columnar.kernels_game import NAMES as GAME_NAMES
from cqlindex.columnar.kernels_line import PARAMS as LINE_PARAMS
from cqlindex.columnar.kernels_path import why_not as path_why_not
from cqlindex.columnar.kernels_generated import PARAMS as GENERATED_PARAMS
from cqlindex.columnar.kernels_moves import PARAMS as MOVE_PARAMS
from cqlindex.columnar.kernels_strings import NAMES as PIECE_NAMES, code
from cqlindex.columnar.pawns import PAWN_STRUCTURES
from cqlindex.columnar.kernels_tree import FACTS
from cqlindex.columnar.mates import MATE_FACTS
from cqlindex.columnar.variables import scoping_problem
from cqlindex.cql import ast
from cqlindex.query.rewrite import Expansions

_KEYWORDS = frozenset({"terminal", "parent", "child", "currentposition", "initialposition", "lastgamenumber", "to",
                       "from", *PAWN_STRUCTURES, *MATE_FACTS})
_CALLS = frozenset({"max", "min", "between", "makesquare", "ancestor", "descendant", "lca", "distance", *PIECE_NAMES})
_BINARY = frozenset({"|", "&", "attacks", "attackedby", "in", "+", "-", "*", "/", "%"})
_UNARY = frozenset({"-", "abs", "sqrt", "#", "~", "light", "dark", "power", "rank", "file", "type", "colortype"})


def _why_not(node: ast.Node, body: ast.Node) -> str | None:
    """Why ``node`` itself (not its children) is not evaluated on columns, or None (``body``: the
    query's, where a path's assignments are looked for readers)."""
    if isinstance(node, (ast.Repeat, ast.Sequence)):
        return None  # a line's or a path's constituents: their kernel reads them
    if not has_kernel(node):
        return f"{type(node).__name__.lower()} has no columnar kernel yet"
    if isinstance(node, ast.Control) and node.name not in ("try", "loop", "while"):
        return f"'{node.name}' has no columnar kernel yet"
    if isinstance(node, ast.Keyword) and node.name not in FACTS and node.name not in _KEYWORDS:
        return f"'{node.name}' has no columnar kernel yet"
    if isinstance(node, ast.String) and code(node.value) is None:
        return "a string longer than one letter has no columnar kernel yet"
    if isinstance(node, ast.Call) and (node.name not in _CALLS or (node.name == "makesquare" and len(node.args) != 2)):
        return f"'{node.name}' has no columnar kernel yet"
    if isinstance(node, ast.Binary) and node.op not in _BINARY:
        return f"'{node.op}' has no columnar kernel yet"
    if isinstance(node, ast.Unary) and node.op not in _UNARY:
        return f"'{node.op}' has no columnar kernel yet"
    if isinstance(node, ast.Move):
        known = GENERATED_PARAMS if node.mode in ("legal", "pseudolegal") else MOVE_PARAMS
        unknown = [name for name, _ in node.params if name not in known]
        if unknown:
            return f"'move {unknown[0]}' has no columnar kernel yet"
    if isinstance(node, ast.GameFilter) and (node.name not in GAME_NAMES or (
            node.name not in ("year", "elo") and not any(isinstance(a, ast.String) for a in node.args))):
        return f"'{node.name}' has no columnar kernel yet"
    if isinstance(node, ast.Dash) and node.promote_by is not None and node.mode != "played":
        return "a promotion named by a string has no columnar kernel yet"
    if isinstance(node, ast.Dash) and node.mode != "played" and node.target and not (
            len(node.target) == 1 and isinstance(node.target[0], ast.Keyword)):
        return "a generated move with a target filter has no columnar kernel yet"
    if isinstance(node, ast.CountMoves) and node.move.mode == "played":
        return "'countmoves' of played moves has no columnar kernel yet"
    if isinstance(node, ast.Line) and node.params - LINE_PARAMS:
        return f"'line {sorted(node.params - LINE_PARAMS)[0]}' has no columnar kernel yet"
    if isinstance(node, ast.Path):
        return path_why_not(node, body)
    return None


def _banning_path(node: object, direct: bool = True) -> ast.Path | None:
    """The first ``path nestban`` not evaluated the way the tree-walker evaluates it, or None.

    What it bans depends on where, and in which order, it was asked before; the columnar engine
    asks a filter at the same positions in the same order only as a member of the body's or a
    sort's compound, a transform's member (each its own path, asked everywhere by both), or
    compared with constants (elsewhere it may ask once per distinct position, or both operands
    of a comparison everywhere)."""
    if isinstance(node, ast.Node):
        if isinstance(node, ast.Path) and "nestban" in node.params and not direct:
            return node
        inner = direct and (isinstance(node, (ast.Compound, ast.Sort, ast.Transform)) or (  # '20 <= sort ...'
            isinstance(node, ast.Compare) and sum(not isinstance(o, ast.Number) for o in node.operands) == 1))
        for name in node.__dataclass_fields__:
            if name != "span":
                found = _banning_path(getattr(node, name), inner)
                if found is not None:
                    return found
    elif isinstance(node, (tuple, list)):
        for item in node:
            found = _banning_path(item, direct)
            if found is not None:
                return found
    return None


def nodes(query: ast.Query, expansions: Expansions) -> Iterator[ast.Node]:
    """Every node of the body, and of every transform's members (a colour swap writes ``btm``
    where the query said ``wtm``)."""
    pending: list[ast.Node] = [query.body]
    while pending:
        for node in _walk(pending.pop()):
            yield node
            if isinstance(node, ast.Transform):
                pending.extend(expansions(node))


def _walk(node: object) -> Iterator[ast.Node]:
    """:func:`ast.walk`, but not into a comment's arguments: the columnar engine never evaluates
    them (the tree-walker writes the comments, see :mod:`cqlindex.columnar.run`)."""
    if isinstance(node, ast.Node):
        yield node
        if isinstance(node, ast.Output) and node.name == "comment":
            return
        if isinstance(node, ast.GameFilter):
            return  # its arguments are the strings and sides it names, read by its kernel
        if isinstance(node, ast.Move):  # 'move ... comment (...)': the comment's arguments, as above
            yield from _walk([value for name, value in node.params if name != "comment"])
            return
        for name in node.__dataclass_fields__:
            if name != "span":
                yield from _walk(getattr(node, name))
    elif isinstance(node, (tuple, list)):
        for item in node:
            yield from _walk(item)


def blocker(query: ast.Query, expansions: Expansions) -> tuple[ast.Node, str] | None:
    """(the first filter the columnar engine does not evaluate, why), or None when it evaluates all."""
    for node in nodes(query, expansions):
        why = _why_not(node, query.body)
        if why is not None:
            return node, why
    for node in nodes(query, expansions):
        if isinstance(node, (ast.Find, ast.Line)) and any(isinstance(inner, ast.Sort) for inner in ast.walk(node)):
            return node, "a sort value noted inside find or line (the tree-walker stops at the first match there)"
    banning = _banning_path(query.body)
    if banning is not None:
        return banning, "'path nestban' inside a filter the columnar engine may ask out of order"
    problem = scoping_problem(query.body)
    if problem is not None:
        return problem, "a variable assigned where the columnar engine cannot follow it"
    return None


def reads_games(query: ast.Query, expansions: Expansions) -> bool:
    """Whether the query has game filters (the frame then reads the games' rows too)."""
    return any(isinstance(node, ast.GameFilter) for node in nodes(query, expansions))


def needed_facts(query: ast.Query, expansions: Expansions) -> dict[str, str | int | None]:
    """The facts the query reads, each with its SQL text for the frame's scan (over the alias
    ``p``; an int constant, or None for true everywhere). Text, so that a kept plan holds it and a
    later run reads its frames without building SQL (sqlglot is ~50 ms of a process's start)."""
    from cqlindex.plan.dialect import duckdb_sql

    facts = {}
    for node in nodes(query, expansions):
        if not isinstance(node, ast.Keyword):
            continue
        name = MATE_FACTS.get(node.name, node.name)  # a mate pattern is asked where the mate is
        if name in FACTS and name not in facts:
            sql = FACTS[name].sql_of("p")
            facts[name] = sql if sql is None or isinstance(sql, int) else duckdb_sql(sql)
    return facts
