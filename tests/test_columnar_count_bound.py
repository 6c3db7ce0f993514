"""``#(A attacks Z)`` compared with a number (columnar/count_bound.py): the exact count only where
the pieces that could reach Z are enough, held to the tree-walker on real games with variations;
and the bound leaves rows out where the comparison has its form and SQL could not bound it first."""

from __future__ import annotations

import pytest

from cqlindex.columnar import count_bound, kernels_logic, kernels_sets
from cqlindex.columnar.kernels_sets import attackers_of
from cqlindex.exec.run import run

#: (query, whether the bound leaves some rows out)
QUERIES = [
    ("#(A attacks (. attackedby q)) >= 3", True),
    ("flipcolor { #(a attacks K) == 2 }", True),           # a double check
    ("#(A attacks (. attackedby q)) == 2", True),         # exactly: three attackers is not two
    ("#(A attacks (. attackedby k)) >= 3", False),        # a king zone: SQL's bound, read at the
    ("#(A attacks (. attackedby k)) == 2", False),        # king's square, left the rest out
    ("2 <= #([QRBN] attacks [qrbn])", True),              # the number first
    ("#(A attacks d-e4-5) > 3", False),                   # Z known when planning: SQL's own bound
    ("#(P attacks a-h6) >= 1", False),                    # (filters/sets/sql_reach.py) left the rest out
    ("#(A attacks (. attackedby k)) <= 2", False),        # from above: the bound says nothing
    ("square s in [qrbn] { #(A attacks s) >= 2 }", False),  # a variable: left as it is
]


@pytest.fixture(scope="module")
def db(build_db):
    return build_db("data/studies/cql6-sample.pgn")


@pytest.mark.parametrize("query, pruned", QUERIES)
def test_a_bounded_count_answers_as_the_tree_walker(db, query: str, pruned: bool, monkeypatch) -> None:
    asked: list[int] = []  # rows of each bounded comparison
    filled: list[int] = []  # rows its fills were run at

    def recorded(cm, node, ctx):
        asked.append(len(ctx))
        answer = count_bound.bounded_count(cm, node, ctx)
        if answer is None:
            asked.pop()
        return answer

    def fills(cm, rows, targets):
        if len(filled) < len(asked):
            filled.append(len(rows))
        return attackers_of(cm, rows, targets)

    monkeypatch.setattr(kernels_logic, "bounded_count", recorded)
    monkeypatch.setattr(kernels_sets, "attackers_of", fills)
    fast = run(db, query, variations=True)
    assert any(rows < total for rows, total in zip(filled, asked)) == pruned
    assert fast.matches == run(db, query, variations=True, engine="python").matches
