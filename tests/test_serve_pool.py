"""The query workers (cqlindex/serve/pool.py): answers, errors as data, cancel and the backstop.

A cancelled or overrunning job must be stopped for certain (its process killed and replaced)
and the pool must go on answering; each test below fails if the kill is left out (the job
would run to its end: seconds past the asserted bound)."""

from __future__ import annotations

import time

import pytest

from cqlindex.serve import pool as pool_module
from cqlindex.serve.pool import JobError, Pool
from serve_fixtures import SLOW, sample_db  # noqa: F401 - the fixture


@pytest.fixture(scope="module")
def pool():
    workers = Pool(2)
    yield workers
    workers.close()


def test_a_query_comes_back_as_its_result(pool, sample_db) -> None:
    job = pool.submit("query", 30, db=str(sample_db), text="mate", variations=True, gamenumbers=None,
                      matchcount=None)
    result = job.future.result(60)
    assert dict(result.matches) == {1: [33], 2: [13], 3: [45], 4: [47], 5: [3], 7: [17]}


@pytest.mark.parametrize(("text", "kind", "where"), [
    ("mat", "CqlSyntaxError", (1, 1)),
    ("mate\n readfile \"x\"", "CqlError", (2, 2)),
])
def test_an_error_comes_back_as_data_with_its_spot(pool, sample_db, text, kind, where) -> None:
    job = pool.submit("query", 30, db=str(sample_db), text=text, variations=None, gamenumbers=None, matchcount=None)
    with pytest.raises(JobError) as raised:
        job.future.result(60)
    info = raised.value.info
    assert info["kind"] == kind and (info["line"], info["col"]) == where and "^" in info["rendered"]


def test_the_queries_own_timeout_stops_it(pool, sample_db) -> None:
    started = time.monotonic()
    job = pool.submit("query", 0.5, db=str(sample_db), text=SLOW, variations=True, gamenumbers=None, matchcount=None)
    with pytest.raises(JobError) as raised:
        job.future.result(60)
    assert raised.value.kind == "QueryTimeout"
    assert time.monotonic() - started < pool_module.GRACE + 5


def test_a_cancelled_job_is_killed_and_the_pool_goes_on(sample_db) -> None:
    """One worker: the next job is answered at once only if the cancelled one's process was killed."""
    one = Pool(1)
    try:
        job = one.submit("query", 60, db=str(sample_db), text=SLOW, variations=True, gamenumbers=None,
                         matchcount=None)
        time.sleep(1.5)  # running by now
        started = time.monotonic()
        job.cancel()
        with pytest.raises(JobError) as raised:
            job.future.result(30)
        assert raised.value.kind == "Cancelled" and one.restarts == 1
        again = one.submit("query", 30, db=str(sample_db), text="mate", variations=None, gamenumbers=None,
                           matchcount=None)
        assert len(again.future.result(60).matches) == 5
        assert time.monotonic() - started < 4  # a new worker's start-up, not the slow query's 14 s
    finally:
        one.close()


def test_a_worker_that_overruns_its_timeout_is_killed(pool, monkeypatch) -> None:
    """The backstop: a job that ignores its own deadline (a sleep) is killed GRACE seconds past it."""
    monkeypatch.setattr(pool_module, "GRACE", 0.5)
    started = time.monotonic()
    job = pool.submit("sleep", 0.3, seconds=30)
    with pytest.raises(JobError) as raised:
        job.future.result(30)
    assert raised.value.kind == "QueryTimeout" and time.monotonic() - started < 5
    assert pool.submit("sleep", 5, seconds=0.01).future.result(30) == 0.01


def test_a_queued_job_cancelled_never_runs(sample_db) -> None:
    one = Pool(1)
    try:
        busy = one.submit("sleep", 30, seconds=1.5)
        queued = one.submit("sleep", 30, seconds=20)
        queued.cancel()
        assert busy.future.result(30) == 1.5
        with pytest.raises(JobError) as raised:
            queued.future.result(5)
        assert raised.value.kind == "Cancelled" and one.restarts == 0
    finally:
        one.close()


def test_sql_between_queries_leaves_the_worker_as_it_was(sample_db) -> None:
    """The sandbox locks its database instance's settings; a worker that kept the index open
    across an SQL job would carry the lock into its next queries (which set a setting)."""
    one = Pool(1)
    try:
        def query():
            return len(one.submit("query", 30, db=str(sample_db), text="mate", variations=True, gamenumbers=None,
                                  matchcount=None).future.result(60).matches)

        def sql(text):
            return one.submit("sql", 30, db=str(sample_db), text=text, limit=10).future.result(60)

        assert query() == 6
        assert sql("SELECT count(*) FROM games")["rows"] == [[307]]
        assert query() == 6
        with pytest.raises(JobError, match="read_csv|disabled|external"):
            sql("SELECT * FROM read_csv('/etc/hostname')")
        assert query() == 6
    finally:
        one.close()
