"""Piece-on-square tests of one WHERE merged per bitboard, and a complete placement read as equalities.

A piece designator compiles to one test per square, ``(p.wp & <square>) <> 0``, so a position
written out piece by piece (the usual way to look a position up in CQL: every piece, then
``[Aa] == 30``) becomes thirty tests that DuckDB evaluates one by one as general expressions.
Where such tests are ANDed in a WHERE (where only TRUE counts, as in :mod:`cqlindex.plan.truth`):

* the tests of one bitboard become one: all those squares are set, ``(p.wp & M) = M``;
* when the same conjunction also counts every piece on the board, ``bit_count(p.wk | ... | p.bp)
  = N``, and the squares it asks for are N, disjoint between the bitboards, then the board is
  exactly those pieces: each of the twelve bitboards equals its squares (0 for a piece asked
  nowhere). That holds because a square holds one piece, so the bitboards of a position never
  overlap. DuckDB runs a column compared with a constant inside its scan, on compressed data.

Measured on the benchmark's 34 M positions (query c2, a full Najdorf placement): the bare scan
0.50 s as thirty tests, 0.43 merged per bitboard, 0.17 as twelve equalities.
"""

from __future__ import annotations

from sqlglot import exp

from cqlindex.board.squares import to_unsigned
from cqlindex.plan import sql as S
from cqlindex.plan.terms import PIECE_COLUMNS


def merge_placements(select: exp.Select, copy: bool = True) -> exp.Select:
    """``select`` with the piece tests of every WHERE in it (subqueries' too) merged as above,
    in each conjunction of the WHERE's AND and OR (a flipped placement is an OR of two): a copy, or
    with ``copy=False`` ``select`` itself, changed."""
    root = select.copy() if copy else select
    for where in list(root.find_all(exp.Where)):
        where.set("this", _truth(where.this))
    return root


def _truth(e: exp.Expression) -> exp.Expression:
    """``e`` with its conjunctions merged, through OR and parentheses; ``e`` itself if none changed."""
    inner = S.unparen(e)
    if isinstance(inner, exp.Or):
        left, right = _truth(inner.this), _truth(inner.expression)
        if left is inner.this and right is inner.expression:
            return e
        return S.either(S.unparen(left), S.unparen(right))
    if isinstance(inner, exp.And):
        return _merged(e)
    return e


def _merged(condition: exp.Expression) -> exp.Expression:
    given = S.conjuncts(condition)
    terms = [_truth(term) for term in given]
    squares: dict[tuple[str, str], int] = {}  # (table, column) -> the squares its tests ask
    first: dict[tuple[str, str], int] = {}  # -> where the first of its tests stands
    for i, term in enumerate(terms):
        test = _square_test(term)
        if test is not None:
            squares[test[0]] = squares.get(test[0], 0) | test[1]
            first.setdefault(test[0], i)
    if not squares and all(a is b for a, b in zip(terms, given)):
        return condition
    pinned = {table for term in terms if (table := _full_count(term, squares)) is not None}
    written: set[str] = set()  # the pinned boards whose equalities are out
    out: list[exp.Expression] = []
    for i, term in enumerate(terms):
        test = _square_test(term)
        if test is None:
            out.append(term)
            continue
        key = test[0]
        table = key[0]
        if table in pinned:
            if table not in written:  # the board's twelve equalities, where its first test stood
                written.add(table)
                out.extend(exp.EQ(this=S.col(column, table), expression=S.mask(squares.get((table, column), 0)))
                           for column in PIECE_COLUMNS)
        elif first[key] == i:
            out.append(_all_set(key, squares[key]) if squares[key] != test[1] else term)
    if len(out) == len(given) and all(a is b for a, b in zip(out, given)):
        return condition
    result = out[0]
    for term in out[1:]:
        result = S.both(result, term)
    return result


def _square_test(term: exp.Expression) -> tuple[tuple[str, str], int] | None:
    """((table, bitboard column), its square's bit) of ``(T.col & <one square>) <> 0``, else None."""
    if not (isinstance(term, exp.NEQ) and _int(term.expression) == 0):
        return None
    inner = term.this.this if isinstance(term.this, exp.Paren) else term.this
    if not isinstance(inner, exp.BitwiseAnd):
        return None
    column, value = inner.this, _int(inner.expression)
    if not (isinstance(column, exp.Column) and column.name in PIECE_COLUMNS and column.table) or value is None:
        return None
    bits = to_unsigned(value)
    return ((column.table, column.name), bits) if bits.bit_count() == 1 else None


def _full_count(term: exp.Expression, squares: dict[tuple[str, str], int]) -> str | None:
    """The table whose board ``term`` pins down: it says ``bit_count(<its twelve bitboards ORed>) =
    N`` and the squares asked of its bitboards are N and disjoint. Else None."""
    if not isinstance(term, exp.EQ):
        return None
    count, total = term.this, _int(term.expression)
    if total is None:  # N = bit_count(...)
        count, total = term.expression, _int(term.this)
    if isinstance(count, exp.Paren):
        count = count.this
    if not (isinstance(count, exp.Anonymous) and count.name.lower() == "bit_count" and len(count.expressions) == 1):
        return None
    columns = _ored_columns(count.expressions[0])
    if columns is None or total is None:
        return None
    tables = {table for table, _ in columns}
    if len(tables) != 1 or sorted(name for _, name in columns) != sorted(PIECE_COLUMNS):
        return None
    table = tables.pop()
    asked = [bits for (t, _), bits in squares.items() if t == table]
    union = 0
    for bits in asked:
        if union & bits:
            return None  # two pieces asked on one square: no position has it, leave it to the tests
        union |= bits
    return table if union.bit_count() == total else None


def _ored_columns(e: exp.Expression) -> list[tuple[str, str]] | None:
    """The (table, column) operands of an OR chain of columns, or None if anything else is in it."""
    while isinstance(e, exp.Paren):
        e = e.this
    if isinstance(e, exp.BitwiseOr):
        left, right = _ored_columns(e.this), _ored_columns(e.expression)
        return None if left is None or right is None else left + right
    if isinstance(e, exp.Column) and e.table:
        return [(e.table, e.name)]
    return None


def _all_set(key: tuple[str, str], bits: int) -> exp.Expression:
    """``(T.col & M) = M``: every square of ``bits`` holds that piece."""
    return exp.EQ(this=exp.Paren(this=S.band(S.col(key[1], key[0]), S.mask(bits))), expression=S.mask(bits))


def _int(e: exp.Expression) -> int | None:
    """The value of an integer constant as :func:`cqlindex.plan.sql.mask` and ``num`` write it."""
    if isinstance(e, exp.Paren):
        e = e.this
    if isinstance(e, exp.Cast) and e.to.is_type("bigint"):
        e = e.this
    sign = 1
    if isinstance(e, exp.Neg):
        sign, e = -1, e.this
    if isinstance(e, exp.Literal) and not e.is_string and e.this.isdigit():
        return sign * int(e.this)
    return None
