"""What a prepared query needs from whoever runs it, found once by one walk of its AST.

Both engines ask the same questions of a query (does it read other positions than the current
one, has it sort keys and where, does it say messages or comments); answering them here once
keeps the answers identical between the planner, the evaluator and the result, and keeps the
engines from walking the tree again and again.
"""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.cql.frozen import Frozen, frozen
from cqlindex.filters import catalogue
from cqlindex.filters.sequences.path_refs import carries_state



@frozen
class SortKey(Frozen):
    """One way the output is ordered: a ``sort`` filter (``node``) or the header's ``sort matchcount`` (None)."""

    label: str
    minimum: bool
    node: ast.Sort | None


@frozen
class Analysis(Frozen):
    """The facts of one query both engines and the result rely on."""

    #: Some filter looks at other positions of the game (so whole game trees are needed).
    reads_other_positions: bool
    #: The sort keys in order of importance (``sort matchcount`` first, then each ``sort``).
    sort_keys: tuple[SortKey, ...]
    #: A ``message`` filter (debugging output) or an ``assert`` (which stops the run where it fails):
    #: either acts wherever it is evaluated, so every position is, as in CQL.
    says_messages: bool
    #: A ``comment`` filter (or ``move ... comment``): text for the PGN output, made by the tree-walker.
    comments: bool
    #: A sort value may come from a position outside the planner's candidates (see :func:`analyse`).
    sorts_beyond_candidates: bool
    #: The first ``writefile`` (else ``readfile``) of the query: it touches files, if it may.
    files: ast.Call | None = None


def reads_other_positions(node: ast.Node) -> bool:
    """Whether evaluating ``node`` looks at other positions of the game than the current one.

    When it does not, the evaluator can confirm candidates from their own rows alone, without
    rebuilding whole game trees (:func:`cqlindex.store.trees.load_positions`).
    """
    return any(catalogue.reads_other_positions(inner) for inner in ast.walk(node))


#: Nodes that change nothing and read nothing but the position and the variables, whatever
#: they are given (a whitelist, so that a construct added later counts as acting until listed).
_PLAIN = (ast.Pieces, ast.Number, ast.String, ast.Compound, ast.Not, ast.And, ast.Or, ast.Compare, ast.Binary,
          ast.Unary, ast.Direction, ast.Transform, ast.Colon, ast.ChildN, ast.If, ast.Variable, ast.Iterate,
          ast.Move, ast.Dash, ast.Pin, ast.Ray, ast.Find, ast.ConsecutiveMoves, ast.Repeat, ast.Sequence, ast.Echo,
          ast.GameFilter, ast.CountMoves)
#: Helpers that read nothing but their arguments and the position, and change nothing.
_PLAIN_CALLS = frozenset({"piecename", "typename", "pieceid", "makesquare", "between", "max", "min"})
#: Keywords that read the path walk under way (their value depends on where the search is).
_WALK_READERS = frozenset({"pathcount", "pathcountunfocused", "pathstart", "pathlastposition"})


def plain(node: ast.Node) -> bool:
    """Whether ``node`` itself (not its children) changes nothing (no variable, sort value, comment
    or message) and reads nothing but the position and the variables.

    Evaluating such a node again gives the same answer, and leaving it unevaluated loses nothing:
    the path search reuses its results, and a set iteration asked only whether it matches stops
    at its first square.
    """
    if isinstance(node, ast.Keyword):
        return node.name not in _WALK_READERS
    if isinstance(node, ast.Call):
        return node.name in _PLAIN_CALLS
    if isinstance(node, ast.Control):
        return node.name == "try"  # a count over the ancestors; loop, while, assert act
    return isinstance(node, _PLAIN)


def quiet_path(node: ast.Path, fresh: bool = False, also: set[int] | frozenset[int] = frozenset()) -> bool:
    """Whether the constituents of ``node`` change nothing but comments (dropped with a failed walk
    anyway) and do not read the walk under way: a walk from a position then does the same
    whatever led there (the tree-walker's path memo, the columnar path kernel). ``fresh``: a
    function's parameter bound to its argument (a fresh name, ``x`1``, that nothing outside the
    function's body reads, assigned before it is read) changes nothing either; nor do the nodes
    whose ids are in ``also`` (assignments the caller knows no one else sees)."""
    return all(plain(item) or (isinstance(item, ast.Output) and item.name != "message") or id(item) in also
               or (fresh and isinstance(item, ast.Assign) and fresh_name(item.name) and item.op == "=")
               for item in ast.walk(node.items))


def fresh_name(name: str) -> bool:
    """Whether ``name`` is a function parameter's (cql/function_grammar: '`' is in no CQL name)."""
    return "`" in name


def sort_keys(query: ast.Query) -> tuple[SortKey, ...]:
    """The query's sort keys in order of importance: ``sort matchcount``, then each ``sort`` in the text."""
    keys = [SortKey("matchcount", False, None)] if query.header.sort_matchcount else []
    for node in ast.walk(query.body):
        if isinstance(node, ast.Sort):
            label = node.doc or query.text[node.body.span.start:node.body.span.end]
            keys.append(SortKey(label, node.min, node))
    return tuple(keys)


def analyse(query: ast.Query) -> Analysis:
    """Analyse ``query`` once.

    On sorting beyond the candidates: a sort value is the best over every position where the
    sort filter is evaluated, including positions where the body then fails, and the evaluator
    sees only the candidates. That is the same when the one sort is the body's last filter: it
    is evaluated only where every filter before it matched, and where it is evaluated the body
    matches exactly when it does, so a position outside the candidates never reaches it with a
    value. Otherwise the candidate games are evaluated at every position, as the reference
    engine does; so are they when a path's matches change what happens at other positions.
    """
    keys = sort_keys(query)
    outputs = {node.name for node in ast.walk(query.body) if isinstance(node, ast.Output)}
    sorts = [key.node for key in keys if key.node is not None]
    beyond = bool(sorts) and (len(sorts) > 1 or sorts[0] is not query.body.items[-1])
    files = sorted((node for node in ast.walk(query.body) if isinstance(node, ast.Call)
                    and node.name in ("writefile", "readfile")), key=lambda node: node.name != "writefile")
    # A nestban path, or pathcount & co. outside a path, depend on the paths matched at the
    # game's other positions: those are evaluated too, as the reference engine does.
    beyond = beyond or carries_state(query.body)
    asserts = any(isinstance(node, ast.Control) and node.name == "assert" for node in ast.walk(query.body))
    comments = "comment" in outputs or any(isinstance(node, ast.Move) and any(name == "comment" for name, _ in node.params)
                                           for node in ast.walk(query.body))
    return Analysis(reads_other_positions(query.body), keys, "message" in outputs or asserts, comments, beyond,
                    files[0] if files else None)
