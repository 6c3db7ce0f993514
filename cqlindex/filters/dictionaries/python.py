"""Dictionaries in the evaluator: a Python dict per dictionary, kept between positions by
:mod:`cqlindex.evaluate.lasting`. A position key is kept by its id (positions of one game)."""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.evaluate.context import Evaluator, evaluates
from cqlindex.evaluate.values import MATCH
from cqlindex.store.trees import Position


def entry_key(value: object) -> object:
    """``value`` as a key of a Python dict (positions by id: they are not hashable)."""
    return ("position", value.id) if isinstance(value, Position) else value


@evaluates(ast.Dictionary)
def declaration(ev: Evaluator, node: ast.Dictionary, pos: Position) -> object:
    return MATCH


@evaluates(ast.Subscript)
def subscript(ev: Evaluator, node: ast.Subscript, pos: Position) -> object:
    table = ev.variables.get(node.name)
    if not isinstance(table, dict):
        return None
    key = ev.eval(node.key, pos)
    if key is None:
        return None
    return table.get(entry_key(key))


@evaluates(ast.SubscriptAssign)
def store(ev: Evaluator, node: ast.SubscriptAssign, pos: Position) -> object:
    key = ev.eval(node.key, pos)
    if key is None:
        return None
    value = ev.eval(node.value, pos)
    if value is None:
        return None
    table = ev.variables.get(node.name)
    if not isinstance(table, dict):
        table = ev.variables[node.name] = {}
    table[entry_key(key)] = value
    return MATCH


def unbind_entry(ev: Evaluator, node: ast.Subscript, pos: Position) -> object:
    """``unbind X[k]``: X holds nothing at k from now on (matches whether or not it did)."""
    table = ev.variables.get(node.name)
    key = ev.eval(node.key, pos)
    if isinstance(table, dict) and key is not None:
        table.pop(entry_key(key), None)
    return MATCH
