"""A chain of main-line positions as one ordered pass: LEAD/LAG over (gamenumber, positionid).

Why: a ``line`` (or ``-->`` chain) of single-position steps compiled as nested correlated
EXISTS, one per step and one per move filter inside a step, makes DuckDB build a hash table of
the whole ``positions`` table per level; its memory grew with the data (issue 16: d1, 4.7 GB on
8.5 M positions). In the main line the same rows are reached by position, not by search:
positions are numbered in pre-order with the main continuation first (schema: ``positionid``
as CQL's), so a main-line position ``k`` has its main-line child at ``k + 1`` and its parent at
``k - 1``, and the whole main line of a game is ``0 .. n-1``. A condition on the positions
``k, k+1, ..., k+m`` is then a filter on one row of a window over the main line partitioned by
game and ordered by position: the other rows' columns are ``LEAD(column, j)``, and a row that
does not exist (past the end of the game) reads NULL.

:func:`flatten` proves a compiled condition can be read that way, and rewrites it: every
correlated ``EXISTS (SELECT 1 FROM positions AS q WHERE q.gamenumber = X.gamenumber AND
q.parent = X.positionid AND q.child_index = 0 AND body)`` (the main-line child of X; or
``q.positionid = X.parent``, its parent) becomes ``(row X+1 exists AND body)``, which is the
same truth value wherever it stands (under NOT, OR...), because that row is unique. Anything
else (another subquery, a column of a row it cannot place, a join to ``games``) makes it give
up, and the caller keeps its correlated SQL. Sound only without variations: a variation's
positions are not consecutive, and the window holds the main line alone.

Two callers: a ``line`` chain (:func:`windowed_chain`, its steps at offsets 0, 1, 2...), and the
plan's own WHERE (:func:`windowed_where`, the plan's row at offset 0), whose ``child :``,
``parent :`` and move filters compile to exactly those EXISTS.

The window is computed per batch of games by the executor (:mod:`cqlindex.exec.rows`), which
adds a gamenumber range to every scan of ``positions``: the window's memory is bounded by the
batch, not the index.
"""

from __future__ import annotations

from dataclasses import replace

from sqlglot import exp

from cqlindex.plan import sql as S
from cqlindex.plan.piece_steps import continued, followed_moves
from cqlindex.plan.window_anchor import Anchor, anchored, rare_anchor
from cqlindex.plan.window_guards import farthest_guards
from cqlindex.plan.window_spans import Spans, liftable, near_rows, rows_read, span_table, spans_worth_it

#: An alias of the window's rows in the plan (``w`` and a number): the executor finds them by it.
WINDOW_PREFIX = "w"


class Unplaced(Exception):
    """The condition reads something :func:`flatten` cannot place on the window's rows."""


def _name(offset: int, column: str) -> str:
    return f"{'n' if offset < 0 else 'o'}{abs(offset)}_{column}"


def flatten(condition: exp.Expression, offsets: dict[str, int], window: str,
            used: Reads) -> exp.Expression:
    """``condition`` over the aliases of ``offsets`` (alias -> rows after the chain's start) as a
    condition on the window row ``window``; the (offset, column) pairs it reads go in ``used``.
    Raises :class:`Unplaced` when it cannot."""
    condition = condition.copy()
    if isinstance(condition, exp.Exists):
        return _child_exists(condition, offsets, window, used)
    for node in list(condition.find_all(exp.Exists)):
        if node.find_ancestor(exp.Exists) is None:  # outermost first; inner ones in _child_exists
            node.replace(_child_exists(node, offsets, window, used))
    if condition.find(exp.Select, exp.Subquery):
        raise Unplaced("a subquery other than a main-line child or parent")
    return _columns(condition, offsets, window, used)


