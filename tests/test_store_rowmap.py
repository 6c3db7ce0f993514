"""``game_rows`` (:mod:`cqlindex.store.rowmap`): written only where the storage order holds, and
a query run on the map (its matches read by row id, main-line windows streamed over row ids)
finds exactly what the same query finds without it, on every plan shape, held and streamed; a
map that no longer covers the table is ignored."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

import cqlindex.exec.rows as rows
from cqlindex.exec.run import run
from cqlindex.exec.streamed import run_streamed
from cqlindex.store import rowmap
from cqlindex.store.database import connect

#: The real check, kept before any test replaces it.
MAP_HOLDS = rowmap.holds
DATA = ("data/studies/cql6-sample.pgn", "data/annotated/dortmund.pgn")

#: One query per plan shape: SQL decides alone, a join to games, DISTINCT-free evaluator
#: confirmation, a window over the main line (batched), correlated subqueries (per game),
#: variations searched.
QUERIES = [
    ("pieces", "Kg1 kg8 Qd1"),
    ("material", "cql(quiet) #Q - #q == 1 #P == #p"),
    ("tag", 'cql(quiet) player white "Kasparov" Qd1'),
    ("evaluator", "cql(quiet) line --> check --> check --> check"),
    ("sequence", "cql(quiet) move from K move to _"),
    ("find", "cql(quiet) wtm move o-o find {btm move o-o}"),
    ("variations", "cql(variations quiet) mate"),
    ("attack", "cql(quiet) Q attacks k"),
]


@pytest.fixture(scope="module")
def index(build_db) -> Path:
    return build_db(*DATA)


def _matches(db: Path, text: str, by_rowid: bool, monkeypatch) -> dict:
    monkeypatch.setattr(rowmap, "holds", MAP_HOLDS if by_rowid else (lambda con: False))
    return run(db, text).matches


def test_the_build_maps_every_row(index: Path) -> None:
    con = connect(index)
    try:
        assert rowmap.holds(con)
        # Independent of write(): every row's rowid is its game's first row plus its positionid.
        wrong, total = con.execute(
            "SELECT count(*) FILTER (WHERE p.rowid <> m.first_row + p.positionid), count(*) "
            "FROM positions p JOIN game_rows m USING (gamenumber)").fetchall()[0]
        assert (wrong, total) == (0, con.execute("SELECT count(*) FROM positions").fetchall()[0][0])
        assert con.execute("SELECT count(*) FROM game_rows").fetchall()[0][0] == \
            con.execute("SELECT count(DISTINCT gamenumber) FROM positions").fetchall()[0][0]
    finally:
        con.close()


@pytest.mark.parametrize("name, text", QUERIES, ids=[q[0] for q in QUERIES])
def test_rowids_find_what_the_columns_find(index: Path, name: str, text: str, monkeypatch) -> None:
    by_columns = _matches(index, text, False, monkeypatch)
    assert by_columns, f"{name}: the query must find something for the comparison to mean anything"
    assert _matches(index, text, True, monkeypatch) == by_columns


@pytest.mark.parametrize("name, text", QUERIES[:4], ids=[q[0] for q in QUERIES[:4]])
def test_streamed_ranges_by_rowid(index: Path, name: str, text: str, monkeypatch) -> None:
    monkeypatch.setattr(rows, "BATCH_POSITIONS", 5_000)
    held = run(index, text).matches
    streamed = run_streamed(index, text)
    assert streamed.pending is not None  # it streams, range by range
    streamed.hold()
    assert streamed.matches == held


@pytest.mark.parametrize("name, text", QUERIES[:4], ids=[q[0] for q in QUERIES[:4]])
@pytest.mark.parametrize("span", [(1, 1), (40, 120), (300, 100_000), (100_000, 100_001)],
                         ids=["first game", "inside", "to the end", "past the end"])
def test_a_game_range_joins_its_part_of_the_map(index: Path, name: str, text: str, span, monkeypatch) -> None:
    monkeypatch.setattr(rowmap, "holds", lambda con: False)
    by_columns = run(index, text, gamenumbers=span).matches
    monkeypatch.setattr(rowmap, "holds", MAP_HOLDS)
    assert run(index, text, gamenumbers=span).matches == by_columns


def test_the_rewrite_is_used(index: Path) -> None:
    from cqlindex.exec.run import plan_prepared, prepare

    con = connect(index)
    try:
        select = plan_prepared(con, prepare(QUERIES[0][1], "<q>")).select.copy()
        select.set("order", None)
        assert "ASOF JOIN game_rows" in rows._sql(con, select)
        ranged = plan_prepared(con, prepare(QUERIES[0][1], "<q>", gamenumbers=(3, 7))).select.copy()
        ranged.set("order", None)
        assert "FROM game_rows WHERE gamenumber BETWEEN 3 AND 7) AS _map" in rows._sql(con, ranged)
    finally:
        con.close()


def test_a_join_guessed_small_is_still_a_merge(index: Path) -> None:
    """A placement pins every bitboard: DuckDB guesses a handful of rows and, left to itself, would
    join them to the map by a nested loop over all of it (555 s at 34 M positions for one that
    matched 437,148). The connection asks for the sorted merge whatever the guess."""
    from cqlindex.exec.run import plan_prepared, prepare

    start = ("cql(quiet) Ra1 Nb1 Bc1 Qd1 Ke1 Bf1 Ng1 Rh1 Pa2 Pb2 Pc2 Pd2 Pe2 Pf2 Pg2 Ph2 "
             "pa7 pb7 pc7 pd7 pe7 pf7 pg7 ph7 ra8 nb8 bc8 qd8 ke8 bf8 ng8 rh8 [Aa]==32")
    con = connect(index)
    try:
        select = plan_prepared(con, prepare(start, "<q>")).select.copy()
        select.set("order", None)
        sql = rows._sql(con, select)
        assert "p.wk = 16" in sql and "ASOF JOIN game_rows" in sql
        assert "Asof Join" in con.execute(f"EXPLAIN {sql}").fetchall()[0][1]
        found = len(con.execute(sql).fetchall())
        assert found and found == con.execute(f"SELECT count(*) FROM ({select.sql(dialect='duckdb')})").fetchall()[0][0]
        con.execute("SET asof_loop_join_threshold = 64")  # DuckDB's default: the check can tell
        assert "Nested Loop Join" in con.execute(f"EXPLAIN {sql}").fetchall()[0][1]
    finally:
        con.close()


def _edited(index: Path, tmp_path: Path, *statements: str) -> Path:
    """A copy of ``index`` changed by ``statements`` behind cqlindex's back."""
    copy = tmp_path / "edited.duckdb"
    shutil.copyfile(index, copy)
    con = duckdb.connect(str(copy))
    try:
        for statement in statements:
            con.execute(statement)
    finally:
        con.close()
    return copy


