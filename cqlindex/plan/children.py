"""Read a move from the row it leads to: the main-line child's row instead of a join to it.

A move filter in the main line compiles to ``EXISTS (SELECT 1 FROM positions AS q WHERE
q.gamenumber = x.gamenumber AND q.parent = x.positionid AND q.child_index = 0 AND <the move's
columns on q>)``: the move is stored on the row it leads to. DuckDB runs that as a hash join of
``positions`` with itself, and at tens of millions of positions the join is most of a query
like ``wtm move o-o-o`` (issue 16: d2 of the benchmark).

Where the rest of the SELECT asks of ``x`` only what its main-line child's row also says, the
child's rows alone give the answer: the SELECT is read from ``q`` instead, with

* ``x.gamenumber`` = ``q.gamenumber`` and ``x.positionid`` = ``q.parent`` (the link itself),
* ``x.wtm`` = ``NOT q.wtm`` (every move, a null move too, hands the move to the other side),
* ``x.mainline`` = ``q.mainline`` (given ``q.child_index = 0``, which stays a condition, as
  does ``q.parent IS NOT NULL``: a game's first position has no parent, and child_index 0),

and each ``x`` is still found at most once, as it has one main-line child. Any other column of
``x`` (a bitboard, a flag of its own), a join, a grouping or a second source leaves the SELECT
as it was. Nested SELECTs are read first, so a ``find`` of a move (a scalar subquery over
``positions``) is rewritten as well as the query around it.
"""

from __future__ import annotations

from sqlglot import exp

from cqlindex.plan import sql as S

#: What ``x``'s columns are on its main-line child's row ``q``.
_FROM_CHILD = ("gamenumber", "positionid", "wtm", "mainline")


def read_moves_from_children(select: exp.Select) -> exp.Select:
    """``select`` with every SELECT in it that can be read from its main-line children so read."""
    root = select.copy()
    selects = sorted(root.find_all(exp.Select), key=_depth, reverse=True)
    for node in selects:
        rewritten = _from_child(node)
        if rewritten is None:
            continue
        if node is root:
            root = rewritten
        else:
            node.replace(rewritten)
    return root


def _depth(node: exp.Expression) -> int:
    depth = 0
    while node.parent is not None:
        node, depth = node.parent, depth + 1
    return depth


def _source(select: exp.Select) -> exp.Table | None:
    """The SELECT's one table over ``positions``, or None (another table, a join, a grouping)."""
    source = select.args.get("from_") or select.args.get("from")
    if (source is None or select.args.get("joins") or select.args.get("group") or select.args.get("having")
            or select.args.get("distinct") or select.args.get("qualify")):
        return None
    table = source.this
    if not isinstance(table, exp.Table) or table.name != "positions" or not table.alias:
        return None
    return table


def _is_column(e: exp.Expression, table: str, name: str) -> bool:
    return isinstance(e, exp.Column) and e.table == table and e.name == name


def _link(eq: exp.Expression, child: str, x: str) -> str | None:
    """Which link of ``child`` to ``x`` the conjunct ``eq`` is: 'gamenumber', 'parent',
    'child_index', or None."""
    if not isinstance(eq, exp.EQ):
        return None
    for a, b in ((eq.this, eq.expression), (eq.expression, eq.this)):
        if _is_column(a, child, "gamenumber") and _is_column(b, x, "gamenumber"):
            return "gamenumber"
        if _is_column(a, child, "parent") and _is_column(b, x, "positionid"):
            return "parent"
        if _is_column(a, child, "child_index") and isinstance(b, exp.Literal) and b.this == "0" \
                and not b.is_string:
            return "child_index"
    return None


def _child_exists(conjunct: exp.Expression, x: str) -> tuple[exp.Table, list[exp.Expression]] | None:
    """For ``EXISTS (SELECT .. FROM positions AS q WHERE <q linked to x's main-line child> AND
    rest)`` whose rest does not read ``x``: q's table and the rest; else None."""
    if not isinstance(conjunct, exp.Exists) or not isinstance(conjunct.this, exp.Select):
        return None
    inner = conjunct.this
    table = _source(inner)
    if table is None:
        return None
    child = table.alias
    links: set[str] = set()
    rest: list[exp.Expression] = []
    for part in S.conjuncts(inner.args.get("where")):
        link = _link(part, child, x)
        if link is not None and link not in links:
            links.add(link)
        else:
            rest.append(part)
    if links != {"gamenumber", "parent", "child_index"}:
        return None
    if any(c.table == x for part in rest for c in part.find_all(exp.Column)):
        return None
    return table, rest


def _from_child(select: exp.Select) -> exp.Select | None:
    """``select`` read from the main-line child of its row, or None where that does not hold."""
    table = _source(select)
    if table is None:
        return None
    x = table.alias
    conjuncts = S.conjuncts(select.args.get("where"))
    for i, conjunct in enumerate(conjuncts):
        found = _child_exists(conjunct, x)
        if found is not None:
            break
    else:
        return None
    child_table, rest = found
    child = child_table.alias
    others = conjuncts[:i] + conjuncts[i + 1:]
    keep = [exp.EQ(this=exp.column("child_index", table=child), expression=exp.Literal.number(0)),
            exp.Not(this=exp.Is(this=exp.column("parent", table=child), expression=exp.Null()))]  # not a game's start
    where = exp.and_(*(part.copy() for part in [*others, *keep, *rest]))
    out = select.copy()
    out.set("where", exp.Where(this=where))
    out.set("from_" if "from_" in out.args else "from", exp.From(this=child_table.copy()))
    mapped = _mapped(out, x, child)
    if mapped is None:
        return None
    if select.parent is None:  # the plan itself: its rows keep their names (gamenumber, positionid)
        mapped.set("expressions", [e.as_(name) if isinstance(e, exp.Column) and e.name != name else e
                                   for e, name in zip(mapped.expressions, (e.alias_or_name for e in select.expressions))])
    return mapped


def _mapped(select: exp.Select, x: str, child: str) -> exp.Select | None:
    """``select`` with each column of ``x`` written as its child's row says it, or None where a
    column of ``x`` has no such reading."""
    columns = [c for c in select.find_all(exp.Column) if c.table == x]
    if any(c.name not in _FROM_CHILD for c in columns):
        return None
    for column in columns:
        if column.name == "positionid":
            column.replace(exp.column("parent", table=child))
        elif column.name == "wtm":
            column.replace(exp.Paren(this=exp.Not(this=exp.column("wtm", table=child))))
        else:
            column.replace(exp.column(column.name, table=child))
    return select
