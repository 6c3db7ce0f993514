"""``A attacks Z`` with Z known when planning: SQL counts only the pieces standing where their
kind reaches Z (filters/sets/sql_reach.py), held to the evaluator on real games with variations.

Each query is answered as the tree-walking evaluator answers it, its SQL candidates hold every
match, and they are fewer than with every piece counted (the reach tables made to say
"everywhere"), so the bound is there and narrows.
"""

from __future__ import annotations

import pytest
from conftest import narrowed_soundly, plan_candidates

from cqlindex.board.reach import ALL
from cqlindex.filters.sets import sql_reach

QUERIES = [
    "#(A attacks d-e4-5) >= 4",                      # the centre under fire
    "flipcolor { #([NB] attacks d-e4-5) >= 3 }",
    "#(a attacks a-h1) >= 3",                        # the first rank
    "N attacks f7",
    "piece x in [RQ] { x attacks d-e7-8 }",          # a piece variable: its domain's colours
    "#(. attacks e4) >= 4",                          # both colours
    "check or #(A attacks f7) >= 3",
]


@pytest.fixture(scope="module")
def db(build_db):
    return build_db("data/annotated/world-matches.pgn")


@pytest.mark.parametrize("query", QUERIES)
def test_a_known_target_narrows_to_pieces_in_reach_and_keeps_every_match(db, query: str, monkeypatch) -> None:
    candidates = narrowed_soundly(db, query, True)
    monkeypatch.setattr(sql_reach, "reach", lambda kind, targets: ALL if targets else 0)
    assert len(candidates) < len(plan_candidates(db, query, True))