def _child_exists(node: exp.Exists, offsets: dict[str, int], window: str,
                  used: Reads) -> exp.Expression:
    select = node.this
    if not isinstance(select, exp.Select) or {k for k, v in select.args.items() if v} - {
            "expressions", "from", "where", "from_"}:
        raise Unplaced("not a plain EXISTS")
    source = select.args.get("from") or select.args.get("from_")
    table = source.this if source is not None else None
    if not isinstance(table, exp.Table) or table.name != "positions" or not table.alias:
        raise Unplaced("not a row of positions")
    alias = table.alias
    where = select.args.get("where")
    conjuncts = list(where.this.flatten()) if where is not None and isinstance(where.this, exp.And) else (
        [where.this] if where is not None else [])
    offset = None
    rest = []
    links = {"gamenumber": None, "child": None, "parent": None, "child_index": None}
    for part in conjuncts:
        link = _link(part, alias, offsets)
        if link is None:
            rest.append(part)
            continue
        kind, value = link
        if links[kind] is not None:
            raise Unplaced(f"two {kind} links")
        links[kind] = value
    if links["gamenumber"] is None:
        raise Unplaced("not the same game")
    if links["child"] is not None and links["child_index"] is not None and links["parent"] is None:
        offset = links["child"] + 1
    elif links["parent"] is not None and links["child"] is None and links["child_index"] is None:
        offset = links["parent"] - 1
    if offset is None:
        raise Unplaced("not the main-line child or parent")
    inner = dict(offsets)
    inner[alias] = offset
    body = S.both(None, None)
    for part in rest:
        body = S.both(body, flatten(part, inner, window, used))
    exists = S.not_null(used.read(offset, S.col("positionid", _source(window)), window, "positionid"))
    return exp.Paren(this=S.both(exists, body) if body is not None else exists)


def _link(part: exp.Expression, alias: str, offsets: dict[str, int]) -> tuple[str, int] | None:
    """Which link of the subquery's row ``alias`` to an outer row ``part`` is, if one."""
    if not isinstance(part, exp.EQ):
        return None
    a, b = part.this, part.expression
    if isinstance(b, exp.Column) and b.table == alias and isinstance(a, exp.Column):
        a, b = b, a
    if not isinstance(a, exp.Column) or a.table != alias:
        return None
    if a.name == "child_index" and isinstance(b, exp.Literal) and b.this == "0":
        return "child_index", 0
    if not isinstance(b, exp.Column) or b.table not in offsets:
        return None
    outer = offsets[b.table]
    pairs = {("gamenumber", "gamenumber"): "gamenumber", ("parent", "positionid"): "child",
             ("positionid", "parent"): "parent"}
    kind = pairs.get((a.name, b.name))
    return (kind, outer) if kind is not None else None


def _columns(condition: exp.Expression, offsets: dict[str, int], window: str, used: Reads) -> exp.Expression:
    """Each column of a placed row as the window's column; an expression of one other row's
    columns alone as one window column. Sound for the lifted expressions too: LEAD(f(x)) and
    f(LEAD(x)) differ only where the row is missing, and every reading of a row is guarded by
    that row's existence (the EXISTS it came from, or the chain's own steps)."""
    source = _source(window)

    def place(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Column) and node.table != window:
            if node.table not in offsets:
                raise Unplaced(f"a column of {node.table or 'no table'}")
            return used.read(offsets[node.table], S.col(node.name, source), window, node.name)
        offset = _one_other_row(node, offsets, window) if liftable(node) else None
        if offset is not None:
            return used.read(offset, S.on_table(node, source), window)
        low = near_rows(node, offsets, window) if used.spans and liftable(node) else None
        if low is not None:  # a step between rows (a move: this board, the next row's squares)
            lifted = node.copy()
            for column in lifted.find_all(exp.Column):
                column.set("table", exp.to_identifier(span_table(source, offsets[column.table] - low)))
            return used.read(low, lifted, window)
        return node

    return condition.transform(place, copy=False)


def _one_other_row(node: exp.Expression, offsets: dict[str, int], window: str) -> int | None:
    """The offset of the one row all of ``node``'s columns come from, if one (0 too: the start
    row's test is one column of the window, not the twelve boards it reads)."""
    found = rows_read(node, offsets, window)
    return found.pop() if found is not None and len(found) == 1 else None


