"""Merge the EXISTS subqueries that look at the same main-line child into one.

In the main line a move filter, ``child``, ``:`` after it, each compiles to its own ``EXISTS
(SELECT 1 FROM positions AS q WHERE q.gamenumber = x.gamenumber AND q.parent = x.positionid AND
q.child_index = 0 AND <conditions on q>)``, so ``move capture [qrbn] child : move capture to``
(p16 of the pattern benchmark, a capture and its recapture) asks for the same row twice, and
DuckDB joins ``positions`` with itself once per EXISTS: most of the query's time (issue 34).

A position has at most one child of index 0 (children are numbered 0, 1, ... under their
parent), so two such EXISTS ANDed together hold exactly when that one row meets both bodies:
``EXISTS (q1: A) AND EXISTS (q2: B)`` is ``EXISTS (q1: A AND B[q2 := q1])``. It is an identity
(EXISTS is never NULL), so it holds under NOT and in any operand of AND, and the rows a WHERE
selects are the same. The second body's alias is renamed everywhere below it (the compiler's
aliases are unique in a query: a nested subquery of the second that correlates with it follows);
where the first alias is also defined below the second (it never is as compiled), nothing is
merged. With variations a position's children are not one row (no ``child_index = 0`` in the
link), and nothing is merged.
"""

from __future__ import annotations

from sqlglot import exp

from cqlindex.plan import sql as S
from cqlindex.plan.children import _depth, _source  # the same reading of a SELECT over positions


def merge_child_exists(select: exp.Select) -> exp.Select:
    """``select`` with, in every AND of it, the EXISTS over one position's main-line child merged.
    The deepest ANDs first, and again after each merge (the merged body may hold two EXISTS over
    one grandchild), until nothing merges. ``select`` itself is left as it is (copied where
    something merges, returned as it is where nothing does: a copy costs a window's plan more
    than the rest of this)."""
    for chain in select.find_all(exp.And):
        if not isinstance(_up(chain), exp.And) and _merged(S.conjuncts(chain), dry=True) is not None:
            return merge_child_exists_in_place(select.copy())
    return select


def merge_child_exists_in_place(root: exp.Select) -> exp.Select:
    """:func:`merge_child_exists` on ``root`` itself."""
    while True:
        chains = [node for node in root.find_all(exp.And) if not isinstance(_up(node), exp.And)]
        for chain in sorted(chains, key=_depth, reverse=True):
            merged = _merged(S.conjuncts(chain))
            if merged is not None:
                chain.replace(exp.Paren(this=merged) if isinstance(_up(chain), exp.Connector) else merged)
                break
        else:
            return root


def _up(node: exp.Expression) -> exp.Expression | None:
    """The node above ``node`` and any parentheses around it."""
    parent = node.parent
    while isinstance(parent, exp.Paren):
        parent = parent.parent
    return parent


def _merged(terms: list[exp.Expression], dry: bool = False) -> exp.Expression | list | None:
    """The AND of ``terms`` with the EXISTS over the same main-line child merged, or None when
    none are (``dry``: whether some would be, the terms left as they are: ``terms`` or None)."""
    first: dict[str, exp.Select] = {}  # the outer alias -> the first EXISTS's SELECT over its child
    kept: list[exp.Expression] = []
    changed = False
    for term in terms:
        found = _child_of(term)
        if found is None:
            kept.append(term)
            continue
        outer, query = found
        if outer not in first:
            first[outer] = query
            kept.append(term)
            continue
        into = first[outer]
        alias = _source(into).alias
        if any(table.alias == alias for table in query.find_all(exp.Table)):
            kept.append(term)  # the first alias is taken below: renaming would capture it
            continue
        if dry:
            return terms
        renamed = _renamed(query, _source(query).alias, alias)
        body = [c for c in S.conjuncts(renamed.args.get("where")) if not _is_link(c, alias, outer)]
        condition = into.args["where"].this
        for extra in body:
            condition = S.both(condition, extra)
        into.set("where", exp.Where(this=condition))
        changed = True
    if not changed:
        return None
    out = kept[0]
    for term in kept[1:]:
        out = S.both(out, term)
    return out


def _child_of(term: exp.Expression) -> tuple[str, exp.Select] | None:
    """(the outer alias, the SELECT) of ``EXISTS (SELECT ... FROM positions AS q WHERE q is the
    main-line child of the outer row AND ...)``, else None."""
    term = S.unparen(term)
    if not isinstance(term, exp.Exists) or not isinstance(term.this, exp.Select):
        return None
    query = term.this
    source = _source(query)
    if source is None or query.args.get("where") is None:
        return None
    outer = {_outer_of(c, source.alias) for c in S.conjuncts(query.args["where"])} - {None}
    if len(outer) != 1:
        return None
    (found,) = outer
    return (found, query) if _links(query, source.alias, found) else None


def _links(query: exp.Select, alias: str, outer: str) -> bool:
    """Whether the WHERE of ``query`` holds the three conditions that make ``alias`` the main-line
    child of ``outer``."""
    found = {_link_name(c, alias, outer) for c in S.conjuncts(query.args["where"])}
    return {"gamenumber", "parent", "child_index"} <= found


def _link_name(condition: exp.Expression, alias: str, outer: str) -> str | None:
    """Which of the three link conditions ``condition`` is (``alias.gamenumber = outer.gamenumber``,
    ``alias.parent = outer.positionid``, ``alias.child_index = 0``), or None."""
    if not isinstance(condition, exp.EQ) or not _is_column(condition.this, alias):
        return None
    name, right = condition.this.name, condition.expression
    if name == "child_index":
        return name if isinstance(right, exp.Literal) and not right.is_string and right.this == "0" else None
    wanted = {"gamenumber": "gamenumber", "parent": "positionid"}.get(name)
    return name if wanted is not None and _is_column(right, outer) and right.name == wanted else None


def _is_column(e: exp.Expression, table: str) -> bool:
    return isinstance(e, exp.Column) and e.table == table


def _outer_of(condition: exp.Expression, alias: str) -> str | None:
    """``x`` of the link condition ``alias.parent = x.positionid``, else None."""
    if not isinstance(condition, exp.EQ):
        return None
    left, right = condition.this, condition.expression
    if (isinstance(left, exp.Column) and isinstance(right, exp.Column) and left.table == alias
            and left.name == "parent" and right.name == "positionid" and right.table and right.table != alias):
        return right.table
    return None


def _is_link(condition: exp.Expression, alias: str, outer: str) -> bool:
    return _link_name(condition, alias, outer) is not None


def _renamed(query: exp.Select, old: str, new: str) -> exp.Select:
    """``query`` with every column of the table alias ``old`` read from ``new``."""
    copy = query.copy()
    for column in copy.find_all(exp.Column):
        if column.table == old:
            column.set("table", exp.to_identifier(new))
    return copy
