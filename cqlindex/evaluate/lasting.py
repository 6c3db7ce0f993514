"""Variables that outlive the position they are set at: ``persistent`` ones and dictionaries.

The evaluator starts every position with no variables, so that whether a position matches
depends on that position alone (what lets the SQL planner hand it candidates only). CQL's
``persistent`` variables and dictionaries break that on purpose: a persistent variable keeps
its value from position to position and from game to game (and is printed at the end), a
dictionary keeps its entries likewise, and a ``local`` dictionary keeps them for the rest of
its game only. The evaluator keeps their values here between positions: it starts each
position with them and takes them back afterwards (whatever the position's verdict: an
assignment made by a filter that then fails stays made, as in CQL). A query with any of them
is evaluated at every position of every game, in order (:func:`keeps_state`).
"""

from __future__ import annotations

from typing import Any

from cqlindex.board.squares import SQUARE_NAMES, squares_of
from cqlindex.cql import ast
from cqlindex.evaluate.values import MATCH, Squares

Evaluator = Any  # cqlindex.evaluate.context.Evaluator, which imports this module


def lasting_names(query: ast.Query) -> tuple[frozenset[str], frozenset[str]]:
    """The names kept for the whole run, and the names kept for one game (local dictionaries)."""
    run: set[str] = set()
    game: set[str] = set()
    for node in ast.walk(query.body):
        if isinstance(node, ast.Lasting):
            run.add(node.assign.name)
        elif isinstance(node, ast.Dictionary):
            (game if node.local else run).add(node.name)
    return frozenset(run), frozenset(game - run)


def initial_values(query: ast.Query) -> dict[str, object]:
    """Numeric persistent variables start at 0 (a count with ``+=`` that never ran is 0)."""
    from cqlindex.cql.kinds import NUMBER, kind_of

    return {node.assign.name: 0 for node in ast.walk(query.body)
            if isinstance(node, ast.Lasting) and kind_of(node.assign.value) == NUMBER}


def keeps_state(query: ast.Query) -> bool:
    """Whether a position's verdict may depend on other positions through lasting variables."""
    run, game = lasting_names(query)
    return bool(run or game)


def keep_lasting(ev: Evaluator) -> None:
    """After a position: take back the lasting variables' values (an unbound one is dropped)."""
    for names in (ev.run_names, ev.game_names):
        for name in names:
            if name in ev.variables:
                ev.lasting[name] = ev.variables[name]
            else:
                ev.lasting.pop(name, None)


def persistent_report(ev: Evaluator) -> list[str]:
    """The lines printed after the last game: each persistent variable that is not quiet, with
    its value, in the order of the query's text."""
    lines = []
    seen: set[str] = set()
    for node in ast.walk(ev.query.body):
        if isinstance(node, ast.Lasting) and node.assign.name not in seen:
            seen.add(node.assign.name)
            if any(isinstance(n, ast.Lasting) and n.quiet and n.assign.name == node.assign.name
                   for n in ast.walk(ev.query.body)):
                continue
            if node.assign.name in ev.lasting:
                lines.append(f"{node.assign.name} = {describe_value(ev.lasting[node.assign.name])}")
    return lines


def describe_value(value: object) -> str:
    """A value as the end-of-run report writes it: numbers and strings as they are, squares by
    name, a position by its id, a dictionary as its entries."""
    if type(value) is Squares:
        return "[" + ",".join(SQUARE_NAMES[sq] for sq in squares_of(value)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{describe_value(k)}: {describe_value(v)}" for k, v in value.items()) + "}"
    if value is MATCH:
        return "true"
    if hasattr(value, "ply") and hasattr(value, "id"):
        return f"position {value.id}"
    return str(value)
