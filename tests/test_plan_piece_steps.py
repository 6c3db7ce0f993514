"""A piece variable followed along a main-line chain: SQL asks that a piece moving every other
step moves on from where it went (plan/piece_steps.py), held to the evaluator on real games.

Each query is answered as the tree-walking evaluator answers it, its SQL candidates hold every
match, and they are fewer than without the condition, so it is there and narrows. Castling
moves (kings and rooks) and captures of the followed piece are in these games.
"""

from __future__ import annotations

import pytest
from conftest import narrowed_soundly, plan_candidates

from cqlindex.plan import offsets

QUERIES = [
    "piece x in N { line --> (move from x --> .){4,} }",            # p13 of the patterns
    "flipcolor { piece x in [RQ] { line --> (move from x --> .){3} } }",
    "piece x in [KR] { line --> x-- --> . --> x-- --> . --> x-- }",   # castling among them
    "piece x in [rb] { line --> move from x --> . --> move from x capture . }",
    "piece x in [Bb] { line --> check --> move from x --> . --> move from x --> . --> move from x }",
]


@pytest.fixture(scope="module")
def db(build_db):
    return build_db("data/games/otb-twic-01-232games.pgn", "data/games/lichess-474.pgn")


@pytest.mark.parametrize("query", QUERIES)
def test_a_piece_moving_every_other_step_moves_on_from_where_it_went(db, query: str, monkeypatch) -> None:
    candidates = narrowed_soundly(db, query, False)
    monkeypatch.setattr(offsets, "followed_moves", lambda filters, bindings: [])
    assert len(candidates) < len(plan_candidates(db, query, False))