def _source(window: str) -> str:
    return f"{window}src"


class Reads:
    """What the window carries: name -> (offset, expression over the source row), each once."""

    def __init__(self, spans: bool = False) -> None:
        self.columns: dict[str, tuple[int, exp.Expression]] = {}
        self._names: dict[tuple[int, str], str] = {}
        #: Whether an expression of a few consecutive rows is computed once as a column of its
        #: first row (:mod:`cqlindex.plan.window_spans`): only where the window streams the
        #: index's rows by row id, which the portable plan does not.
        self.spans = spans
        #: The rows the window keeps, where the condition implies a rare step (:mod:`cqlindex.plan.window_anchor`).
        self.anchor: Anchor | None = None
        self._made = 0  # reads made, dropped ones too: a new name is never one already given

    def copy(self) -> Reads:
        """Another record with the same reads, for a :func:`flatten` that may give up half way."""
        out = Reads(self.spans)
        out.columns, out._names, out._made = dict(self.columns), dict(self._names), self._made
        return out

    def drop(self, name: str) -> None:
        offset, value = self.columns.pop(name)
        del self._names[(offset, S.key(value))]

    def read(self, offset: int, value: exp.Expression, window: str, name: str | None = None) -> exp.Column:
        key = (offset, S.key(value))
        if key not in self._names:
            self._names[key] = _name(offset, name if name is not None else f"x{self._made}")
            self.columns[self._names[key]] = (offset, value)
            self._made += 1
        return exp.column(self._names[key], table=window)


def window_rows(used: Reads, source: str, by_rowid: bool = False) -> exp.Select:
    """The main line's rows, each with what ``used`` reads of the rows ``offset`` after it.

    ``by_rowid`` (the index keeps each game's main line as consecutive rows in positionid order,
    :mod:`cqlindex.store.rowmap`): the rows ``offset`` on are the stream's, ``LEAD(x, k) OVER ()``,
    which DuckDB computes as the rows stream, without partitioning or sorting them (d1 of the
    benchmark on 34 M positions: 20.0 -> 10.3 s, the same candidates). Only a row's
    ``positionid`` needs a guard that the row ``k`` on is the same game's position ``k`` on (a
    main line is consecutive positionids: pre-order, main continuation first): every reading of
    another row is conjoined with that row's existence (see :func:`_columns`), so the values of
    a row of the next game never count. The guard does not depend on the stream's order either:
    a row ``k`` on elsewhere would be missed, never taken for another.

    Each distinct expression is computed once per row, in a subquery, and the window shifts its
    value: ``LEAD(f(x), k)`` for k = 1 .. 5 made DuckDB compute ``f`` five times a row (p14 of
    the patterns, a material balance held for six plies: its candidate SQL 3.2 -> 0.6 s).
    """
    values = _Values()
    # A row's place as one number, (gamenumber, positionid) in the high and low bits: the row k
    # on is the same game's position k on when its place is this one's plus k, one comparison
    # of one shifted column (it was rowid and gamenumber, each shifted and compared).
    place = exp.Add(this=S.paren(exp.BitwiseLeftShift(this=exp.Cast(this=S.col("gamenumber", source),
                                                                       to=exp.DataType.build("BIGINT")),
                                                        expression=S.num(32))),
                    expression=S.col("positionid", source))
    shown = f"{source}v"  # the subquery's rows, each expression a column
    # Rows kept near an anchor come from a join, which keeps no order: the window orders them.
    ordered = by_rowid and used.anchor is not None
    stream = exp.Order(expressions=[exp.Ordered(this=values.column(place, shown))]) if ordered else None
    spans = Spans(source, f"{source}i", values, place, ordered) if by_rowid else None
    for offset, value in used.columns.values():
        guard = offset and by_rowid and _is_column(value, "positionid")
        if spans is not None and spans.holds(value):
            spans.column(value, shown)
        else:
            values.add(place if guard else value)
    order = exp.Window(partition_by=[S.col("gamenumber", shown)],
                       order=exp.Order(expressions=[exp.Ordered(this=S.col("positionid", shown))]))
    columns = [S.col("gamenumber", shown), S.col("positionid", shown)]
    for name, (offset, value) in used.columns.items():
        guard = offset and by_rowid and _is_column(value, "positionid")
        if offset:
            function = exp.Lead if offset > 0 else exp.Lag

            def shifted(v: exp.Expression) -> exp.Expression:
                if by_rowid:
                    return exp.Window(this=function(this=v.copy(), offset=exp.Literal.number(abs(offset))),
                                      order=stream.copy() if stream is not None else None)
                return exp.Window(this=function(this=v.copy(), offset=exp.Literal.number(abs(offset))),
                                  partition_by=order.args["partition_by"], order=order.args["order"]).copy()

            if guard:  # the main-line row k on is the same game's position k on
                at, here = values.column(place, shown), S.col("positionid", shown)
                value = exp.Case(ifs=[exp.If(
                    this=exp.EQ(this=shifted(at), expression=exp.Add(this=at.copy(), expression=S.num(offset))),
                    true=exp.Add(this=here, expression=S.num(offset)))])
            elif spans is not None and spans.holds(value):
                value = shifted(spans.column(value, shown))
            else:
                value = shifted(values.column(value, shown))
        elif spans is not None and spans.holds(value):
            value = spans.column(value, shown)
        else:
            value = values.column(value, shown)
        columns.append(exp.alias_(value, name))
    if by_rowid:  # the row's own rowid, for the semi-join (chain_exists)
        columns.append(exp.alias_(values.column(S.col("rowid", source), shown), "r"))
    rows = (exp.select(*(S.col(key, source) for key in _KEYS), *values.selected())
            .from_(exp.to_table("positions").as_(source)).where(S.col("mainline", source)))
    if by_rowid and used.anchor is not None:
        rows = anchored(rows, used.anchor, source, place)
    if spans:  # the spans computed over the rows, and the window over both
        inner = spans.inner
        rows = exp.select(*(S.col(key, inner) for key in _KEYS), *(S.col(name, inner) for name in values.names()),
                          *spans.selected()).from_(rows.subquery(inner))
    return exp.select(*columns).from_(rows.subquery(shown))


