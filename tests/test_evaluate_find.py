"""``find`` with a range whose bounds are numeric variables (``v=2 find v check``).

The reference accepts a numeric variable wherever find takes a number of its range; its value
at the position is the bound. Each variable form must find exactly what the literal form finds.
"""

from __future__ import annotations

import pytest

from cqlindex.evaluate.engine import run
from cqlindex.exec.run import run as run_engine
from cqlindex.ingest.pipeline import build

# Checks at positions 1 3 5 7 9 (mate at 9); no variations.
_GAME = ('[Event "t"]\n[Site "?"]\n[Date "2000.01.01"]\n[Round "1"]\n[White "a"]\n[Black "b"]\n[Result "*"]\n'
         '[SetUp "1"]\n[FEN "8/8/8/8/4k3/8/1R6/R6K w - - 0 1"]\n\n'
         "1. Ra4+ Ke5 2. Rb5+ Ke6 3. Ra6+ Ke7 4. Rb7+ Ke8 5. Ra8# *\n")


@pytest.fixture(scope="module")
def ladder(tmp_path_factory):
    root = tmp_path_factory.mktemp("find")
    (root / "ladder.pgn").write_text(_GAME)
    build([str(root / "ladder.pgn")], root / "ladder.duckdb", workers=1)
    return root / "ladder.duckdb"


@pytest.mark.parametrize(("literal", "with_variables", "positions"), [
    ("find 2 3 check", "lo=2 hi=3 find lo hi check", [4, 5, 6, 7]),
    ("find 2 check", "hits=2 find hits check", [6, 7]),
    ("find 4 check", "hits=4 find hits check", [2, 3]),
    # the bound is the variable's value at each position (names such as 'n' would be knights)
    ("ply == 3 find 4 check", "hits=ply+1 find hits check", [3]),
    ("find <-- 1 2 check", "lo=1 find <-- lo 2 check", [1, 2, 3, 4]),
])
def test_find_range_from_variables(ladder, literal: str, with_variables: str, positions: list[int]) -> None:
    expected = run(ladder, literal, variations=False).matches
    assert expected == ({1: positions} if positions else {})
    assert run(ladder, with_variables, variations=False).matches == expected


# A range counts the positions found and matches when the count lies in it, 0 too; 'count' is
# the reference's range of every count ('find count F' in snake-old.cql), so it always matches.
ALL = list(range(10))


@pytest.mark.parametrize("engine", ["python", "sql"])
@pytest.mark.parametrize(("query", "positions"), [
    ("find count check", ALL),
    ("(find count check) == 3", [4, 5]),
    ("(find count check) == 0", []),
    ("find <-- 0 0 check", [0]),
    ("(find <-- count check) == 0", [0]),
    ("find <-- count check", ALL),
    ("find 0 1 check", [8, 9]),
])
def test_a_range_holding_zero(ladder, engine: str, query: str, positions: list[int]) -> None:
    got = run_engine(ladder, query, variations=False, engine=engine).matches
    assert got == ({1: positions} if positions else {})


@pytest.mark.parametrize("variations", [False, True], ids=["mainline", "variations"])
@pytest.mark.parametrize("query", [
    "x = 2 find {#A attacks k >= x}",
    "x = #A find {#A < x}",  # another value at almost every position
    "x = ply find 2 100 {ply == x + 3 or check}",
    "s = A find all {A & s == s}",  # a set
    "x = 2 find <-- {#a == x + 10}",
])
def test_a_body_reading_variables_is_remembered_per_value(build_db, monkeypatch, query: str, variations: bool) -> None:
    """The verdicts of find's body kept per position and per value of the variables it reads give
    what testing it afresh at every position gives."""
    import cqlindex.filters.position.python as position

    db = build_db("data/studies/cql6-sample.pgn")
    query = "gamenumber <= 30 " + query  # without the memo the search is quadratic in a game's length
    remembered = run(db, query, variations=variations).matches
    assert remembered  # the query finds something
    monkeypatch.setattr(position, "_reads", lambda body: None)
    assert run(db, query, variations=variations).matches == remembered
