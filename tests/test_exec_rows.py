"""The plan's rows fetched without ORDER BY: grouped per game in (gamenumber, positionid) order
whatever order DuckDB yields them in."""

from __future__ import annotations

import random

import duckdb
import pytest
from sqlglot import exp

from cqlindex.exec import rows as rows_module
from cqlindex.exec.rows import grouped


def _select() -> exp.Select:
    return (exp.select("p.gamenumber", "p.positionid").from_(exp.to_table("positions").as_("p"))
            .where("p.positionid % 3 <> 1").order_by("p.gamenumber", "p.positionid"))


def _table(rows: list[tuple[int, int]]) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("CREATE TABLE positions (gamenumber INTEGER, positionid INTEGER)")
    con.executemany("INSERT INTO positions VALUES (?, ?)", rows)
    return con


@pytest.mark.parametrize("head", [rows_module.HEAD, 5, None], ids=["tuples", "head-then-numpy", "numpy-loaded"])
@pytest.mark.parametrize("games", [40, 6000])
def test_rows_stored_out_of_order_come_out_sorted_and_grouped(games, head, monkeypatch) -> None:
    monkeypatch.setattr(rows_module, "_numpy_loaded", lambda: head is None)  # None: every row as arrays
    monkeypatch.setattr(rows_module, "HEAD", head or 1)  # 5: the head fills, the rest come as arrays
    rows = [(g, i) for g in range(1, games) for i in range(0, g % 7 + 1)]
    shuffled = rows[:]
    random.Random(16).shuffle(shuffled)
    con = _table(shuffled)
    expected = {}
    for g, i in rows:
        if i % 3 != 1:
            expected.setdefault(g, []).append(i)
    got, count = grouped(con, _select())
    assert got == expected and list(got) == sorted(expected)
    assert count == sum(len(ids) for ids in expected.values())


@pytest.mark.parametrize("head", [rows_module.HEAD, 2, 5, None],
                         ids=["tuples", "head-then-numpy", "head-exactly-full", "numpy-loaded"])
def test_rows_in_order_and_no_rows(head, monkeypatch) -> None:
    monkeypatch.setattr(rows_module, "_numpy_loaded", lambda: head is None)
    monkeypatch.setattr(rows_module, "HEAD", head or 1)
    rows = [(1, 0), (1, 2), (5, 0), (5, 3), (70000, 0)]
    got, count = grouped(_table(rows), _select())
    assert got == {1: [0, 2], 5: [0, 3], 70000: [0, 3][:1]} and count == 5
    assert grouped(_table([(2, 1)]), _select()) == ({}, 0)


@pytest.mark.parametrize(("where", "tied"), [
    ("EXISTS (SELECT 1 FROM positions AS q WHERE q.gamenumber = p.gamenumber AND q.is_check)", True),
    ("p.gamenumber IN (SELECT q.gamenumber FROM positions AS q WHERE q.is_check)", True),
    ("EXISTS (SELECT 1 FROM positions AS q WHERE q.gamenumber = p.gamenumber AND EXISTS "
     "(SELECT 1 FROM positions AS r WHERE r.gamenumber = q.gamenumber))", True),
    ("p.is_check", False),  # no subquery: nothing to bound
    # not tied to p's game: restricting them to a range of games would change the answer
    ("EXISTS (SELECT 1 FROM positions AS q WHERE EXISTS (SELECT 1 FROM positions AS r "
     "WHERE r.gamenumber = q.gamenumber))", False),
    ("EXISTS (SELECT q.gamenumber FROM positions AS q WHERE q.is_check)", False),
    ("p.ply IN (SELECT q.gamenumber FROM positions AS q)", False),
    ("EXISTS (SELECT 1 FROM positions AS q JOIN positions AS r ON r.gamenumber = q.gamenumber)", False),
])
def test_only_subqueries_tied_to_the_game_are_run_by_batches(where: str, tied: bool) -> None:
    from sqlglot import parse_one

    assert rows_module.per_game(parse_one(f"SELECT p.gamenumber FROM positions AS p WHERE {where}")) is tied