def _is_column(value: exp.Expression, name: str) -> bool:
    return isinstance(value, exp.Column) and value.name == name


#: The columns every window row carries under their own names.
_KEYS = ("gamenumber", "positionid")


class _Values:
    """The distinct expressions a window shifts, each computed once as a column ``v<i>`` of its subquery."""

    def __init__(self) -> None:
        self._names: dict[str, tuple[str, exp.Expression]] = {}

    def add(self, value: exp.Expression) -> str:
        if isinstance(value, exp.Column) and value.name in _KEYS:
            return value.name  # the subquery selects them as they are
        key = S.key(value)
        if key not in self._names:
            self._names[key] = (f"v{len(self._names)}", value)
        return self._names[key][0]

    def column(self, value: exp.Expression, table: str) -> exp.Column:
        return exp.column(self.add(value), table=table)

    def selected(self) -> list[exp.Expression]:
        return [exp.alias_(value.copy(), name) for name, value in self._names.values()]

    def names(self) -> list[str]:
        return [name for name, _ in self._names.values()]


def chain_exists(condition: exp.Expression, used: Reads, window: str,
                 row_alias: str, by_rowid: bool = False) -> exp.Expression:
    """A window row at ``row_alias``'s position where ``condition`` (already placed on
    ``window``) holds: one semi-join, its build side only the rows that match. ``by_rowid``:
    ``row.rowid IN (the window's matching rows' rowids)``, a join on one key that DuckDB does
    not decorrelate (the correlated EXISTS on (gamenumber, positionid) grouped the outer rows
    first: p14 of the patterns, 0.9 -> 0.5 s); else a correlated ``EXISTS``."""
    rows = window_rows(used, _source(window), by_rowid).subquery(window)
    if by_rowid:
        found = exp.select(S.col("r", window)).from_(rows).where(condition)
        return S.in_query(S.col("rowid", row_alias), found)
    where = S.both(S.both(exp.EQ(this=S.col("gamenumber", window), expression=S.col("gamenumber", row_alias)),
                          exp.EQ(this=S.col("positionid", window), expression=S.col("positionid", row_alias))),
                   condition)
    return exp.Exists(this=exp.select(exp.Literal.number(1)).from_(rows).where(where))


