"""The planner's own DuckDB dialect prints every plan as sqlglot's DuckDB dialect does.

:mod:`cqlindex.plan.dialect` prints plans with sqlglot's base dialect (told DuckDB's NULL order)
so that a fresh query does not load sqlglot's DuckDB dialect. That holds only while no plan uses
syntax the two print differently: each query the project has (the benchmark, pattern and example
files, the acceptance queries; the parse cases with -m slow) is planned both ways (main line with
row-id windows, and with variations) and the two texts must be equal.
"""

from __future__ import annotations

import json
from functools import cache

import pytest

from conftest import shared_path
from cqlindex.cql.parser import parse
from cqlindex.errors import CqlError
from cqlindex.plan.dialect import DUCKDB, dialect_of, duckdb_sql
from cqlindex.plan.planner import plan

#: Where the queries come from: query files (glob under ../shared) or JSON lines with a "query".
SOURCES = {
    "bench": "bench/*.cql",
    "patterns": "bench/patterns/*.cql",
    "examples": "data/cql-examples/ascii/*.cql",
    "visible": "acceptance/visible.jsonl",
    "relation": "acceptance/relation.jsonl",
    "acceptance-examples": "acceptance/examples.jsonl",
}


@cache
def _texts(source: str) -> tuple[str, ...]:
    pattern = SOURCES.get(source, "acceptance/parse-cases.jsonl")
    if pattern.endswith(".jsonl"):
        lines = shared_path(pattern).read_text().splitlines()
        return tuple(sorted({json.loads(line)["query"] for line in lines if '"query"' in line}))
    folder, glob = pattern.rsplit("/", 1)
    return tuple(path.read_text() for path in sorted(shared_path(folder).glob(glob)))


def _compare(texts) -> int:
    """The number of plans compared; fails on the first that prints differently."""
    compared = 0
    for text in texts:
        try:
            query = parse(text)
            plans = [plan(query, False, rowids=True, material=True), plan(query, True, material=True)]
        except CqlError:
            continue  # a query the reference rejects has no plan to print
        for p in plans:
            assert duckdb_sql(p.select) == p.select.sql(dialect="duckdb"), text
            compared += 1
    return compared


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_every_plan_prints_as_sqlglots_duckdb_dialect_prints_it(source: str) -> None:
    texts = _texts(source)
    assert _compare(texts) >= len(texts)  # most plan; a source where none did would test nothing


@pytest.mark.slow
def test_the_parse_cases_print_the_same_too() -> None:
    assert _compare(_texts("parse-cases")) > 1000


def test_the_dialect_differs_where_it_must_not_be_the_base_one() -> None:
    """Without DuckDB's NULL order the base dialect spells ``NULLS LAST`` in every window: the
    comparison above can fail."""
    from sqlglot import exp

    ordered = exp.select("x").from_("t").order_by(exp.Ordered(this=exp.column("x"), nulls_first=False))
    assert duckdb_sql(ordered) == ordered.sql(dialect="duckdb") == "SELECT x FROM t ORDER BY x"
    assert ordered.sql() == "SELECT x FROM t ORDER BY x NULLS LAST"


@pytest.mark.parametrize(("name", "expected"), [("duckdb", DUCKDB), ("spark", "spark"), ("trino", "trino")])
def test_a_named_dialect_is_sqlglots_but_duckdb(name: str, expected) -> None:
    assert dialect_of(name) == expected
