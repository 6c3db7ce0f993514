"""A query plan: the candidate SQL, whether it alone decides the matches, and why, in plain words.

The plan is a sqlglot ``SELECT`` over ``positions`` (joined to ``games`` only when a game tag
is asked for) returning (gamenumber, positionid) in order. When every filter of the body is
exact and none has output for Python to produce (``sort`` values, comments), those rows are
the matches; otherwise they are the candidates the evaluator confirms. :func:`explain` says
which filter went where, so a user can see why a query is fast or slow.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect, Dialects

from cqlindex.cql import ast
from cqlindex.cql.frozen import Frozen, frozen
from cqlindex.errors import InputError
from cqlindex.filters import catalogue
from cqlindex.filters.spec import NARROWED, PYTHON
from cqlindex.plan import sql as S
from cqlindex.plan.children import read_moves_from_children
from cqlindex.filters.relation.sql import narrowing as relation_narrowing
from cqlindex.plan.compile import Compiler
from cqlindex.plan.dialect import dialect_of, duckdb_sql
from cqlindex.plan.offsets import windowed_where
from cqlindex.plan.tidy import tidy
from cqlindex.plan.terms import Row
from cqlindex.plan.placement import merge_placements
from cqlindex.plan.same_child import merge_child_exists
from cqlindex.plan.truth import drop_guards
from cqlindex.plan.window_games import games_first
from cqlindex.query.analyse import reads_other_positions
from cqlindex.query.rewrite import Expansions

SQL_DECIDES = "decided in SQL"
SQL_NARROWS = "narrowed in SQL, decided in Python"
PYTHON_ONLY = "decided in Python"
PYTHON_OUTPUT = "decided in SQL, its output (sort value, comment) made in Python"


@frozen
class Plan(Frozen):
    query: ast.Query
    variations: bool
    select: exp.Select
    exact: bool  # the SELECT's rows are the matches; no Python per position
    row_local: bool  # Python needs only the candidate rows, not whole game trees
    verdicts: tuple[tuple[ast.Node, str], ...]  # each filter of the body and where it is decided
    #: (find body, SELECT of the positions where it may hold), for the evaluator to skip the rest
    prefilters: tuple[tuple[ast.Node, exp.Select], ...] = ()
    #: the SELECT holds a window over the main line (plan/offsets.py): run it a batch of games at a
    #: time (exec/rows.py) so that its memory is the batch's, not the index's
    batched: bool = False

    @property
    def sql(self) -> str:
        return duckdb_sql(self.select)

    def transpile(self, dialect: str) -> str:
        """The same query for another engine that sqlglot speaks (e.g. ``spark`` over Parquet)."""
        return self.select.sql(dialect=dialect_of(dialect))


def plan(query: ast.Query, variations: bool, *, chess960: bool = True, attack_maps: bool = True,
         gamenumbers: tuple[int, int] | None = None, expansions: Expansions | None = None,
         playable_only: bool = False, material: bool = False, rowids: bool = False,
         pins: bool = False, twice: bool = False) -> Plan:
    """Plan ``query`` in one mode.

    ``attack_maps``: the positions have the attack map columns (indexes of schema 1 did not);
    ``material``: they have the packed piece counts (schema 5; an older export does not);
    ``pins``: they have the pieces pinned to their king (schema 6);
    ``twice``: they have the squares two or more pieces of a side attack (schema 7);
    ``rowids``: each game's rows lie consecutive in the index's storage (:mod:`cqlindex.store.rowmap`),
    so main-line windows may stream over row ids: DuckDB SQL for this index, not for another engine;
    ``expansions``: the query's transform members when it was prepared (:mod:`cqlindex.query`),
    else rewritten here. ``chess960`` (whether the index holds Chess960 games) no longer changes
    the plan: since schema 3 the castling rook's squares are stored columns, exact for both.
    ``playable_only``: leave out the games marked unplayable (:mod:`cqlindex.store.playable`).
    """
    del chess960
    compiler = Compiler(variations, attack_maps,
                        expansions if expansions is not None else Expansions(query.body), material=material,
                        rowids=rowids, pins=pins, twice=twice)
    row = Row("p", top=True)
    where: exp.Expression | None = None if variations else S.col("mainline", "p")
    exact = True
    verdicts = []
    for item in query.body.items:
        before = len(compiler.python_needed)
        cond = compiler.cond(item, row)
        where = S.both(where, cond.sql)
        exact = exact and cond.exact
        if cond.exact and len(compiler.python_needed) == before:
            verdicts.append((item, SQL_DECIDES))
        elif cond.exact:
            verdicts.append((item, PYTHON_OUTPUT))
        else:
            verdicts.append((item, SQL_NARROWS if cond.sql is not None else PYTHON_ONLY))
    header = query.header
    if header.result is not None:
        compiler.uses_games = True
        where = S.both(where, exp.EQ(this=exp.func("coalesce", S.col("result", "g"), S.text("")),
                                     expression=S.text(header.result)))
    span = gamenumbers or header.gamenumber
    if span is not None:
        where = S.both(where, exp.Between(this=S.col("gamenumber", "p"), low=S.num(span[0]), high=S.num(span[1])))
    if playable_only:
        where = S.both(where, _in_playable_game())
    select = (exp.select(S.col("gamenumber", "p"), S.col("positionid", "p"))
              .from_(exp.to_table("positions").as_("p")))
    if compiler.uses_games:
        select = select.join(exp.to_table("games").as_("g"),
                             on=exp.EQ(this=S.col("gamenumber", "g"), expression=S.col("gamenumber", "p")))
    if where is not None:
        select = select.where(tidy(where))
    # The plan's own SELECT from here on (where() made it a copy): the steps below that would copy
    # it whole to leave their input as it was are told not to (a rotate90 of a shift: 0.2 s each).
    select = merge_child_exists(select.order_by(S.col("gamenumber", "p"), S.col("positionid", "p"), copy=False))
    select = _other_rows(compiler, select, row)
    prefilters = tuple((body, merge_placements(drop_guards(candidates))) for body, candidates in compiler.prefilters)
    select = games_first(merge_placements(drop_guards(select, copy=False), copy=False))
    return Plan(query, variations, select, exact and not compiler.python_needed,
                not reads_other_positions(query.body), tuple(verdicts), prefilters, compiler.windowed)


def _other_rows(compiler: Compiler, select: exp.Select, row: Row) -> exp.Select:
    """``select`` with its links to the main-line child and parent rows read the cheapest way
    this module knows: from the children's rows alone where that leaves no correlated subquery
    (a move filter: one scan, no join, :mod:`cqlindex.plan.children`), else off one window over
    the main line where :mod:`cqlindex.plan.offsets` can prove it, else as they are (a rewritten
    nested SELECT too). A plan that holds a line's window is not read from children (the
    window's rows are consecutive positions), but its other links may join that window."""
    if compiler.windowed:
        return windowed_where(compiler, select, row)
    read = read_moves_from_children(select)
    if read.find(exp.Exists) is None:
        return read
    windowed = windowed_where(compiler, select, row)
    return windowed if windowed is not select else read