def windowed_chain(compiler, filters: list, row, backward: bool) -> tuple[exp.Expression, bool] | None:
    """``filters[0]`` at ``row``, ``filters[1]`` one main-line position on (back, if ``backward``),
    ...: a condition as one window pass, and whether it is exact (every step is), or None where
    :func:`flatten` cannot prove the rewrite (the caller then keeps its correlated chain). Only
    at the plan's own row, without variations, for two steps or more.

    Each step is compiled as a filter of its own position, not as a line constituent: a
    constituent sees only the line's next position as its child (seed 003), and without
    variations that is the one child the position has, so the two read the same, and a move
    filter's SQL stays exact."""
    return windowed_chains(compiler, [filters], row, backward) if len(filters) >= 2 else None


def windowed_chains(compiler, chains: list[list], row, backward: bool = False,
                    exact_only: bool = False) -> tuple[exp.Expression, bool] | None:
    """:func:`windowed_chain` for any one of ``chains`` from ``row`` (a line whose bounded
    repetition takes one count or another, ``. --> .{0,5} --> mate``: one chain per count), as
    one window: the OR of each chain's condition, exact where every step of every chain is.
    ``exact_only``: None (and nothing left behind) where it would not be exact."""
    from cqlindex.plan.terms import Row

    if compiler.variations or not row.top or not chains:
        return None
    needed, prefilters = len(compiler.python_needed), len(compiler.prefilters)
    aliases = [[compiler._other() for _ in filters] for filters in chains]
    window = f"{WINDOW_PREFIX}{next(compiler._aliases)}"
    used = Reads(compiler.rowids)
    condition = None
    exact = True
    try:
        for filters, names in zip(chains, aliases):
            one, sure = _chain_condition(compiler, filters, names, backward, window, used)
            condition = one if condition is None else S.either(condition, one)
            exact = exact and sure
    except Unplaced:
        exact = None
    if exact is None or exact_only and not exact:
        del compiler.python_needed[needed:], compiler.prefilters[prefilters:]
        return None
    condition = spans_worth_it(farthest_guards(condition, used, window), used, window, _source(window))
    if compiler.rowids:
        used.anchor = rare_anchor(condition, used, window, _source(window))
    compiler.windowed = True  # a range of games at a time: the window reads only that range's rows
    compiler.windows[window] = (condition, used)
    # The first step again at the plan's own row, where it also sees the game's tags (g): kept
    # when it is a test of that row alone (and every chain's first). Not where the window is
    # joined by row id and the step reads the row's columns only: the window tests it already,
    # and a test the scan repeats is no help to the join (p14 of the patterns, material
    # arithmetic on 11 M rows twice: 1.31 -> 0.76 s).
    first = chains[0][0]
    here = compiler.cond(first, replace(row, linear=True)).sql if all(c[0] == first for c in chains) else None
    here = here if here is not None and here.find(exp.Select) is None else None
    if here is not None and compiler.rowids and _reads_only(here, row.alias):
        here = None
    return S.both(here, chain_exists(condition, used, window, row.alias, compiler.rowids)), exact


def _reads_only(node: exp.Expression, alias: str) -> bool:
    """Whether every column ``node`` reads is one of table ``alias``."""
    return all(column.table == alias for column in node.find_all(exp.Column))


