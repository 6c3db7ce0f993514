"""Time limits on a query (``--timeout``, ``timeout=``) and DuckDB errors met while running one.

The slow query is ``echo (s t) echo (u v) s & v``: for every pair of positions of a game it
compares every other pair, so on the annotated games (trees of hundreds of positions) it runs far
past the limits used here on every engine (the columnar one's pairs too), and stops there.
"""

from __future__ import annotations

import shutil
import time

import duckdb
import pytest
from typer.testing import CliRunner

import cqlindex
from cqlindex.cli import app
from cqlindex.errors import DatabaseError, QueryTimeout
from cqlindex.exec.run import run
from cqlindex.exec.timeout import Deadline, running

SLOW = "echo (s t) echo (u v) s & v"


@pytest.fixture(scope="module")
def index(build_db):
    return build_db("data/annotated/chess-informant-sample.pgn", workers=1)


@pytest.mark.parametrize("engine", ["sql", "python"])
def test_a_query_past_its_time_is_stopped(index, engine: str) -> None:
    with pytest.raises(QueryTimeout, match="time limit of 0.5 s"):
        run(index, SLOW, engine=engine, variations=True, timeout=0.5)


def test_a_query_within_its_time_is_answered(index) -> None:
    assert run(index, "mate", timeout=60).matches == run(index, "mate").matches


def test_the_api_and_the_cli_stop_it_with_exit_code_4(index) -> None:
    with pytest.raises(QueryTimeout):
        cqlindex.open(index).query(SLOW, variations=True, timeout=0.5)
    result = CliRunner().invoke(app, ["query", str(index), SLOW, "--variations", "--timeout", "0.5"])
    assert result.exit_code == QueryTimeout.exit_code == 4, result.output
    assert "time limit" in result.output and "Traceback" not in result.output


def test_duckdb_is_interrupted_by_the_timer() -> None:
    con = duckdb.connect()
    with pytest.raises(QueryTimeout), running(con, Deadline(0.3), "a long count"):
        con.execute("SELECT count(*) FROM range(10000000000) a").fetchall()


LONG_SQL = "SELECT count(*) FROM range(10000000000) a"


def test_the_timer_interrupts_a_companion_cursor_on_another_thread_too() -> None:
    """A windowed plan's batches run on cursors of the connection (exec/rows.py): the deadline
    stops them as it stops the connection's own statement."""
    from concurrent.futures import ThreadPoolExecutor

    from cqlindex.exec.timeout import companion

    con = duckdb.connect()
    cursor = con.cursor()
    began = time.monotonic()
    with pytest.raises(QueryTimeout), running(con, Deadline(0.3), "a long count"), companion(con, cursor), \
            ThreadPoolExecutor(1) as pool:
        pool.submit(lambda: cursor.execute("SELECT sum(a % 7) FROM range(3000000000) t(a)").fetchall()).result()
    assert time.monotonic() - began < 2.5  # not the count's own time


def test_ad_hoc_sql_past_its_time_is_stopped_on_the_api_and_the_cli(index, tmp_path) -> None:
    own = tmp_path / "index.duckdb"  # the sandbox locks its DuckDB instance: not the session's shared one
    shutil.copyfile(index, own)
    with pytest.raises(QueryTimeout):
        cqlindex.open(own).sql(LONG_SQL, timeout=0.3)
    assert cqlindex.open(own).sql("SELECT count(*) AS n FROM games", timeout=60).column("n")[0].as_py() > 0
    result = CliRunner().invoke(app, ["sql", str(own), LONG_SQL, "--timeout", "0.3"])
    assert result.exit_code == QueryTimeout.exit_code == 4, result.output
    assert "time limit" in result.output and "Traceback" not in result.output


def test_other_duckdb_errors_become_database_errors(index) -> None:
    with pytest.raises(DatabaseError, match="Overflow"):
        run(index, "ply * 9223372036854775807 > 5")


def test_a_deadline() -> None:
    Deadline(None).check()
    assert Deadline(None).remaining() is None
    with pytest.raises(ValueError):
        Deadline(0)
    deadline = Deadline(0.001)
    time.sleep(0.01)
    with pytest.raises(QueryTimeout):
        deadline.check()


@pytest.mark.parametrize("engine", ["sql", "python"])
def test_work_inside_one_position_is_stopped_too(index, engine: str) -> None:
    """Counting a fourfold square iteration whose body reads all four squares is 64**4 bodies at
    the first position alone: the deadline is checked inside the iteration, not only between
    positions (the columnar engine: at every filter of a batch)."""
    started = time.monotonic()
    with pytest.raises(QueryTimeout):
        run(index, "#square s in . square t in . square u in . square v in . s & t & u & v", engine=engine, timeout=0.5)
    assert time.monotonic() - started < 20  # stopped near its limit, not after a position's minutes of work
