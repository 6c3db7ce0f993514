"""What one declaration in the filter catalogue says, and the shorthand the family files use.

A declaration is one CQL name in one place where it may be written: a filter (anywhere a filter
may stand), a parameter of another filter (``move from``, ``line firstmatch``), or a word of the
``cql(...)`` header. It says what the name parses to, what kind of value it has, whether
cqlindex runs it (or refuses it, and why), how the SQL planner treats it, and the traits the
engines and the rewriter rely on. The engines look behaviour up by AST node; the catalogue ties
each name to its node so that :mod:`cqlindex.filters.catalogue` can check that nothing declared
supported is left without an evaluator or an SQL verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cqlindex.cql import ast
from cqlindex.cql.frozen import Frozen, frozen

SET, NUMBER, POSITION, STRING, LOGICAL, ANY = "set", "number", "position", "string", "logical", "any"

#: How the SQL planner treats a supported filter on its own (checked on its example by a test).
EXACT = "decided in SQL"
NARROWED = "narrowed in SQL"
PYTHON = "decided in Python"

#: Where a name may be written.
FILTER = "filter"  # wherever a filter may stand
HEADER = "cql()"  # a parameter of the cql(...) header
DASH_TARGET = "--(...)"  # a filter only inside a dash's target


@frozen
class Traits(Frozen):
    """What the engines and the rewriter need to know of a filter without running it.

    ``reads_other_positions``: evaluating it may look at other positions of the game than the
    current one (the planner then needs whole game trees, not candidate rows).
    ``pure``: it changes nothing (no variable, sort value, comment or message).
    ``colour_swap``: its image under ``flipcolor``'s colour swap: ``same``, ``negated`` (a signed
    number), ``swapped`` (its arguments are: 'result 1-0', 'player white') or the name it becomes
    (:mod:`cqlindex.query.rewrite` reads these). ``transform``: under a square map, ``same`` (it names no
    square or direction) or ``mapped`` (its squares or directions move with the board).
    """

    reads_other_positions: bool = False
    pure: bool = True
    colour_swap: str = "same"
    transform: str = "same"


PLAIN = Traits()
TREE = Traits(reads_other_positions=True)
SQUARES = Traits(transform="mapped")


@frozen
class Decl(Frozen):
    """One name of CQL in one place, declared once."""

    name: str
    family: str
    node: type[ast.Node] | None  # what it parses to (None: a word that only shapes its filter)
    kind: str  # the value it has: set, number, position, string, logical, any
    description: str
    where: str = FILTER  # FILTER, HEADER, DASH_TARGET, or the filter it is a parameter of
    grammar: str | None = None  # the parser's method for it (None: parsed by its filter or operator level)
    refused: str | None = None  # why cqlindex refuses it (None: supported)
    at_once: bool = False  # refused as soon as it is read (its syntax is not known), not after parsing
    sql: str | None = None  # a supported filter: EXACT, NARROWED or PYTHON; a parameter: None (its filter says)
    traits: Traits = PLAIN
    example: str = ""  # a query using it; a test parses, plans or refuses it as declared
    #: For a filter that is one fact of the position (a flag, a number): its Python value,
    #: ``(evaluator, position) -> value`` (a truth for a logical filter), read by its family's
    #: evaluator; and its SQL over the row alias: an expression, an int (a constant), or None
    #: (true everywhere, no SQL needed), read by its family's SQL.
    python: Callable[[Any, Any], object] | None = None
    sql_of: Callable[[str], object] | None = None

    @property
    def is_filter(self) -> bool:
        """Whether it stands as a filter (not a parameter of another one, nor a header word)."""
        return self.where in (FILTER, DASH_TARGET) and self.node is not None

    @property
    def supported(self) -> bool:
        return self.refused is None

    @property
    def key(self) -> tuple[str, str]:
        return self.where, self.name


def facts(family: str):
    """A declarer of facts of the current position: keywords with their Python value and SQL.

    ``f("check", LOGICAL, "...", lambda ev, pos: pos.is_check, lambda alias: S.col("is_check", alias),
    "check")``: decided in SQL by the expression, in Python by the function; the family's
    ``python.py`` and ``sql.py`` read both from the declaration.
    """

    def fact(name: str, kind: str, description: str, python, sql_of, example: str, **fields) -> Decl:
        return Decl(name, family, ast.Keyword, kind, description, grammar="parse_keyword", sql=EXACT, python=python,
                    sql_of=sql_of, example=example, **fields)

    return fact


def built(build: Callable[[Any, Any, str], object]) -> Callable[[str], object]:
    """A declaration's ``sql_of`` written as ``build(S, exp, alias)``: :mod:`cqlindex.plan.sql` as
    ``S`` and sqlglot's ``exp``, imported when the planner first asks for the SQL. The parser reads
    every declaration on every query, and a query answered from a cached plan or by another engine
    builds no SQL: importing sqlglot here cost each ``cqlindex query`` ~0.1 s (issue 34: start-up)."""

    def sql_of(alias: str) -> object:
        from sqlglot import exp

        from cqlindex.plan import sql as S

        return build(S, exp, alias)

    return sql_of


def column(name: str) -> Callable[[str], object]:
    """The ``sql_of`` of a fact that is a column of the row."""
    return built(lambda S, exp, alias: S.col(name, alias))


def declare(family: str):
    """A shorthand for one family file: ``d = declare("moves")`` then ``d("move", ast.Move, ...)``."""

    def d(name: str, node: type[ast.Node] | None, kind: str, description: str, **fields) -> Decl:
        return Decl(name, family, node, kind, description, **fields)

    return d