def _chain_condition(compiler, filters: list, aliases: list[str], backward: bool, window: str,
                     used: Reads) -> tuple[exp.Expression, bool]:
    """One chain's steps placed on the window row (each step's position existing), and whether
    every step is exact. Raises :class:`Unplaced`."""
    from cqlindex.plan.terms import Row

    offsets = {alias: -k if backward else k for k, alias in enumerate(aliases)}
    condition = None
    exact = True
    for item, alias in zip(filters, aliases):
        step = compiler.cond(item, Row(alias))
        exact = exact and step.exact
        if step.sql is not None:
            condition = S.both(condition, flatten(step.sql, offsets, window, used))
    followed = [] if backward else followed_moves(filters, compiler.bindings)
    if followed:  # a piece that moves every other step moves on from where it went (plan/piece_steps.py)
        rows = [*aliases, compiler._other()]  # the last step's move is on the row after it
        extended = {**offsets, rows[-1]: len(aliases)}
        for k, j in followed:
            condition = S.both(condition, flatten(continued(rows[k + 1], rows[j + 1]), extended, window, used))
    for alias in aliases[1:]:  # every step's position is on the main line
        exists = used.read(offsets[alias], S.col("positionid", _source(window)), window, "positionid")
        condition = S.both(condition, S.not_null(exists))
    return (condition if condition is not None else S.true()), exact  # TRUE: wherever the positions exist


def windowed_where(compiler, select: exp.Select, row) -> exp.Select:
    """``select`` (the plan, over ``positions AS <row>``) with the conjuncts of its WHERE that
    read a main-line child or parent (``child :``, ``parent :``, a move filter, nested in any
    AND, OR, NOT) read off one window over the main line; ``select`` itself where there are
    none, with variations, or where :func:`flatten` gives up on each.

    Why: each such correlated EXISTS made DuckDB join ``positions`` with itself, and the hash
    table grew with the index (p16 of the patterns, a capture and its recapture: 1.7 GB on 11 M
    positions), where the window is one ordered pass, a batch of games at a time. The plan's row
    is the window's offset 0 (it is on the main line: the plan asks for ``mainline``), so a
    conjunct placed on the window row is the same truth value there as at the plan's row
    (:func:`flatten`). A conjunct without such a subquery stays at the plan's row, where DuckDB
    pushes it into its scan; one that :func:`flatten` cannot place stays correlated. (A move
    filter alone is cheaper still read from its children's rows, no join at all: the planner
    asks :mod:`cqlindex.plan.children` first.)
    """
    if compiler.variations or not row.top:
        return select
    source = select.args.get("from_") or select.args.get("from")
    if source is None or not isinstance(source.this, exp.Table) or source.this.alias_or_name != row.alias:
        return select
    window = f"{WINDOW_PREFIX}{next(compiler._aliases)}"
    kept, placed, used = _on_window(select, row.alias, window, compiler.windows, compiler.rowids)
    if placed is None:
        return select
    placed = spans_worth_it(farthest_guards(placed, used, window), used, window, _source(window))
    if compiler.rowids:
        used.anchor = rare_anchor(placed, used, window, _source(window))
    compiler.windowed = True  # a range of games at a time: the window reads only that range's rows
    out = select.copy()
    out.set("where", exp.Where(this=S.both(kept, chain_exists(placed, used, window, row.alias, compiler.rowids))))
    return out


def _on_window(select: exp.Select, alias: str, window: str, windows: dict[str, tuple[exp.Expression, Reads]],
               spans: bool) -> tuple[exp.Expression | None, exp.Expression | None, Reads]:
    """(the conjuncts of ``select``'s WHERE kept at the row ``alias``, the others placed on the
    window ``window``, what the window reads)."""
    used = Reads(spans)
    kept, placed = None, None
    for part in S.conjuncts(select.args.get("where")):
        done = _placed(part, alias, window, used, windows)
        if done is None:
            kept = S.both(kept, part.copy())
        else:
            condition, used = done
            placed = S.both(placed, condition)
    return kept, placed, used


