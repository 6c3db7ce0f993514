"""The terms SQL is built from: a condition, a set, a number, each exact or a bound, and the row they are about.

The promise every term keeps is the planner's whole soundness argument (see
:mod:`cqlindex.plan.compile`): an exact term is true exactly where the evaluator matches, a
superset term wherever it matches and maybe elsewhere, and a term without SQL says nothing.
Kept apart from the compiler so that each family's SQL (``cqlindex/filters/<family>/sql.py``)
builds terms without importing the compiler that combines the families.
"""

from __future__ import annotations

from sqlglot import exp

from cqlindex.cql.frozen import Frozen, frozen
from cqlindex.plan import sql as S

PIECE_COLUMNS = ("wk", "wq", "wr", "wb", "wn", "wp", "bk", "bq", "br", "bb", "bn", "bp")
LETTERS = "KQRBNPkqrbnp"
ALL_SQUARES = (1 << 64) - 1


@frozen
class Cond(Frozen):
    """A necessary condition for a filter to match (None: no SQL), exact when also sufficient."""

    sql: exp.Expression | None
    exact: bool


@frozen
class SetTerm(Frozen):
    """A set as a bitboard expression: the set itself (exact) or an upper bound; None: any squares."""

    sql: exp.Expression | None
    exact: bool
    const: int | None = None  # the unsigned value, when known when planning


@frozen
class NumTerm(Frozen):
    """A number as an expression, NULL where CQL has no value; or (``exact`` False) an upper bound of it."""

    sql: exp.Expression
    nullable: bool = False
    const: int | None = None
    exact: bool = True


RESIDUAL = Cond(None, False)
TRUE = Cond(None, True)  # matches everywhere: no SQL needed, and exact
UNBOUNDED = SetTerm(None, False)


@frozen
class Row(Frozen):
    """Where a filter is evaluated: a table alias of ``positions``.

    ``top`` rows have the game row ``g`` beside them; ``linear`` rows are line constituents,
    which see only the move along the line (seed 003), so move filters there are supersets.
    """

    alias: str
    top: bool = False
    linear: bool = False


def any_of(parts: list[Cond]) -> Cond:
    """The disjunction: true if one branch is always true, SQL only if every branch has SQL."""
    if any(p.sql is None and p.exact for p in parts):
        return TRUE
    if any(p.sql is None for p in parts):
        return RESIDUAL
    sql = parts[0].sql
    for part in parts[1:]:
        sql = S.either(sql, part.sql)
    return Cond(sql, all(p.exact for p in parts))


def const(squares: int) -> SetTerm:
    return SetTerm(S.mask(squares), True, squares)
