"""``find`` comparing a number of each position with one of its start (columnar/find_threshold.py),
held to the tree-walker on real games with variations, whatever the number of levels summed at
once (each block of levels sums only the rows its starts' subtrees cover)."""

from __future__ import annotations

import pytest

from cqlindex.columnar import find_threshold
from cqlindex.exec.run import run

QUERIES = [
    "flipcolor { x = power A - power a find quiet 4 (power A - power a >= x + 3) }",  # a count
    "x = power A - power a find (power A - power a <= x - 2)",                        # the first one
    "x = #A find all (#A < x)",
    "x = #[Pp] find 2 100 (#[Pp] <= x - 2)",
    "x = #[Pp] y = find (#[Pp] < x) y",
    "x = #A find 30 200 (#A >= x)",                                                   # the start counts too
    "x = power a y = find (power a <= x) y",                                          # ... and can be the first
    "x = power a find 3 100 (power a > x - 3)",                                     # '>': numbers narrowed
    "x = #A find 2 100 (#A == x - 1)",                                                # '==': numbers as they are
]


@pytest.fixture(scope="module")
def db(build_db):
    return build_db("data/studies/cql6-sample.pgn")


@pytest.fixture(scope="module")
def reference(db):
    """The tree-walker's matches of each query, main line or all lines, found once."""
    found: dict[tuple[str, bool], dict] = {}

    def answer(query: str, variations: bool) -> dict:
        if (query, variations) not in found:
            found[query, variations] = run(db, query, variations=variations, engine="python").matches
        return found[query, variations]

    return answer


@pytest.mark.parametrize("variations", [True, False], ids=["variations", "mainline"])
@pytest.mark.parametrize("levels", [1, 4])
@pytest.mark.parametrize("query", QUERIES)
def test_threshold_find_answers_as_the_tree_walker(db, reference, query: str, levels: int, variations: bool,
                                                   monkeypatch) -> None:
    """Main line alone too: each start's subtree is then the rest of its game."""
    monkeypatch.setattr(find_threshold, "LEVELS_AT_ONCE", levels)
    used = []
    real = find_threshold.find_by_threshold

    def counted(*args, **kwargs):
        answer = real(*args, **kwargs)
        used.append(answer is not None)
        return answer

    monkeypatch.setattr("cqlindex.columnar.kernels_tree.find_by_threshold", counted)
    fast = run(db, query, variations=variations)
    assert any(used)  # the threshold path answered, not the pairs
    assert fast.matches == reference(query, variations)
    assert fast.positions > 0
