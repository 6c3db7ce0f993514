"""CQL 5's relation and its echo transform parameters: SQL against Python on every position of the
filter indexes (see differential.py).

Covers relation, tomove, sourcesquares, targetsquares, match, mismatch, every echo keyword of
seed 001 with CQL 5.2's synonyms and echorotate45, the game-tree parameters (ancestor,
descendant, lcamax, lcasum, lcasource, lcatarget; lcasubstring has its own tests), and the CQL 5
set words on, lightsquares, darksquares. SQL only narrows a relation (a self-join on the game),
so every relation row is narrowed and the evaluator's matches must lie inside the SQL's
candidates; the set words are decided in SQL.
"""

from __future__ import annotations

import pytest

from tests.filters.differential import EXACT, NARROWED, Row, cases, check

TABLE = [
    Row("relation (tomove match) (mismatch 0)", NARROWED),
    Row("relation (mismatch 1 2)", NARROWED),
    Row("relation (tomove match) (sourcesquares [Aa] mismatch 0)", NARROWED),
    Row("relation (tomove mismatch) echoflipvertical (sourcesquares [Kk] mismatch 0)", NARROWED),
    Row("relation (tomove match) echofliphorizontal (sourcesquares [Pp] mismatch 0)", NARROWED),
    Row("relation echoflip (match 60 64)", NARROWED),
    Row("relation echoflipdihedral (mismatch 0)", NARROWED),
    Row("relation echodihedral (sourcesquares [Kk] targetsquares [Kk] mismatch 0)", NARROWED),
    Row("relation (tomove match) echorotate90 (mismatch 0 6)", NARROWED),
    Row("relation (tomove match) echoshift (mismatch 0)", NARROWED),
    Row("relation echoshifthorizontal (sourcesquares a-h2 targetsquares a-h2 mismatch 0)", NARROWED),
    Row("relation echoshiftvertical (sourcesquares [Kk] match 2)", NARROWED),
    Row("K on darksquares relation K on lightsquares (tomove match) echoshift (mismatch 0)", NARROWED),
    Row("wtm relation check (tomove mismatch) (sourcesquares [Pp] mismatch 0)", NARROWED),
    # CQL 5's game-tree parameters, and echorotate45 where it compares no square. echorotate45
    # mapping a square and lcasubstring meeting a null move (the studies have some in their
    # variations) stop the run: tests/test_evaluate_relation_lineage.py
    Row("relation (ancestor) (tomove match) (mismatch 0)", NARROWED),
    Row("relation (descendant) (lcasum 2 4) (sourcesquares [Kk] mismatch 0)", NARROWED),
    Row("relation (lcamax 1 2) (lcasource 1)", NARROWED),
    Row("relation (lcatarget 3) (tomove mismatch)", NARROWED),
    Row("relation echorotate45 (sourcesquares ~. mismatch 0) (tomove match)", NARROWED),
    Row("K on lightsquares", EXACT),
    Row("darksquares & [Qq]", EXACT),
]


@pytest.mark.parametrize("row, cell", cases(TABLE))
def test_sql_against_python(filter_indexes, row: Row, cell: tuple[str, bool]) -> None:
    check(filter_indexes, row, cell)


@pytest.mark.parametrize("query, variations, said", [
    ("relation (tomove match) (mismatch 0)", False,
     "another position of the game (main line); the same side to move; the same board"),
    ("relation (tomove mismatch) echoshift (mismatch 0)", True,
     "another position of the game (any line); the other side to move; the same material (echoshift with no "
     "mismatch); the kings as far apart (a shift)"),
    ("relation check echorotate90 (mismatch 0 2)", False,
     "another position of the game (main line); piece counts within 4 in all (echorotate90, at most 2 "
     "mismatches); the target filters where SQL has them"),
    ("relation echoflip (sourcesquares [Kk] mismatch 0)", False, "another position of the game (main line)"),
])
def test_explain_says_what_sql_narrowed(query: str, variations: bool, said: str) -> None:
    from cqlindex.cql.parser import parse
    from cqlindex.plan.planner import explain, plan

    text = explain(plan(parse(query), variations))
    assert f"narrowed to sources with a target of: {said}\n" in text + "\n"
