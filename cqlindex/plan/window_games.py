"""Main-line windows that read only the games a condition on the game lets through.

Why: ``result 1-0 line --> (power A - power a <= -2) {6,}`` (p14 of the patterns) ran its
line's window over every main-line position of the index and tested the game's result only on
the rows the window found, where a third of the games can match. Two facts make the window's
own rows enough to leave those games out:

* a window's rows are per game: every value shifted from another row is guarded to the same
  game (:mod:`cqlindex.plan.offsets`), so leaving out whole games changes nothing in the games
  kept;
* a condition G on the ``games`` table that is ANDed, at any level, with the condition that
  reads the window makes every row of a game where G fails false, whatever the window says
  there (under an OR, a NOT or an EXISTS below that AND alike: those rows are false above it).

So each window's source scan gets ``gamenumber IN (SELECT gamenumber FROM games WHERE G)``. The
rows of a semi-join keep no order, so a window that streamed over the rows as stored
(``OVER ()``) orders them by (gamenumber, positionid). p14 on the whole gnuchess file, the plan
as one statement: 2.6 -> 1.4-1.6 s. Only conditions on ``games`` alone move (no position
column, no subquery); nothing else in the plan changes.
"""

from __future__ import annotations

from sqlglot import exp

from cqlindex.plan import sql as S
from cqlindex.plan.offsets import WINDOW_PREFIX


def games_first(select: exp.Select) -> exp.Select:
    """``select`` with each main-line window restricted to the games its game conditions allow
    (changed in place; ``select`` itself where no window has one)."""
    games = _games_alias(select)
    where = select.args.get("where")
    if games is None or where is None:
        return select
    for source in [s for s in where.find_all(exp.Select) if _window_source(s)]:
        guards = _game_conditions(source, where, games)
        if not guards:
            continue
        alias = f"{_alias_of(source)}g"
        condition = None
        for guard in guards:
            condition = S.both(condition, S.on_table(guard, alias))  # its columns are all the game's
        allowed = exp.select(S.col("gamenumber", alias)).from_(exp.to_table("games").as_(alias)).where(condition)
        source.set("where", exp.Where(this=S.both(source.args["where"].this,
                                                  S.in_query(S.col("gamenumber", _alias_of(source)), allowed))))
        _order_streams(_window_query(source))
    return select


def _games_alias(select: exp.Select) -> str | None:
    """The alias the plan joins ``games`` under, or None."""
    for join in select.args.get("joins") or ():
        table = join.this
        if isinstance(table, exp.Table) and table.name == "games" and not table.args.get("db"):
            return table.alias_or_name
    return None


def _from(select: exp.Select) -> exp.From | None:
    return select.args.get("from_") or select.args.get("from")  # the key's name differs across sqlglot releases


def _alias_of(select: exp.Select) -> str:
    return _from(select).this.alias_or_name


def _window_source(select: exp.Select) -> bool:
    """Whether ``select`` is a main-line window's scan: ``FROM positions AS w<n>src WHERE ...``."""
    source = _from(select)
    if source is None or not isinstance(source.this, exp.Table) or source.this.name != "positions":
        return False
    alias = source.this.alias_or_name
    return (alias.startswith(WINDOW_PREFIX) and alias.endswith("src") and alias[len(WINDOW_PREFIX):-3].isdigit()
            and select.args.get("where") is not None and not select.args.get("joins"))


def _game_conditions(node: exp.Expression, top: exp.Expression, games: str) -> list[exp.Expression]:
    """The conditions on ``games`` alone ANDed with ``node`` on its way up to ``top``."""
    found: list[exp.Expression] = []
    child, parent = node, node.parent
    while parent is not None and child is not top:
        if isinstance(parent, exp.And):
            other = parent.expression if child is parent.this else parent.this
            found += [c for c in S.conjuncts(other) if _on_games_alone(c, games)]
        child, parent = parent, parent.parent
    return found


def _on_games_alone(condition: exp.Expression, games: str) -> bool:
    columns = list(condition.find_all(exp.Column))
    return (bool(columns) and all(c.table == games for c in columns)
            and condition.find(exp.Select, exp.Subquery, exp.Exists) is None)


def _window_query(source: exp.Select) -> exp.Expression:
    """The outermost SELECT of the window ``source`` feeds (what the plan's IN or EXISTS reads)."""
    query: exp.Expression = source
    node = source.parent
    while node is not None and not isinstance(node, (exp.In, exp.Exists, exp.Where)):
        if isinstance(node, exp.Select):
            query = node
        node = node.parent
    return query


def _order_streams(query: exp.Expression) -> None:
    """Order every ``OVER ()`` of ``query`` by its rows' (gamenumber, positionid): they came in order
    from the scan before, and come from a semi-join now."""
    for window in list(query.find_all(exp.Window)):
        if window.args.get("partition_by") or window.args.get("order"):
            continue
        name = _alias_of(window.find_ancestor(exp.Select))
        window.set("order", exp.Order(expressions=[exp.Ordered(this=S.col(key, name))
                                                   for key in ("gamenumber", "positionid")]))
