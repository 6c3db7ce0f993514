"""Pieces worked on in threads come back in order, each thread on its own cursor, with a bounded
number in flight; and the record writers write the same bytes with threads as without."""

from __future__ import annotations

import io
import threading
import time

import duckdb
import pytest

from cqlindex.exec.run import run
from cqlindex.output import threaded
from cqlindex.output.stream import write_records
from cqlindex.output.threaded import ordered_map
from cqlindex.store.database import connect


def test_results_come_in_the_pieces_order_whatever_finishes_first() -> None:
    con = duckdb.connect()

    def work(cursor, piece: int) -> int:
        time.sleep(0.02 * (piece % 3))  # later pieces often finish first
        return cursor.execute("SELECT ? * 10", [piece]).fetchall()[0][0]

    assert list(ordered_map(con, work, range(20), threads=3)) == [10 * i for i in range(20)]


def test_each_thread_has_its_own_cursor_and_one_thread_uses_the_connection() -> None:
    con = duckdb.connect()
    seen: dict[str, set[int]] = {}

    def work(cursor, piece: int) -> int:
        time.sleep(0.01)
        seen.setdefault(threading.current_thread().name, set()).add(id(cursor))
        cursor.register("_piece", cursor.sql(f"SELECT {piece} AS x"))  # a name each batch registers
        try:
            return cursor.sql("SELECT x FROM _piece").fetchall()[0][0]
        finally:
            cursor.unregister("_piece")

    assert list(ordered_map(con, work, range(40), threads=2)) == list(range(40))
    assert len(seen) == 2 and all(len(cursors) == 1 for cursors in seen.values())
    assert id(con) not in set.union(*seen.values())
    assert list(ordered_map(con, lambda cursor, piece: cursor is con, range(3), threads=1)) == [True] * 3


def test_a_single_piece_is_worked_on_in_the_callers_thread_on_its_connection() -> None:
    con = duckdb.connect()
    where = []

    def work(cursor, piece: int) -> int:
        where.append((threading.current_thread(), cursor))
        return piece

    assert list(ordered_map(con, work, iter([7]), threads=4)) == [7]
    assert where == [(threading.current_thread(), con)]
    assert list(ordered_map(con, work, [], threads=4)) == []
    assert list(ordered_map(con, work, [1, 2], threads=2)) == [1, 2]
    assert all(cursor is not con for _, cursor in where[1:])


def test_at_most_two_pieces_a_thread_are_read_ahead() -> None:
    pulled = []

    def pieces():
        for i in range(100):
            pulled.append(i)
            yield i

    results = ordered_map(duckdb.connect(), lambda cursor, piece: piece, pieces(), threads=2)
    assert next(results) == 0
    assert len(pulled) <= 2 * 2 + 1
    results.close()


def test_an_error_in_a_piece_reaches_the_caller_and_the_rest_is_dropped() -> None:
    done = []

    def work(cursor, piece: int) -> int:
        if piece == 3:
            raise ValueError("piece 3")
        done.append(piece)
        return piece

    results = ordered_map(duckdb.connect(), work, range(1000), threads=2)
    with pytest.raises(ValueError, match="piece 3"):
        list(results)
    assert len(done) < 20


@pytest.mark.parametrize("shape", ["ndjson", "json", "csv"])
def test_records_are_the_same_bytes_in_threads_and_in_one(build_db, monkeypatch, shape) -> None:
    db = build_db("data/studies/cql6-sample.pgn")
    result = run(db, "check or mate", variations=True)
    con = connect(db)
    texts = []
    try:
        for cores in (1, 2):
            monkeypatch.setattr(threaded, "usable_cores", lambda cores=cores: cores)
            out = io.StringIO()
            write_records(con, result.matches, shape, out, size=50)  # a batch boundary every few games
            texts.append(out.getvalue())
    finally:
        con.close()
    assert texts[0] == texts[1] and texts[0].count("\n") > 100
