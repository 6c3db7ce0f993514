"""Small builders of sqlglot expressions, so the compiler reads like the SQL it writes.

Every composite operand is wrapped in parentheses: sqlglot prints a tree as given and leaves
operator precedence to the reader, and the bitwise operators' precedence differs between
engines (the SQL goes to DuckDB now and, transpiled, to Spark later). Bitboards are signed
64-bit integers and are never shifted: a square's bit is a constant, or :func:`bit` of a
square column for the move columns.
"""

from __future__ import annotations

from sqlglot import exp

from cqlindex.board.squares import to_signed

_ATOMS = (exp.Column, exp.Literal, exp.Paren, exp.Boolean, exp.Null, exp.Cast, exp.Exists, exp.Case, exp.Subquery)
_OPERATORS = (exp.Connector, exp.Binary, exp.Unary, exp.Predicate)


def paren(e: exp.Expression) -> exp.Expression:
    """``e`` as an operand: operators in parentheses (in sqlglot AND and OR are functions too)."""
    if isinstance(e, _ATOMS) or not isinstance(e, _OPERATORS):
        return e
    return exp.Paren(this=e)


def col(name: str, table: str) -> exp.Column:
    return exp.column(name, table=table)


def on_table(e: exp.Expression, table: str) -> exp.Expression:
    """A copy of ``e`` with every column read from ``table`` (an expression of one row moved to another alias)."""
    out = e.copy()
    for column in out.find_all(exp.Column):
        column.set("table", exp.to_identifier(table))
    return out


def key(e: exp.Expression) -> str:
    """``e``'s SQL text, to tell equal expressions apart from others (a dict key). Printed without
    the copy sqlglot makes by default: the base dialect changes nothing of an expression of rows
    (columns, arithmetic, CASE, functions) as it prints it, and the copies were a third of the time
    of planning a window (p13 of the patterns: 150 ms a fresh query)."""
    return e.sql(copy=False)


def num(value: int) -> exp.Expression:
    return exp.Literal.number(value) if value >= 0 else exp.Neg(this=exp.Literal.number(-value))


def mask(squares: int) -> exp.Expression:
    """An unsigned bitboard as a signed BIGINT constant (DuckDB reads -2^63 as a wider integer)."""
    value = to_signed(squares)
    if value >= 0:
        return exp.Literal.number(value)
    return exp.Cast(this=num(value), to=exp.DataType.build("BIGINT"))


def text(value: str) -> exp.Literal:
    """A string from the query, as a quoted literal (sqlglot doubles any quote inside)."""
    return exp.Literal.string(value)


def true() -> exp.Boolean:
    return exp.true()


def false() -> exp.Boolean:
    return exp.false()


def bor(*items: exp.Expression) -> exp.Expression:
    out = items[0]
    for item in items[1:]:  # a chain of | reads left to right without parentheses
        out = exp.BitwiseOr(this=out if isinstance(out, exp.BitwiseOr) else paren(out), expression=paren(item))
    return out


def band(a: exp.Expression, b: exp.Expression) -> exp.Expression:
    return exp.BitwiseAnd(this=paren(a), expression=paren(b))


def bnot(a: exp.Expression) -> exp.Expression:
    return exp.BitwiseNot(this=paren(a))


def nonzero(a: exp.Expression) -> exp.Expression:
    return exp.NEQ(this=paren(a), expression=exp.Literal.number(0))


def popcount(a: exp.Expression) -> exp.Expression:
    return exp.func("bit_count", a, copy=False)  # its operand as it is, as exp.And and exp.Or take theirs


def bit(square: exp.Expression) -> exp.Expression:
    """The bitboard of the square in column ``square`` (0 = a1 .. 63 = h8): ``1 << square``, but
    h8's bit is the sign, which a signed shift overflows (DuckDB raises), so it is a constant; a
    CASE evaluates its ELSE only where its WHEN fails. A shift, not ``CAST(POWER(2, x) AS
    BIGINT)``: half the time per row in DuckDB (25 -> 12 ms a million rows), and it is in every
    move filter's SQL; sqlglot writes it for each engine (``SHIFTLEFT`` in Spark)."""
    one = exp.Cast(this=exp.Literal.number(1), to=exp.DataType.build("BIGINT"))
    return exp.Case(ifs=[exp.If(this=exp.EQ(this=square, expression=exp.Literal.number(63)),
                                true=mask(1 << 63))], default=exp.BitwiseLeftShift(this=one, expression=square))


def has(bitboard: exp.Expression, square: exp.Expression) -> exp.Expression:
    """Square column ``square`` is in ``bitboard`` (NULL square: false)."""
    return both(not_null(square), nonzero(band(bitboard, bit(square))))


def cmp(op: str, a: exp.Expression, b: exp.Expression) -> exp.Expression:
    """``a op b``; CQL 6.2's [<] [>] [<=] [>=] compare as < > <= >= do."""
    cls = {"<": exp.LT, "<=": exp.LTE, "==": exp.EQ, ">=": exp.GTE, ">": exp.GT, "!=": exp.NEQ}[op.strip("[]")]
    return cls(this=paren(a), expression=paren(b))


def both(a: exp.Expression | None, b: exp.Expression | None) -> exp.Expression | None:
    """``a AND b``, where None stands for TRUE."""
    if a is None:
        return b
    if b is None:
        return a
    return exp.And(this=_term(a, exp.Or), expression=_term(b, exp.Or))


def either(*items: exp.Expression) -> exp.Expression:
    out = items[0]
    for item in items[1:]:
        out = exp.Or(this=_term(out, exp.And), expression=_term(item, exp.And))
    return out


def _term(e: exp.Expression, wrap: type) -> exp.Expression:
    """An operand of AND / OR: comparisons need no parentheses there, the other connector does."""
    return exp.Paren(this=e) if isinstance(e, wrap) else e


def unparen(e: exp.Expression) -> exp.Expression:
    """``e`` without the parentheses around it."""
    while isinstance(e, exp.Paren):
        e = e.this
    return e


def conjuncts(condition: exp.Expression | None) -> list[exp.Expression]:
    """The terms ANDed at the top of ``condition`` (a WHERE, or what it holds), through the
    parentheses sqlglot's ``where()`` and :func:`both` add; none for no condition."""
    if condition is None:
        return []
    if isinstance(condition, (exp.Where, exp.Paren)):
        return conjuncts(condition.this)
    if isinstance(condition, exp.And):
        return conjuncts(condition.this) + conjuncts(condition.expression)
    return [condition]


def not_null(e: exp.Expression) -> exp.Expression:
    return exp.Not(this=exp.Paren(this=exp.Is(this=paren(e), expression=exp.Null())))


def in_query(e: exp.Expression, query: exp.Select) -> exp.Expression:
    return exp.In(this=paren(e), query=exp.Subquery(this=query))


def negate(a: exp.Expression) -> exp.Expression:
    return exp.Not(this=a if isinstance(a, (exp.Column, exp.Boolean, exp.Paren)) else exp.Paren(this=a))


def definite(a: exp.Expression) -> exp.Expression:
    """``a`` with NULL read as false, so that NOT of it is the evaluator's 'does not match'. Not
    copied: a transform's members are large conditions (Qq-rotations-90-degree's four ``find
    shift`` counts, 48 members each), whose deep copies cost it ~0.3 s a run."""
    return exp.func("coalesce", a, exp.false(), copy=False)
