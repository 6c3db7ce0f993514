"""Persistent variables: kept from position to position and game to game, printed at the end.

Counted on a small collection whose totals are known, on both engines (a query with one is
evaluated at every position of every game in order, whatever the engine).
"""

from __future__ import annotations

import pytest

from cqlindex.exec.run import run
from tests.conftest import build_inline

GAMES = {
    # game 1: 4 positions, game 2: 3 positions, no check anywhere
    "two": "1. e4 e5 2. Nf3 *\n\n1. d4 d5 *",
}


@pytest.fixture(scope="module")
def dbs(tmp_path_factory) -> dict[str, object]:
    return build_inline(tmp_path_factory.mktemp("lasting"), GAMES)


# (query, matches, the lines printed at the end)
CASES = [
    ("persistent cnt += 1 false", {}, ["cnt = 7"]),
    ("persistent cnt += 1 cnt > 5", {2: [1, 2]}, ["cnt = 7"]),  # counts on across games
    ("persistent quiet cnt += 1 cnt <= 2", {1: [0, 1]}, []),  # quiet: not printed
    ("if initial persistent games += 1 if check persistent checks += 1", {1: [0, 1, 2, 3], 2: [0, 1, 2]},
     ["games = 2", "checks = 0"]),  # a count that never ran is 0
    ("persistent total += #P total == 32", {1: [3]}, ["total = 56"]),  # 8 white pawns a position
    ("persistent last = ply false", {}, ["last = 2"]),
]


@pytest.mark.parametrize(("query", "matches", "printed"), CASES)
def test_case(dbs, query: str, matches: dict, printed: list[str]) -> None:
    for engine in ("sql", "python"):
        result = run(dbs["two"], query, engine=engine)
        assert result.matches == matches, engine
        assert result.messages == printed, engine
