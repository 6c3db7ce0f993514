"""The evaluator: a table from AST node type to the function that evaluates it.

Family modules (sets, logic, position, moves, ...) register their functions with
:func:`evaluates`; :class:`Evaluator` looks them up by node type. A node type nobody
registered raises :class:`CqlUnsupportedError`, so an unknown construct is named, never
answered wrong.
"""

from __future__ import annotations

from collections.abc import Callable

from cqlindex.cql import ast
from cqlindex.cql.by_type import registry
from cqlindex.errors import CqlUnsupportedError
from cqlindex.evaluate.lasting import initial_values, keep_lasting, lasting_names
from cqlindex.evaluate.values import Squares
from cqlindex.query.rewrite import Expansions
from cqlindex.store.trees import GameTree, Position

Handler = Callable[["Evaluator", ast.Node, Position], object]
_HANDLERS: dict[type, Handler] = {}
_DECIDERS: dict[type, Handler] = {}


#: ``@evaluates(ast.X)``: the decorated function evaluates X nodes.
evaluates = registry(_HANDLERS)
#: ``@decides(ast.X)``: the decorated function decides whether an X node matches (truthy or not)
#: where only that is asked: for nodes whose value costs more than the answer (a set iteration
#: can stop at its first square).
decides = registry(_DECIDERS)


def evaluated_nodes() -> frozenset[type]:
    """The node types some family evaluates."""
    return frozenset(_HANDLERS)


