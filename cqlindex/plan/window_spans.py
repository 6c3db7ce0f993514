"""Expressions of a few consecutive main-line rows, computed once per row before a window shifts them.

Why: a chain of move steps reads two rows per step, the board before the move and the move's
squares after it, and :mod:`cqlindex.plan.offsets` shifted each of those columns to the chain's
start: ``line --> (move from K --> .) {5,}`` (p11 of the patterns) carried 35 shifted columns,
four per step and a guard per row, and DuckDB copies every shifted column of every row.
Computed here, a step is one column of its first row, ``e``, made from the next row's columns
(``LEAD(x, 1)``) in a subquery of its own, and the chain shifts ``e`` once per step: 18 shifted
columns, and the candidate SQL of p11 on a million positions 0.123 -> 0.055 s on one thread.

An expression of the rows ``k .. k+d`` (``d`` at most :data:`SPAN`) is written by
:func:`cqlindex.plan.offsets._columns` with its columns' tables naming each column's row
(:func:`span_table`); here each part of it that reads one row becomes
that row's value (computed once, as every value the window shifts) read ``LEAD(v, j)`` on, and
the whole is NULL unless each row ``j`` on is the same game's position ``j`` on. The chain reads
a span only where it also reads the span's rows, each guarded by that row's existence, so the
guard here changes nothing where the window's own guards hold; where they fail the NULL is never
taken for a match (a NULL condition selects no row).

Only for the window that streams the index's rows by row id (``LEAD(x, k) OVER ()``): the
portable plan's windows partition by game and are left as they were. And only where a span is
read at several rows (:func:`spans_worth_it`): the subquery is a second pass over every row.
"""

from __future__ import annotations

from sqlglot import exp

from cqlindex.plan import sql as S

#: The prefix of a span's column in the subquery that computes it (``p`` and a number).
PREFIX = "p"


#: Expressions read off one row that are computed there and carried as one column or LEAD/LAG
#: (fewer window columns: ``~(wk | ... | bp)`` is one, not twelve), or, of a span's rows, as
#: one column of its first row. Not ``If``: a CASE's branch is not a value on its own.
_LIFTED = (exp.Binary, exp.Unary, exp.Paren, exp.Case, exp.Func, exp.Predicate)


def liftable(node: exp.Expression) -> bool:
    return isinstance(node, _LIFTED) and not isinstance(node, exp.If)


def rows_read(node: exp.Expression, offsets: dict[str, int], window: str) -> set[int] | None:
    """The offsets of the rows ``node``'s columns come from, or None where one is not a placed
    row's (a subquery's, the window's own, none at all)."""
    if node.find(exp.Exists, exp.Select, exp.Window):
        return None
    tables = {column.table for column in node.find_all(exp.Column)}
    if not tables or window in tables or not tables <= offsets.keys():
        return None
    return {offsets[t] for t in tables}


def near_rows(node: exp.Expression, offsets: dict[str, int], window: str) -> int | None:
    """The first of the rows ``node``'s columns come from, where they are two or more rows at
    most :data:`SPAN` apart."""
    found = rows_read(node, offsets, window)
    if found is None or len(found) < 2:
        return None
    low = min(found)
    return low if max(found) - low <= SPAN else None


#: How far apart the rows of one expression computed as a span may be (a move is two rows).
SPAN = 2


def span_table(source: str, delta: int) -> str:
    """The table name a span's expression gives the columns of its row ``delta`` after its first."""
    return f"{source}_{delta}"


#: Spans pay for the subquery that computes them where one is read at this many rows at least
#: (a repeated step: ``(move from K --> .) {5,}``). d1 of the benchmark, whose move step is read
#: at two rows, took 0.23 s with the steps' columns shifted one by one and 0.29 s with spans.
SPAN_READS = 3


def spans_worth_it(condition: exp.Expression, used, window: str, source: str) -> exp.Expression:
    """``condition`` with the spans (:func:`near_rows`) that do not pay for their subquery read
    again as their rows' columns, each shifted on its own, as they are where spans are not made:
    every span where none is read at :data:`SPAN_READS` rows or more, else those read at one
    row. ``used``: the window's reads (:class:`cqlindex.plan.offsets.Reads`), whose undone
    spans are dropped. (Placing the condition again without spans gives the same plan but for
    the order of its columns, and cost d1 and p17 of the patterns twice their planning.)"""
    reads = [S.key(value) for _, value in used.columns.values() if is_span(value, source)]
    if not reads:
        return condition
    counts = {key: reads.count(key) for key in reads}
    kept = {key for key, n in counts.items() if n >= 2} if max(counts.values()) >= SPAN_READS else set()
    undone = {name: read for name, read in used.columns.items()
              if is_span(read[1], source) and S.key(read[1]) not in kept}
    for name in undone:
        used.drop(name)

    def place(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Column) and node.table == window and node.name in undone:
            offset, value = undone[node.name]
            return exp.Paren(this=_rows_of_span(value, offset, window, source, used))
        return node

    return condition.transform(place, copy=False)


