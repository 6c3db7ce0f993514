"""Tables from AST node type to a function, filled by decorators: the tree-walker's evaluators
and deciders, the columnar engine's kernels and its narrowing rules."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

F = TypeVar("F", bound=Callable)


def registry(table: dict[type, F]) -> Callable[..., Callable[[F], F]]:
    """A decorator factory: ``@made(ast.X, ast.Y)`` files the decorated function in ``table``
    under each node type given, and leaves the function as it is."""

    def by_type(*node_types: type) -> Callable[[F], F]:
        def register(fn: F) -> F:
            for node_type in node_types:
                table[node_type] = fn
            return fn

        return register

    return by_type
