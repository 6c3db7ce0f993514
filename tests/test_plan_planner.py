"""The planner's output: where each filter is decided, the SQL itself (golden files), quoting, dialects.

The golden files hold the SQL of representative queries of every filter family (the families
of tests/filters), once per dialect: ``plans.sql`` as DuckDB runs it, ``plans.spark.sql`` as
Spark would run it over the Parquet export. A change in what the planner writes shows up in
review as a diff of SQL; the files change only on purpose. Regenerate both after an intended
change with ``CQLINDEX_UPDATE_GOLDEN=1 pytest -p no:xdist tests/test_plan_planner.py``, and
say in the commit why the SQL changed.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import duckdb
import pytest
import sqlglot

from cqlindex.cql.parser import parse
from cqlindex.plan.planner import (
    PYTHON_ONLY,
    PYTHON_OUTPUT,
    SQL_DECIDES,
    SQL_NARROWS,
    explain,
    plan,
)

#: The golden file of each dialect.
GOLDEN = {"duckdb": Path(__file__).parent / "golden" / "plans.sql",
          "spark": Path(__file__).parent / "golden" / "plans.spark.sql"}

#: (query, variations) covering each family the planner compiles (after the first block:
#: logic, output, sequences, variables, tree functions and castling, one representative each).
GOLDEN_QUERIES = [
    ("move capture [qrbn] child : move capture to", False),
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
    ("if check mate else btm", False),
    ("sort \"queens\" #[Qq]", False),
    ("path -- [x]", True),
    ("mate echo (s t) t : check", True),
    ("square x in [Rr] abs(file x - file k) <= 1", False),
    ("piece x in N {x attacks k x attacks [qr]}", False),  # the body narrows, x standing for all of N
    ("distance(lca(currentposition initialposition) currentposition) > 70", True),
    ("pin from B through n to q", False),
    ("K--g1 move o-o", False),
    ("relation (tomove match) (mismatch 0)", False),
    ("relation (mismatch 1 2)", True),
    ("K on darksquares relation K on lightsquares (tomove match) echoshift (mismatch 0)", True),
]

#: Castling where the index holds Chess960 games (its rooks start anywhere).
GOLDEN_CHESS960 = [("K--g1 move o-o", False), ("R--", False)]

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
    ("pin", [SQL_NARROWS], False),                 # a pinned piece is attacked: the attack maps narrow
    ("#(A attacks k) == 0", [PYTHON_ONLY], False),   # a count's bound is never below 0: nothing to say
    ("#(A attacks k) >= #p", [SQL_NARROWS], False),  # ... but #p may exceed it
    ("ray (Q k)", [SQL_NARROWS], False),           # the queen slides: the king is in White's attack map
    ("Q -> b -> k", [PYTHON_ONLY], False),         # an arrow chain: no SQL of its own
    ("line --> check{2,} --> mate", [SQL_NARROWS], False),
    ("line --> check --> mate", [SQL_DECIDES], True),  # main line: the window is the whole line
    ("find mate", [SQL_DECIDES], True),
    ("find 2 5 check", [SQL_NARROWS], False),
    ("sort ply", [PYTHON_OUTPUT], False),           # exact, but sort values come from Python
    ("sort #A >= 3", [PYTHON_OUTPUT], False),
    ("comment \"here\" check", [PYTHON_OUTPUT, SQL_DECIDES], False),
    ("e2--e4 btm", [SQL_DECIDES, SQL_DECIDES], True),
    ("K on darksquares relation (tomove match) echoflip (mismatch 0)", [SQL_DECIDES, SQL_NARROWS], False),
]


def _golden_text(dialect: str) -> str:
    parts = []
    for queries, chess960 in ((GOLDEN_QUERIES, False), (GOLDEN_CHESS960, True)):
        for query, variations in queries:
            p = plan(parse(query), variations, chess960=chess960)
            parts.append(f"-- {query}  [{'variations' if variations else 'main line'}, "
                         f"{'exact' if p.exact else 'candidates'}{', chess960' if chess960 else ''}]\n"
                         f"{p.select.sql(dialect=dialect, pretty=True)};\n")
    return "\n".join(parts)


@pytest.mark.parametrize("dialect", sorted(GOLDEN))
def test_golden_sql(dialect: str) -> None:
    text = _golden_text(dialect)
    golden = GOLDEN[dialect]
    if os.environ.get("CQLINDEX_UPDATE_GOLDEN") == "1":
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(text)
    assert golden.exists(), f"run with CQLINDEX_UPDATE_GOLDEN=1 to create {golden.name}"
    expected = golden.read_text()
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True), golden.name, "now", n=2))
        pytest.fail(f"the planner's {dialect} SQL changed; review, then regenerate (module docstring):\n{diff[:4000]}")


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
def test_spark_sql_means_what_the_duckdb_sql_means(query: str, variations: bool, build_db) -> None:
    """The Spark text, read back as Spark and run on a real index, finds the same positions.

    The golden file pins the Spark text; this pins its meaning: a function or operator that
    sqlglot renders for Spark as something else comes back as something else and finds other rows.
    """
    db = build_db("data/studies/cql6-sample.pgn")
    p = plan(parse(query), variations, chess960=False)
    spark = p.transpile("spark")
    assert spark == p.select.sql(dialect="spark")
    back = sqlglot.transpile(spark, read="spark", write="duckdb")[0]
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute(back).fetchall() == con.execute(p.sql).fetchall()
    finally:
        con.close()


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
                    "material, castling_rights, halfmove_clock, en_passant, null_move, is_check, is_mate, "
                    "is_stalemate, legal_moves, zobrist, white_attacks, black_attacks, pinned, white_attacks_twice, "
                    "black_attacks_twice) VALUES "
                    "(1, 0, 0, 0, 0, true, 0, 0, 1, true, 16, 0, 0, 0, 0, 0, 1152921504606846976, 0, 0, 0, 0, 0, "
                    "0, 0, 0, false, false, false, false, false, 5, 0, 0, 0, 0, 0, 0)")
        assert con.execute(p.sql).fetchall() == [(1, 0)]
        other = plan(parse('player "nobody"'), False)
        assert con.execute(other.sql).fetchall() == []
    finally:
        con.close()


def test_explain_names_each_filter_and_where_it_is_decided() -> None:
    text = explain(plan(parse("check\nline --> check{2,} --> mate\nx = 1"), False))
    assert "SELECT" in text and "p.is_check" in text
    assert "--   1:1  check  -- decided in SQL\n" in text
    assert "2:1  line --> check{2,} --> mate  -- narrowed in SQL, decided in Python (line: narrowed)" in text
    assert "3:1  x = 1  -- decided in Python (=: Python)" in text
    assert "the Python evaluator confirms each candidate" in text


def test_explain_of_an_exact_plan_says_no_python() -> None:
    assert "no Python per position" in explain(plan(parse("mate"), False))


@pytest.mark.parametrize("query, variations", GOLDEN_QUERIES[::3])
def test_explain_is_a_script_that_runs_as_it_is(query: str, variations: bool, tmp_path: Path) -> None:
    """DuckDB runs the printed text unchanged; for Spark it reads back as the plan's one SELECT."""
    from cqlindex.store.schema import create_schema

    p = plan(parse(query), variations)
    con = duckdb.connect(str(tmp_path / "empty.duckdb"))
    try:
        create_schema(con)
        assert con.execute(explain(p)).fetchall() == []
    finally:
        con.close()
    statements = [s for s in sqlglot.parse(explain(p, "spark"), read="spark") if s is not None]
    assert [s.sql(dialect="spark", comments=False) for s in statements] == [p.transpile("spark")]


