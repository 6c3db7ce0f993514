"""A query ready to run: parsed once, the command line's options merged into its header, its
transforms rewritten and its needs analysed, the same for both engines.

CQL's command-line options (``-variations``, ``-gamenumber``, ``-matchcount``) override the
``cql(...)`` header; after :func:`prepare` the header alone says how to run, so nothing
downstream looks at the options again.
"""

from __future__ import annotations

from dataclasses import replace

from cqlindex.cql import ast
from cqlindex.cql.frozen import Frozen, frozen
from cqlindex.cql.idle import idle_value
from cqlindex.cql.limits import simplify
from cqlindex.cql.parser import parse
from cqlindex.errors import CqlSyntaxError
from cqlindex.query.analyse import Analysis, analyse
from cqlindex.query.rewrite import Expansions


@frozen
class Prepared(Frozen):
    """A parsed query with its options merged, its transform members and its analysis."""

    query: ast.Query
    expansions: Expansions
    analysis: Analysis

    @property
    def variations(self) -> bool:
        return bool(self.query.header.variations)

    @property
    def gamenumbers(self) -> tuple[int, int] | None:
        return self.query.header.gamenumber


def parse_body(text: str, source: str = "<query>") -> ast.Query:
    """Parse ``text`` and refuse, as the reference engine does once it has parsed a query, a value
    that is only asked whether it matches (``check or 1``, a label without its ``sort``: cql/idle.py)
    and a variable read after the iteration or echo that bound it (``square x in S F`` then ``x``)."""
    query = parse(text, source)
    if query.unbound:
        span = query.unbound[0]
        name = query.text[span.start:span.end]
        raise CqlSyntaxError(f"'{name}' is read where it holds no value: the iteration or echo that binds it "
                             "has ended", query.text, span, source)
    idle = idle_value(query.body)
    if idle:
        node, what = idle
        raise CqlSyntaxError(f"{what} here is only asked whether it matches, which it always does "
                             "(a 'sort', a comparison or an assignment missing?)", query.text, node.span, source)
    return query


def merge_options(query: ast.Query, *, variations: bool | None = None,
                  gamenumbers: tuple[int, int] | None = None,
                  matchcount: tuple[int, int | None] | None = None) -> ast.Query:
    """``query`` with the options that were given replacing its header's values."""
    header = query.header
    header = replace(header, variations=variations if variations is not None else bool(header.variations),
                     gamenumber=gamenumbers or header.gamenumber, matchcount=matchcount or header.matchcount)
    return replace(query, header=header)


def prepare(text: str, source: str = "<query>", *, variations: bool | None = None,
            gamenumbers: tuple[int, int] | None = None,
            matchcount: tuple[int, int | None] | None = None) -> Prepared:
    """Parse, merge, rewrite and analyse ``text`` once."""
    query = simplify(merge_options(parse_body(text, source), variations=variations, gamenumbers=gamenumbers,
                                   matchcount=matchcount))
    return Prepared(query, Expansions(query.body), analyse(query))