class Evaluator:
    """Evaluates one query's filters at the positions of one game tree at a time."""

    def __init__(self, query: ast.Query, variations: bool, expansions: Expansions | None = None) -> None:
        self.query = query
        #: Each transform filter's members, rewritten once (see :mod:`cqlindex.query.rewrite`).
        self.expansions = expansions if expansions is not None else Expansions(query.body)
        self.variations = variations
        self.tree: GameTree | None = None
        self.variables: dict[str, object] = {}
        #: Per game, the best value of each sort filter (for ordering the output).
        self.sort_values: dict[ast.Node, int] = {}
        #: Per game: what filters may remember about its positions (reset with each tree).
        self.memo: dict[object, object] = {}
        #: Facts of the query's nodes worked out once for the whole run (see :meth:`fact`).
        self.node_facts: dict[tuple[str, int], tuple[ast.Node, object]] = {}
        #: From the planner: filter -> gamenumber -> the only positions where it can match.
        self.prefilter: dict[ast.Node, dict[int, set[int]]] = {}
        #: Per game, the text of the ``comment`` filters, by the positionid they comment on.
        self.comments: dict[int, list[str]] = {}
        #: Comments made while the body is tested at one position: kept only if it matches.
        self.pending: list[tuple[int, str]] = []
        #: Per game, removecomment / settag / removetag edits of the output (cqlindex.filters.output.edits),
        #: and those made while the body is tested at one position: kept only if it matches.
        self.edits: list[tuple] = []
        self.pending_edits: list[tuple] = []
        #: What message filters said, in the order they said it (the whole run).
        self.messages: list[str] = []
        #: Variables that outlive a position (see :mod:`cqlindex.evaluate.lasting`): their
        #: values, the names kept for the whole run, and those kept for one game only.
        self.lasting: dict[str, object] = initial_values(query)
        self.run_names, self.game_names = lasting_names(query)
        #: Checked before each position is tested: anything with a ``check()`` that raises when
        #: the query's time is up (cqlindex.exec.timeout.Deadline), or None for no limit.
        self.deadline = None
        #: Whether readfile and writefile may touch files (the command line allows it, the API when asked).
        self.allow_files = False
        self.keeps_comments = any(isinstance(n, ast.Output) and n.name == "comment" for n in ast.walk(query.body))
        if self.keeps_comments:
            self.eval = self._eval_keeping_comments  # type: ignore[method-assign]

    def fact(self, what: str, node: ast.Node, work_out: Callable[[ast.Node], object]) -> object:
        """``work_out(node)``, computed once per node for the whole run: static facts of the query
        (is a body plain, may a path be memoised) are asked at every position. The node is kept
        beside its fact so an id reused by another node can never return a stale answer."""
        key = (what, id(node))
        entry = self.node_facts.get(key)
        if entry is None or entry[0] is not node:
            entry = (node, work_out(node))
            self.node_facts[key] = entry
        return entry[1]

    def unsupported(self, what: str, node: ast.Node) -> CqlUnsupportedError:
        return CqlUnsupportedError(f"{what} is valid CQL that cqlindex does not evaluate yet", self.query.text,
                                   node.span, self.query.source)

    def eval(self, node: ast.Node, pos: Position) -> object:
        """The value of ``node`` at ``pos``, or None if it does not match there."""
        handler = _HANDLERS.get(type(node))
        if handler is None:
            raise self.unsupported(f"'{type(node).__name__.lower()}'", node)
        return handler(self, node, pos)

    def _eval_keeping_comments(self, node: ast.Node, pos: Position) -> object:
        """:meth:`eval` with CQL's smart comments: what a filter that fails said is taken back."""
        handler = _HANDLERS.get(type(node))
        if handler is None:
            raise self.unsupported(f"'{type(node).__name__.lower()}'", node)
        mark = len(self.pending)
        value = handler(self, node, pos)
        if value is None or (type(value) is Squares and not value):
            del self.pending[mark:]
        return value

    def operands(self, left: ast.Node, right: ast.Node, pos: Position) -> tuple[object, object] | None:
        """Both operands' values, or None as soon as one does not match (the right one unevaluated)."""
        a = self.eval(left, pos)
        if a is None:
            return None
        b = self.eval(right, pos)
        return None if b is None else (a, b)

    def test(self, node: ast.Node, pos: Position) -> bool:
        """Whether ``node`` matches at ``pos``: it has a value, and a set value is not empty.

        A set filter always has a value (``Q == 0`` holds when there is no white queen) but
        matches only when the set is not empty; everything that asks "does it match" asks here.
        """
        decide = _DECIDERS.get(type(node))
        if decide is None:  # :meth:`eval` written out here: one Python call less per filter tested
            handler = _HANDLERS.get(type(node))
            if handler is None:
                raise self.unsupported(f"'{type(node).__name__.lower()}'", node)
            if not self.keeps_comments:
                value = handler(self, node, pos)
                return value is not None and not (type(value) is Squares and not value)
            mark = len(self.pending)
            value = handler(self, node, pos)
            if value is None or (type(value) is Squares and not value):
                del self.pending[mark:]
                return False
            return True
        if not self.keeps_comments:
            return bool(decide(self, node, pos))
        mark = len(self.pending)  # as in _eval_keeping_comments: what a filter that fails said is taken back
        if decide(self, node, pos):
            return True
        del self.pending[mark:]
        return False

    def matches(self, tree: GameTree, only: list[int] | None = None) -> list[int]:
        """Ids of the positions of ``tree`` where the query's body matches, in visit order.

        ``only`` restricts the search to those positions (the planner's candidates): whether
        the body matches at a position never depends on what it did at another one.
        """
        self.tree = tree
        for name in self.game_names:
            self.lasting.pop(name, None)
        self.sort_values = {}
        self.memo = {}
        self.comments = {}
        self.edits = []
        out = []
        body = self.query.body
        positions = tree.positions if only is None else [tree.positions[i] for i in only]
        for pos in positions:
            if self.deadline is not None:
                self.deadline.check()
            self.variables = dict(self.lasting) if self.lasting else {}
            self.pending = []
            self.pending_edits = []
            matched = self.test(body, pos)
            if self.run_names or self.game_names:
                keep_lasting(self)
            if matched:
                out.append(pos.id)
                self.edits += self.pending_edits
                for target, text in self.pending:
                    said = self.comments.setdefault(target, [])
                    if text not in said:
                        said.append(text)
        return out
