"""Drop the NULL-as-false guards where only TRUE counts: the conditions of a WHERE.

The compiler writes a filter that may meet NULL (a move column of a game's first position, a
subquery over no rows) as ``COALESCE(cond, FALSE)`` (:func:`cqlindex.plan.sql.definite`), so that
``NOT`` of it means "does not match", as the evaluator says. A WHERE keeps the rows whose condition
is TRUE and drops FALSE and NULL alike, so there, and in the operands of AND and OR under it, the
guard changes nothing, and ``NOT (NOT c)`` is ``c`` anywhere. The guards are not free: DuckDB
pushes ``castle = 2`` into its scan as a comparison with a constant, which skips row groups by
their min/max and is evaluated on compressed vectors, but runs ``COALESCE(castle = 2, FALSE)`` as
a general expression on every row (issue 16: ``wtm move o-o-o`` on 34 M positions, 0.22 -> 0.12 s;
with ``find {btm move o-o}`` 0.53 -> 0.30 s). Below a NOT, or as a value (a SELECT list, a CASE
result), NULL and FALSE differ and nothing is changed.
"""

from __future__ import annotations

from sqlglot import exp

from cqlindex.plan.sql import unparen


def drop_guards(select: exp.Select, copy: bool = True) -> exp.Select:
    """``select`` with every WHERE in it (subqueries' too) read as a truth test: a copy, or with
    ``copy=False`` ``select`` itself, changed (the planner's own SELECT, which nothing else holds)."""
    root = select.copy() if copy else select
    for where in list(root.find_all(exp.Where)):
        where.set("this", _truth(where.this))
    return root


def _truth(e: exp.Expression) -> exp.Expression:
    """``e`` simplified where only whether it is TRUE matters."""
    if isinstance(e, exp.Paren):  # an operand of AND / OR gets the parentheses it needs back (_operand)
        return _truth(e.this)
    if isinstance(e, (exp.And, exp.Or)):
        kind = type(e)
        return kind(this=_operand(_truth(e.this), kind), expression=_operand(_truth(e.expression), kind))
    if isinstance(e, exp.Coalesce) and _false_default(e):
        return _truth(e.this)
    inner = _double_negation(e)
    if inner is not None:
        return _truth(inner)
    return e


def _operand(e: exp.Expression, kind: type) -> exp.Expression:
    """An operand of ``kind`` (AND or OR): the other connector in parentheses, as the compiler writes them."""
    return exp.Paren(this=e) if isinstance(e, exp.Connector) and not isinstance(e, kind) else e


def _false_default(e: exp.Coalesce) -> bool:
    rest = e.expressions
    return len(rest) == 1 and isinstance(rest[0], exp.Boolean) and rest[0].this is False


def _double_negation(e: exp.Expression) -> exp.Expression | None:
    """``c`` of ``NOT (NOT c)`` (three-valued logic keeps NULL as NULL through both), else None."""
    if not isinstance(e, exp.Not):
        return None
    inner = unparen(e.this)
    return unparen(inner.this) if isinstance(inner, exp.Not) else None