def _in_playable_game() -> exp.Expression:
    """The position's game is not marked unplayable (an unsupported variant, text that is not a game)."""
    unplayable = exp.select(S.col("gamenumber", "u")).from_(exp.to_table("games").as_("u")).where(
        exp.Not(this=S.col("playable", "u")))
    return exp.Not(this=exp.In(this=S.col("gamenumber", "p"), query=unplayable.subquery()))


def _dialect(dialect: str) -> str:
    try:
        Dialect.get_or_raise(dialect)
    except ValueError:
        raise InputError(f"unknown SQL dialect {dialect!r} (sqlglot knows: "
                         f"{', '.join(sorted(d.value for d in Dialects if d.value))})") from None
    return dialect


def explain(p: Plan, dialect: str = "duckdb", postfilter: str | None = None) -> str:
    """The plan as a script that runs as it is in ``dialect``: the explanation in ``--`` comments, then the SQL.

    A user pipes it to another engine's shell (``spark-sql -f``, ``trino --file``) over the tables
    ``cqlindex export`` writes; the comments say which rows are the matches and which filters Python
    still has to decide on them.
    """
    lines = [f"-- cqlindex plan ({_dialect(dialect)} SQL)"]
    if p.exact:
        lines.append("-- Every filter is decided in SQL: the rows below are the matches, no Python per position.")
    else:
        lines.append("-- SQL selects candidate positions; the Python evaluator confirms each candidate.")
        if postfilter:
            lines.append(f"-- Confirmed by {postfilter}.")
    for item in explain_filters(p):
        first, *more = item["where"].split("\n")  # a relation says what it narrowed on lines of their own
        lines.append(f"--   {item['line']}:{item['col']}  {item['text']}  -- {first}")
        lines.extend(f"-- {line.strip()}" for line in more)
    lines.append(p.select.sql(dialect=dialect_of(dialect), pretty=True) + ";")
    return "\n".join(lines)