def _rows_of_span(value: exp.Expression, offset: int, window: str, source: str, used) -> exp.Expression:
    """A span's expression, first row ``offset``, as :func:`cqlindex.plan.offsets._columns`
    places it without spans: each part of one row a column of the window, shifted on its own."""

    def place(node: exp.Expression) -> exp.Expression:
        rows = {span_row(column.table, source) for column in node.find_all(exp.Column)}
        if len(rows) != 1:
            return node
        delta = rows.pop()
        if isinstance(node, exp.Column):
            return used.read(offset + delta, S.col(node.name, source), window, node.name)
        if not liftable(node):
            return node
        return used.read(offset + delta, S.on_table(node, source), window)

    return value.copy().transform(place, copy=False)


class Spans:
    """The span expressions a window shifts, each computed once, as a column ``p<i>`` of the
    subquery over ``inner`` (the rows with their values), which the window reads as its rows."""

    def __init__(self, source: str, inner: str, values, place: exp.Expression, ordered: bool = False) -> None:
        self.source, self.inner = source, inner
        self._values = values  # offsets._Values: each row's values, computed once
        self._place = place
        #: Whether the rows come in no order (kept near an anchor: a join): each shift orders them.
        self._ordered = ordered
        self._names: dict[str, tuple[str, exp.Expression]] = {}

    def holds(self, value: exp.Expression) -> bool:
        """Whether ``value`` is a span's expression (a column of a row after its first)."""
        return is_span(value, self.source)

    def column(self, value: exp.Expression, table: str) -> exp.Column:
        key = S.key(value)
        if key not in self._names:
            self._names[key] = (f"{PREFIX}{len(self._names)}", self._computed(value))
        return exp.column(self._names[key][0], table=table)

    def selected(self) -> list[exp.Expression]:
        return [exp.alias_(value, name) for name, value in self._names.values()]

    def __bool__(self) -> bool:
        return bool(self._names)

    def _lead(self, value: exp.Expression, delta: int) -> exp.Expression:
        order = None
        if self._ordered:
            order = exp.Order(expressions=[exp.Ordered(this=self._values.column(self._place, self.inner))])
        return exp.Window(this=exp.Lead(this=value.copy(), offset=_number(delta)), order=order)

    def _computed(self, value: exp.Expression) -> exp.Expression:
        """``value`` over the subquery's rows: each row's part shifted to it, NULL unless every
        row it reads is the same game's next ones."""
        deltas: set[int] = set()

        def read(node: exp.Expression) -> exp.Expression:
            rows = {span_row(column.table, self.source) for column in node.find_all(exp.Column)}
            if len(rows) != 1 or None in rows or not (isinstance(node, exp.Column) or liftable(node)):
                return node
            delta = rows.pop()
            at = self._values.column(S.on_table(node, self.source), self.inner)
            if not delta:
                return at
            deltas.add(delta)
            return self._lead(at, delta)

        computed = value.copy().transform(read, copy=False)
        if not deltas:
            return computed
        place = self._values.column(self._place, self.inner)
        guards = [exp.EQ(this=self._lead(place, delta), expression=exp.Add(this=place.copy(), expression=_number(delta)))
                  for delta in sorted(deltas)]
        guard = guards[0]
        for more in guards[1:]:
            guard = exp.And(this=guard, expression=more)
        return exp.Case(ifs=[exp.If(this=guard, true=exp.Paren(this=computed))])


def _number(value: int) -> exp.Literal:
    return exp.Literal.number(value)


def is_span(value: exp.Expression, source: str) -> bool:
    """Whether ``value`` is a span's expression (its columns name their rows after the first)."""
    return any(span_row(column.table, source) is not None for column in value.find_all(exp.Column))


def span_row(table: str, source: str) -> int | None:
    """The row (after the span's first) a column of ``table`` comes from, or None where
    ``table`` names no span's row."""
    prefix = f"{source}_"
    if not table.startswith(prefix) or not table[len(prefix):].isdigit():
        return None
    return int(table[len(prefix):])