def _holds(db: Path) -> bool:
    con = connect(db)
    try:
        return rowmap.holds(con)
    finally:
        con.close()


def test_a_map_that_no_longer_covers_the_table_is_ignored(index: Path, tmp_path: Path, monkeypatch) -> None:
    edited = _edited(index, tmp_path, "DELETE FROM positions WHERE gamenumber = 1 AND positionid = 0")
    assert not _holds(edited)
    assert run(edited, "mate").matches == _matches(edited, "mate", False, monkeypatch)


def test_games_interleaved_get_no_map(index: Path, tmp_path: Path) -> None:
    edited = _edited(index, tmp_path, "CREATE TABLE kept AS SELECT * FROM positions", "DELETE FROM positions",
                     "INSERT INTO positions SELECT * FROM kept ORDER BY positionid, gamenumber", "DROP TABLE kept")
    con = duckdb.connect(str(edited))
    try:
        assert not rowmap.write(con)
        assert con.execute("SELECT count(*) FROM game_rows").fetchall()[0][0] == 0
    finally:
        con.close()
    assert not _holds(edited)


def test_an_index_without_the_table_is_read_by_columns(index: Path, tmp_path: Path, monkeypatch) -> None:
    older = _edited(index, tmp_path, "DROP TABLE game_rows")
    assert not _holds(older)
    query = QUERIES[0][1]
    assert run(older, query).matches == _matches(index, query, False, monkeypatch)


STAND_IN = str(rows.RangeSql.LOW)


@pytest.mark.parametrize(("text", "span", "template"), [
    ("Kg1 kg8 Qd1", None, True),
    ("cql(quiet) line --> check --> check --> check", None, True),
    ("cql(quiet) wtm move o-o find {btm move o-o}", None, True),
    ("Kg1 kg8 Qd1", (3, 400), False),  # the row map's join is cut to the -gamenumber bound
    (f'cql(quiet) player white "{STAND_IN}" Qd1', None, False),  # the query spells a stand-in
    ("cql(quiet) Q attacks k", None, True),
], ids=["pieces", "window", "per game", "game range", "stand-in in a string", "attack"])
def test_a_range_sql_rendered_once_is_each_range_rendered(index: Path, text, span, template) -> None:
    """:class:`rows.RangeSql` writes each range's bounds into one rendering; every range's SQL is
    what rendering the plan for that range gives, and where the stand-ins are not where they were
    put it renders each range instead."""
    from cqlindex.exec.run import plan_prepared, prepare

    con = connect(index)
    try:
        select = plan_prepared(con, prepare(text, "<q>", gamenumbers=span)).select.copy()
        select.set("order", None)
        ranged = rows.RangeSql(con, select)
        assert (ranged._template is not None) == template
        for low, high in [(1, 1), (5, 90), (123, 4567890)]:
            assert ranged(low, high) == rows._sql(con, rows.in_games(select, low, high))
    finally:
        con.close()
