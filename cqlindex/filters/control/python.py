"""``try``, ``loop``, ``while`` and ``assert`` in the evaluator.

``try`` is CQL's abbreviation of ``1 == find <-- quiet all {btm secondary}``: among the current
position and its ancestors, exactly one is reached by a white move that is not the first
continuation of its parent (a white move off the main line of that point: a try in a study).
Counted here directly by walking the parent links, so it does not depend on how ``find`` or
``secondary`` are run.

``loop F`` evaluates F until it fails and matches when F matched at least once, as the
reference manual says. F's outcome depends only on the position and the variables, so a round
that matches and changes no variable would repeat forever: that is reported as an error at the
loop instead of hanging (CQL itself would never end). The query's deadline is checked on every
round for loops that do change something but run too long.

``while (C) F`` tests C, and while it matches evaluates F (whether F matches or not does not
stop the loop); it always matches. When C is a regular-expression match ``x ~~ R``, each test
of C searches after where the previous one matched, so the loop sees every match of R in turn
(``while ("RBNQ" ~~ ".")`` sees R, B, N and Q): that is how CQL iterates over a string. A round
that changes no variable (nor where the search resumes) would repeat forever, and is an error
as it is for ``loop``.

``assert F`` is F where F matches; where it fails, CQL stops the whole run with an error naming
the assertion, and so does cqlindex (a :class:`CqlError` located at the ``assert``).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext

from cqlindex.cql import ast
from cqlindex.errors import CqlError
from cqlindex.evaluate.context import Evaluator, evaluates
from cqlindex.evaluate.values import MATCH
from cqlindex.filters.strings.python import resume_point, resuming
from cqlindex.store.trees import Position


def white_tries_on_the_way(ev: Evaluator, pos: Position) -> int:
    """How many of ``pos`` and its ancestors are reached by a white move that is not primary
    (remembered per position for the game: ``echo`` asks it of every target again and again)."""
    positions, memo = ev.tree.positions, ev.memo
    pending = []  # pos and its ancestors not yet counted, nearest first (a loop: games are deep)
    current: Position | None = pos
    tries = 0
    while current is not None:
        known = memo.get(("try", current.id))
        if known is not None:
            tries = known  # type: ignore[assignment]
            break
        pending.append(current)
        current = positions[current.parent] if current.parent is not None else None
    for node in reversed(pending):
        if node.parent is not None and not node.wtm and positions[node.parent].children[0] != node.id:
            tries += 1
        memo[("try", node.id)] = tries
    return tries


@evaluates(ast.Control)
def control(ev: Evaluator, node: ast.Control, pos: Position) -> object:
    if node.name == "try":
        return MATCH if white_tries_on_the_way(ev, pos) == 1 else None
    if node.name == "loop":
        return MATCH if _repeat(ev, node, lambda: ev.test(node.args[0], pos), lambda: _state(ev)) else None
    if node.name == "while":
        cond, body = node.args
        regex = cond if isinstance(cond, ast.Binary) and cond.op == "~~" else None
        with resuming(ev, regex) if regex is not None else nullcontext():
            _repeat(ev, node, lambda: ev.test(cond, pos) and (ev.test(body, pos) or True),
                    lambda: (_state(ev), resume_point(ev, regex)))
        return MATCH
    if node.name == "cql_abort":  # the reference stops the whole run where it is evaluated
        raise CqlError("cql_abort: the query stops the run here", ev.query.text, node.span, ev.query.source)
    if node.name == "assert":
        if not ev.test(node.args[0], pos):
            raise CqlError("assertion failed: its filter does not match at a position (CQL stops here)",
                           ev.query.text, node.span, ev.query.source)
        return MATCH
    raise ev.unsupported(f"'{node.name}'", node)


def _repeat(ev: Evaluator, node: ast.Control, one_round: Callable[[], bool], state: Callable[[], object]) -> bool:
    """Run ``one_round`` until it says stop; whether it ran a round. A round that goes on
    without changing ``state`` would go on forever: an error at the loop instead of a hang."""
    ran = False
    before = state()
    while one_round():
        ran = True
        after = state()
        if after == before:
            raise CqlError(f"this {node.name} never ends: a round went on without changing any variable",
                           ev.query.text, node.span, ev.query.source)
        before = after
        if ev.deadline is not None:
            ev.deadline.check()
    return ran


def _state(ev: Evaluator) -> dict[str, object]:
    """What a loop's body can read and change: the variables, dictionaries copied (they mutate)."""
    return {name: dict(value) if isinstance(value, dict) else value for name, value in ev.variables.items()}