def _placed(part: exp.Expression, alias: str, window: str, used: Reads,
            windows: dict[str, tuple[exp.Expression, Reads]]) -> tuple[exp.Expression, Reads] | None:
    """``part`` (at the row ``alias``) on the window row, with what the window then reads; None
    where it reads no other row through an EXISTS, or :func:`flatten` cannot place it. A line's
    window at the same row (one of ``windows``) is read off this one (:func:`_taken_in`); a
    conjunct that tests the row against two such windows or more is placed for that alone, so
    they are one pass: ``flipcolor { line ... }`` made a window per colour over the whole main
    line, each reading the same rows (p12 of the patterns on the whole gnuchess file, runs in
    turns: 0.57-0.70 -> 0.36-0.48 s; p11 and p13, whose windows are mostly their shifts, the same)."""
    if part.find(exp.Exists) is None and _window_tests(part, alias, windows) < 2:
        return None
    more = used.copy()  # flatten records reads as it goes: a conjunct it gives up on adds none
    try:
        return flatten(_taken_in(part, alias, window, more, windows), {alias: 0}, window, more), more
    except Unplaced:
        return None


def _taken_in(part: exp.Expression, alias: str, window: str, used: Reads,
              windows: dict[str, tuple[exp.Expression, Reads]]) -> exp.Expression:
    """``part`` with each test that the row ``alias`` is a row of a line's window where its
    condition holds (:func:`chain_exists`: ``alias.rowid IN (SELECT w.r ...)``, or a correlated
    EXISTS on the same gamenumber and positionid) replaced by that condition, its reads made
    the window ``window``'s: ``move capture Q line --> . --> .{0,5} --> mate`` (p15 of the
    patterns) is then one window, not a line's window beside a correlated move. Sound because
    a line's window is only made at the plan's own row (:func:`windowed_chains`), which is on
    the main line: the test is the condition at that row, whose offsets are this window's (a
    NULL condition reads NULL, not FALSE, as any placed EXISTS does: :func:`flatten`)."""
    part = part.copy()
    for node in list(part.find_all(exp.In, exp.Exists)):
        inner = _window_of(node, alias)
        if inner in windows:
            condition, reads = windows[inner]
            node.replace(exp.Paren(this=_reread(condition, inner, reads, window, used)))
    return part


def _window_tests(part: exp.Expression, alias: str, windows: dict[str, tuple[exp.Expression, Reads]]) -> int:
    """How many tests of the row ``alias`` against a line's window ``part`` holds."""
    return sum(_window_of(node, alias) in windows for node in part.find_all(exp.In))


def _window_of(node: exp.Expression, alias: str) -> str | None:
    """The alias of the line window that ``node`` tests the row ``alias`` against, if it is such a test."""
    query = node.args.get("query") if isinstance(node, exp.In) else node.this
    select = query.this if isinstance(query, exp.Subquery) else query
    if not isinstance(select, exp.Select):
        return None
    source = select.args.get("from") or select.args.get("from_")
    inner = source.this if source is not None and isinstance(source.this, exp.Subquery) else None
    if inner is None or not inner.alias:
        return None
    w = inner.alias
    if isinstance(node, exp.In):
        this = node.this
        same = isinstance(this, exp.Column) and this.table == alias and this.name == "rowid"
    else:
        links = {(S.key(c.this), S.key(c.expression)) for c in S.conjuncts(select.args.get("where"))
                 if isinstance(c, exp.EQ)}
        same = {(f"{w}.{k}", f"{alias}.{k}") for k in _KEYS} <= links
    return w if same else None


def _reread(condition: exp.Expression, inner: str, reads: Reads, window: str, used: Reads) -> exp.Expression:
    """``condition`` over the window ``inner``'s columns as the same reads of the window ``window``."""
    def place(node: exp.Expression) -> exp.Expression:
        if not isinstance(node, exp.Column) or node.table != inner:
            return node
        if node.name in _KEYS:
            return exp.column(node.name, table=window)
        offset, value = reads.columns[node.name]
        value = value.copy()
        old, new = _source(inner), _source(window)
        for column in value.find_all(exp.Column):  # the value itself too, where it is a column
            # a span's columns name their row after its first (span_table): that stays
            column.set("table", exp.to_identifier(new + column.table[len(old):]))
        return used.read(offset, value, window, value.name if isinstance(value, exp.Column) else None)

    return condition.copy().transform(place, copy=False)
