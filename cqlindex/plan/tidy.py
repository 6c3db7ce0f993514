"""The plan's condition made cheaper to evaluate, selecting exactly the same rows.

Why: each filter compiles on its own, so the conjunction of a query's filters repeats itself.
A piece iteration's bound says its domain is not empty and then that the domain meets another
set (``X <> 0 AND (X & Y) <> 0``); nested iterations say it again; a ``flipcolor`` over two
rays that are the same set of squares read both ways gives two identical branches. DuckDB
evaluates every term of every row it scans, and for a query the columnar engine confirms, that
scan is most of the run: on the whole gnuchess file, p02 of the patterns spent 0.51 s of one
thread on its WHERE, 0.29 s once its repeats are gone; p09 0.48 s, 0.16 s once a test of one
column that every branch implies comes first.

Three rewrites, each of which keeps the rows selected, NULLs included (every column a
bitboard test reads is NOT NULL, and each rewrite holds in three-valued logic anyway):

* a conjunct or a branch met twice is kept once;
* ``X <> 0`` goes where ``(X & Y) <> 0`` stands beside it (that one says more);
* where every branch of an OR asks ``(C & Y) <> 0`` of one column C, ``C <> 0`` is asked first:
  a single column's test that rejects most rows before the branches are tried.

Only the boolean structure is walked: a subquery, a CASE or a window is a term, untouched.
"""

from __future__ import annotations

from collections import Counter

from sqlglot import exp

from cqlindex.plan.sql import unparen


def tidy(condition: exp.Expression) -> exp.Expression:
    """``condition`` with the repeats and implied tests gone and a shared column's test first."""
    if isinstance(condition, exp.Paren):
        return exp.Paren(this=tidy(condition.this))
    if isinstance(condition, exp.And):
        kept = _distinct([tidy(term) for term in _chain(condition, exp.And)])
        implied = {_key(operand) for term in kept for operand in _nonzero_operands(term, meet=True)}
        kept = [term for term in kept if not (_is_nonzero(term) and _key(_nonzero_operands(term)[0]) in implied)]
        return _join(kept, exp.And)
    if isinstance(condition, exp.Or):
        branches = _distinct([tidy(branch) for branch in _chain(condition, exp.Or)],
                             key=lambda branch: frozenset(map(_key, _chain(unparen(branch), exp.And))))
        joined = _join(branches, exp.Or)
        shared = _shared_column(branches)
        if shared is None:
            return joined
        test = exp.NEQ(this=shared.copy(), expression=exp.Literal.number(0))
        return exp.And(this=test, expression=exp.Paren(this=joined))
    return condition


def _chain(condition: exp.Expression, kind: type) -> list[exp.Expression]:
    """The terms of a chain of ANDs (ORs), parentheses around a chain of the same kind opened."""
    bare = unparen(condition)
    if isinstance(bare, kind):
        return _chain(bare.this, kind) + _chain(bare.expression, kind)
    return [condition]


def _key(condition: exp.Expression) -> object:
    """What two equal terms have in common: the term without its parentheses, ``&`` and ``|``
    chains as the multisets of their operands (``(A & B) <> 0`` is ``(B & A) <> 0``); sqlglot
    compares and hashes the rest by structure."""
    bare = unparen(condition)
    if isinstance(bare, (exp.BitwiseAnd, exp.BitwiseOr)):
        operands = Counter(_key(operand) for operand in _chain(bare, type(bare)))
        return type(bare).__name__, frozenset(operands.items())
    if _is_nonzero(bare):
        return "nonzero", _key(bare.this)
    return bare


def _distinct(terms: list[exp.Expression], key=_key) -> list[exp.Expression]:
    seen, out = set(), []
    for term in terms:
        k = key(term)
        if k not in seen:
            seen.add(k)
            out.append(term)
    return out


def _join(terms: list[exp.Expression], kind: type) -> exp.Expression:
    wrap = exp.Or if kind is exp.And else exp.And  # a term of the other connector keeps parentheses
    out = terms[0]
    for term in terms[1:]:
        left = exp.Paren(this=out) if isinstance(out, wrap) else out
        right = exp.Paren(this=term) if isinstance(unparen(term), wrap) and not isinstance(term, exp.Paren) else term
        out = kind(this=left, expression=right)
    return out


def _is_nonzero(term: exp.Expression) -> bool:
    bare = unparen(term)
    return isinstance(bare, exp.NEQ) and isinstance(bare.expression, exp.Literal) and bare.expression.this == "0" \
        and not bare.expression.is_string


def _nonzero_operands(term: exp.Expression, meet: bool = False) -> list[exp.Expression]:
    """``[X]`` of a term ``X <> 0``; with ``meet``, ``[A, B]`` of ``(A & B) <> 0`` (both then
    not 0), else nothing."""
    if not _is_nonzero(term):
        return []
    operand = unparen(unparen(term).this)
    if not meet:
        return [operand]
    if isinstance(operand, exp.BitwiseAnd):
        return [unparen(operand.this), unparen(operand.expression)]
    return []


#: Columns no position has 0 in: a side's attack map holds at least its king's squares.
_NEVER_EMPTY = frozenset({"white_attacks", "black_attacks"})


def _shared_column(branches: list[exp.Expression]) -> exp.Column | None:
    """A column C that every branch (two or more) meets with something: ``(C & Y) <> 0`` among
    its conjuncts."""
    if len(branches) < 2:
        return None
    shared: dict[exp.Expression, exp.Column] | None = None
    for branch in branches:
        columns = {operand: operand for term in _chain(unparen(branch), exp.And)
                   for operand in _nonzero_operands(term, meet=True)
                   if isinstance(operand, exp.Column) and operand.name not in _NEVER_EMPTY}
        shared = columns if shared is None else {k: v for k, v in shared.items() if k in columns}
        if not shared:
            return None
    return min(shared.values(), key=lambda column: column.sql())
