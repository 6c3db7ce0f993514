"""``A attacks Z`` with Z known when planning, or moving with a king (a king zone): SQL counts
only the pieces standing where their kind reaches Z (filters/sets/sql_reach.py), held to the
evaluator on real games with variations.

Each query is answered as the tree-walking evaluator answers it, its SQL candidates hold every
match, and they are fewer than with every piece counted (the reach tables made to say
"everywhere"), so the bound is there and narrows.
"""

from __future__ import annotations

import duckdb
import pytest
from conftest import narrowed_soundly, plan_candidates

from cqlindex.board.reach import ALL
from cqlindex.board.squares import to_signed
from cqlindex.exec.run import run
from cqlindex.filters.sets import sql_reach
from cqlindex.ingest.pipeline import build
from cqlindex.plan.dialect import duckdb_sql

QUERIES = [
    "#(A attacks d-e4-5) >= 4",                      # the centre under fire
    "flipcolor { #([NB] attacks d-e4-5) >= 3 }",
    "#(a attacks a-h1) >= 3",                        # the first rank
    "N attacks f7",
    "piece x in [RQ] { x attacks d-e7-8 }",          # a piece variable: its domain's colours
    "#(. attacks e4) >= 4",                          # both colours
    "check or #(A attacks f7) >= 3",
    # Z within a king's reach: a table per piece kind, read at the king's square
    "flipcolor { #(A attacks (. attackedby k)) >= 4 }",
    "#([QRN] attacks (. attackedby K)) >= 2",
    "#(A attacks (a attackedby k)) >= 2",            # the king's own defenders under fire
    "#([qrbn] attacks (_ attackedby K)) >= 2",       # empty squares by the king
    "piece x in [NB] { x attacks (_ attackedby k) }",
    "#(A attacks (. attackedby k & a-h7-8)) >= 3",
]


def test_a_king_itself_keeps_the_attack_maps_bound_alone(db, monkeypatch) -> None:
    """Z the king's own square: the attack maps already say check (rare), and a table lookup
    per kind over every row cost more than the candidates it saved (p05 of the patterns)."""
    query = "#(a attacks K) == 2"
    candidates = narrowed_soundly(db, query, True)
    monkeypatch.setattr(sql_reach, "reach", lambda kind, targets: ALL if targets else 0)
    assert candidates == plan_candidates(db, query, True)


@pytest.fixture(scope="module")
def db(build_db):
    return build_db("data/annotated/world-matches.pgn")


@pytest.mark.parametrize("query", QUERIES)
def test_a_known_target_narrows_to_pieces_in_reach_and_keeps_every_match(db, query: str, monkeypatch) -> None:
    candidates = narrowed_soundly(db, query, True)
    monkeypatch.setattr(sql_reach, "reach", lambda kind, targets: ALL if targets else 0)
    assert len(candidates) < len(plan_candidates(db, query, True))


def test_the_king_index_picks_the_entry_of_every_square() -> None:
    """A one-square table read at the king's square gives that square, h8's sign bit included."""
    table = tuple(1 << s for s in range(64))
    read = duckdb_sql(sql_reach.at_king(table, sql_reach.king_index("bk", "p")))
    con = duckdb.connect()
    con.execute("CREATE TABLE p (bk BIGINT)")
    con.executemany("INSERT INTO p VALUES (?)", [(to_signed(1 << s),) for s in range(64)])
    rows = con.execute(f"SELECT p.bk, {read} FROM p AS p").fetchall()
    assert len(rows) == 64 and all(king == found for king, found in rows)


_ODD_KINGS = """[Event "two black kings"]
[SetUp "1"]
[FEN "k7/8/8/8/2N4K/8/8/7k w - - 0 1"]

1. Nd6 *

[Event "no black king"]
[SetUp "1"]
[FEN "8/8/8/8/8/8/8/KR6 w - - 0 1"]

1. Rb2 *

[Event "king on h8"]
[SetUp "1"]
[FEN "7k/8/8/8/8/8/8/K5R1 w - - 0 1"]

1. Rg2 *
"""


def test_a_king_zone_bound_keeps_setups_with_two_kings_or_none(tmp_path) -> None:
    """Where the king's column holds two kings (an impossible setup the index keeps as far as it
    reads), no table entry is a bound: the knight next to one king's zone must still be found
    (read at the index such a column gives, a2's entry, it would not be)."""
    source = tmp_path / "odd.pgn"
    source.write_text(_ODD_KINGS)
    db = tmp_path / "odd.duckdb"
    build([str(source)], db, workers=1)
    query = "#(A attacks (. attackedby k)) >= 1"
    slow = run(db, query, engine="python")
    assert run(db, query).matches == slow.matches == {1: [1], 3: [0, 1]}
    assert {(game, pid) for game, ids in slow.matches.items() for pid in ids} <= plan_candidates(db, query, False)