def test_explain_json_gives_sql_verdicts_and_residual() -> None:
    from cqlindex.plan.planner import explain_data

    p = plan(parse("check\nline --> check{2,} --> mate\nx = 1"), False)
    data = explain_data(p, "trino")
    assert data["sql"] == p.select.sql(dialect="trino", pretty=True) and data["rows"] == "candidates"
    assert [(f["line"], f["cql"], f["verdict"]) for f in data["filters"]] == [
        (1, "check", "decided"), (2, "line --> check{2,} --> mate", "narrowed"), (3, "x = 1", "python")]
    assert data["residual"]["filters"] == ["line --> check{2,} --> mate", "x = 1"]
    assert data["residual"]["query"] == p.query.text
    exact = explain_data(plan(parse("mate"), False))
    assert exact["exact"] and exact["rows"] == "matches" and exact["residual"] is None


@pytest.mark.parametrize("variations", [False, True])
@pytest.mark.parametrize("step", ["line firstmatch --> check and ", "line --> mate or ", "line <-- K and "])
def test_nested_lines_plan_in_size_linear_in_their_depth(step: str, variations: bool) -> None:
    """Each line compiled its leading constituent twice (as a step and as a game-level test), so
    a line nested in a line's constituent doubled the SQL per level (the fuzz test's eleven
    nested lines took past 10 s in DuckDB)."""
    def size(depth: int) -> int:
        return len(plan(parse(step * depth + "check"), variations).sql)

    assert size(10) < 3 * size(5)
