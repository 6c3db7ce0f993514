"""The planner's output: where each filter is decided, the SQL itself (golden files), quoting, dialects.

The golden file holds the SQL of a representative query per family, so a change in what the
planner writes shows up in review as a diff of SQL. Regenerate it after an intended change with
``CQLINDEX_UPDATE_GOLDEN=1 pytest tests/test_plan_planner.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import pytest

from cqlindex.cql.parser import parse
from cqlindex.plan.planner import (
    PYTHON_ONLY,
    PYTHON_OUTPUT,
    SQL_DECIDES,
    SQL_NARROWS,
    explain,
    plan,
)

GOLDEN = Path(__file__).parent / "golden" / "plans.sql"

#: (query, variations) covering each family the planner compiles.
GOLDEN_QUERIES = [
    ("Ka1 kh8", False),
    ("[RQ]a-h8 & ~R", False),
    ("#[Aa] <= 8 btm", False),
    ("power A > power a + 3", False),
    ("flipcolor {Q == 0 q == 1}", False),
    ("shiftvertical Pd4", False),
    ("check not mate", True),
    ("A attacks k", False),
    ("_ attackedby a == 0", False),
    ("move from N to f7 capture p", False),
    ("move previous capture q", True),
    ("move promote [RBN]", False),
    ("e2--e4", False),
    ("B[x]h7", False),
    ('result 1-0 player black "O\'Kelly" year >= 1950', False),
    ("parent : check", False),
    ("child(1) : mate", True),
    ("find mate", False),
    ("find mate", True),
    ("find all check >= 20", False),
    ("line --> check --> check", False),
    ("fen \"8/8/8/8/8/8/8/K6k w\"", False),
    ("x = #Q x > 1", False),
]

#: (query, verdict of each body filter, exact plan).
VERDICTS = [
    ("check", [SQL_DECIDES], True),
    ("flip {Ka1 kh8}", [SQL_DECIDES], True),
    ("not check or mate", [SQL_DECIDES], True),
    ("A attacks k", [SQL_DECIDES], True),           # as a condition: k meets White's attack map
    ("Q attacks k", [SQL_NARROWS], False),           # only the queen: narrowed to 'k is attacked'
    ("not Q attacks k", [PYTHON_ONLY], False),       # not of a superset says nothing
    ("check or Q attacks k", [SQL_NARROWS], False),
    ("x = 3", [PYTHON_ONLY], False),
    ("pin", [PYTHON_ONLY], False),
    ("line --> check --> mate", [SQL_NARROWS], False),
    ("find mate", [SQL_DECIDES], True),
    ("find 2 5 check", [SQL_NARROWS], False),
    ("sort ply", [PYTHON_OUTPUT], False),           # exact, but sort values come from Python
    ("sort #A >= 3", [PYTHON_OUTPUT], False),
    ("comment \"here\" check", [PYTHON_OUTPUT, SQL_DECIDES], False),
    ("e2--e4 btm", [SQL_DECIDES, SQL_DECIDES], True),
]


def _golden_text() -> str:
    parts = []
    for query, variations in GOLDEN_QUERIES:
        p = plan(parse(query), variations)
        parts.append(f"-- {query}  [{'variations' if variations else 'main line'}, "
                     f"{'exact' if p.exact else 'candidates'}]\n{p.select.sql(dialect='duckdb', pretty=True)};\n")
    return "\n".join(parts)


def test_golden_sql() -> None:
    text = _golden_text()
    if os.environ.get("CQLINDEX_UPDATE_GOLDEN") == "1":
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(text)
    assert GOLDEN.exists(), "run with CQLINDEX_UPDATE_GOLDEN=1 to create the golden file"
    assert text == GOLDEN.read_text(), "the planner's SQL changed; review, then regenerate the golden file"


@pytest.mark.parametrize("query, verdicts, exact", VERDICTS)
def test_verdicts(query: str, verdicts: list[str], exact: bool) -> None:
    p = plan(parse(query), False)
    assert [v for _, v in p.verdicts] == verdicts
    assert p.exact is exact


@pytest.mark.parametrize("query, variations", GOLDEN_QUERIES)
def test_sql_runs_on_an_empty_index(query: str, variations: bool, tmp_path: Path) -> None:
    """Every golden plan is valid DuckDB over the real schema (types, columns, subqueries)."""
    from cqlindex.store.schema import create_schema

    con = duckdb.connect(str(tmp_path / "empty.duckdb"))
    try:
        create_schema(con)
        assert con.execute(plan(parse(query), variations).sql).fetchall() == []
    finally:
        con.close()


@pytest.mark.parametrize("query, variations", GOLDEN_QUERIES)
def test_transpiles_to_spark(query: str, variations: bool) -> None:
    """The same plan for a distributed engine over the Parquet export (sqlglot writes it)."""
    spark = plan(parse(query), variations).transpile("spark")
    assert spark.startswith("SELECT p.gamenumber, p.positionid FROM positions AS p")


@pytest.mark.parametrize("name", ["O'Kelly", "x' OR 1=1 --", "back\\slash", "\"quoted\"", "日本"])
def test_strings_reach_sql_as_quoted_literals(name: str, tmp_path: Path) -> None:
    """A player name with quotes or SQL in it is a literal: it matches nothing and breaks nothing."""
    from cqlindex.store.schema import create_schema

    escaped = name.replace("\\", "\\\\").replace('"', '\\"')
    p = plan(parse(f'player "{escaped}"'), False)
    con = duckdb.connect(str(tmp_path / "empty.duckdb"))
    try:
        create_schema(con)
        con.execute("INSERT INTO games (gamenumber, white, black) VALUES (1, ?, 'someone')", [name])
        con.execute("INSERT INTO positions (gamenumber, positionid, child_index, children, last_descendant, "
                    "mainline, depth, ply, movenumber, wtm, wk, wq, wr, wb, wn, wp, bk, bq, br, bb, bn, bp, "
                    "castling_rights, halfmove_clock, en_passant, null_move, is_check, is_mate, is_stalemate, "
                    "legal_moves, zobrist, white_attacks, black_attacks) VALUES "
                    "(1, 0, 0, 0, 0, true, 0, 0, 1, true, 16, 0, 0, 0, 0, 0, 1152921504606846976, 0, 0, 0, 0, 0, "
                    "0, 0, false, false, false, false, false, 5, 0, 0, 0)")
        assert con.execute(p.sql).fetchall() == [(1, 0)]
        other = plan(parse('player "nobody"'), False)
        assert con.execute(other.sql).fetchall() == []
    finally:
        con.close()


def test_explain_names_each_filter_and_where_it_is_decided() -> None:
    text = explain(plan(parse("check\nline --> check --> mate\nx = 1"), False))
    assert "SELECT" in text and "p.is_check" in text
    assert "1:1  check  -- decided in SQL\n" in text
    assert "2:1  line --> check --> mate  -- narrowed in SQL, decided in Python (line: narrowed)" in text
    assert "3:1  x = 1  -- decided in Python (=: Python)" in text
    assert "the Python evaluator confirms each candidate" in text


def test_explain_of_an_exact_plan_says_no_python() -> None:
    assert "no Python per position" in explain(plan(parse("mate"), False))