#: A filter's verdict for programs: decided in SQL, narrowed in SQL (Python confirms), Python only.
VERDICT_WORDS = {SQL_DECIDES: "decided", SQL_NARROWS: "narrowed", PYTHON_ONLY: "python", PYTHON_OUTPUT: "decided"}


def explain_filters(p: Plan) -> list[dict]:
    """Each filter of the body: where it sits in the query, its text, and where it is decided."""
    text = p.query.text
    items = []
    for node, verdict in p.verdicts:
        snippet = " ".join(text[node.span.start:node.span.end].split())
        items.append({"line": node.span.line, "col": node.span.col,
                      "text": snippet if len(snippet) <= 60 else snippet[:57] + "...",
                      "where": verdict + _why(node, verdict, p.variations), "verdict": VERDICT_WORDS[verdict],
                      "output_in_python": verdict == PYTHON_OUTPUT, "cql": " ".join(
                          text[node.span.start:node.span.end].split())})
    return items


def explain_data(p: Plan, dialect: str = "duckdb", postfilter: str | None = None) -> dict:
    """:func:`explain` for programs (``--explain --format json``).

    ``sql`` selects (gamenumber, positionid) in order: the matches when ``exact``, else the
    candidates, on which the evaluator runs the ``residual`` query: the whole CQL query (filters
    have side effects on each other, e.g. variables), of which ``residual.filters`` are the ones SQL
    did not decide. ``row_local``: the residual needs only the candidate rows, not whole games.
    """
    filters = explain_filters(p)
    residual = None
    if not p.exact:
        residual = {"query": p.query.text, "variations": p.variations, "row_local": p.row_local,
                    "confirmed_by": postfilter,
                    "filters": [f["cql"] for f in filters if f["verdict"] != "decided" or f["output_in_python"]]}
    return {"dialect": _dialect(dialect), "sql": p.select.sql(dialect=dialect_of(dialect), pretty=True),
            "exact": p.exact, "rows": "matches" if p.exact else "candidates",
            "filters": [{k: f[k] for k in ("line", "col", "cql", "verdict", "output_in_python", "where")}
                        for f in filters],
            "residual": residual}


def _why(node: ast.Node, verdict: str, variations: bool) -> str:
    """The filters inside ``node`` that the catalogue says SQL only narrows or leaves to Python."""
    if verdict in (SQL_DECIDES, PYTHON_OUTPUT):
        return ""
    named: dict[str, str] = {}
    for inner in ast.walk(node):
        decl = catalogue.declaration_of(inner)
        if decl is not None and decl.sql in (NARROWED, PYTHON):
            named.setdefault(decl.name, "narrowed" if decl.sql == NARROWED else "Python")
    said = f" ({', '.join(f'{name}: {how}' for name, how in named.items())})" if named else ""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Relation):  # what the self-join asks of a target
            said += f"\n      relation at {inner.span.line}:{inner.span.col} narrowed to sources with a target of: " \
                    + "; ".join(relation_narrowing(inner, variations))
    return said
