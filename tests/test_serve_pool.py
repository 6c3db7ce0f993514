"""The query workers (cqlindex/serve/pool.py): answers, errors as data, cancel and the backstop.

A cancelled or overrunning job must be stopped for certain (its process killed and replaced)
and the pool must go on answering; each test below fails if the kill is left out (the job
would run to its end: seconds past the asserted bound)."""

from __future__ import annotations

import os
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
    """The exec layer's deadline answers (its message names --timeout); the worker lives on."""
    restarts = pool.restarts
    job = pool.submit("query", 0.5, db=str(sample_db), text=SLOW, variations=True, gamenumbers=None, matchcount=None)
    with pytest.raises(JobError) as raised:
        job.future.result(60)
    assert raised.value.kind == "QueryTimeout" and "(--timeout)" in str(raised.value)
    assert pool.restarts == restarts and not _gone(job.pid)


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (and was reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_cancelled_job_is_killed_and_the_pool_goes_on(sample_db) -> None:
    """The client hears of the cancel only once the job's process is gone, and a new one serves."""
    one = Pool(1)
    try:
        job = one.submit("query", 60, db=str(sample_db), text=SLOW, variations=True, gamenumbers=None,
                         matchcount=None)
        while job.pid is None:  # taken by the worker
            time.sleep(0.05)
        time.sleep(0.5)
        job.cancel()
        with pytest.raises(JobError) as raised:
            job.future.result(30)
        assert raised.value.kind == "Cancelled" and one.restarts == 1
        assert _gone(job.pid)
        again = one.submit("query", 30, db=str(sample_db), text="mate", variations=None, gamenumbers=None,
                           matchcount=None)
        assert len(again.future.result(120).matches) == 5 and again.pid != job.pid
    finally:
        one.close()


def test_a_worker_that_overruns_its_timeout_is_killed(pool, monkeypatch) -> None:
    """The backstop: a job that ignores its own deadline (a sleep) is killed GRACE seconds past it."""
    monkeypatch.setattr(pool_module, "GRACE", 0.5)
    job = pool.submit("sleep", 0.3, seconds=30)
    with pytest.raises(JobError) as raised:
        job.future.result(25)  # the sleep would answer after 30 s
    assert raised.value.kind == "QueryTimeout" and _gone(job.pid)
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


def test_a_closed_pool_leaves_no_worker_behind(sample_db) -> None:
    import multiprocessing

    def workers():
        return [p for p in multiprocessing.active_children() if p.name == "cqlindex-serve-worker"]

    before = len(workers())
    closing = Pool(2)
    running = closing.submit("sleep", 30, seconds=20)
    assert closing.submit("sleep", 30, lane="quick", seconds=0.01).future.result(60) == 0.01
    queued = closing.submit("sleep", 30, seconds=0.01)  # behind the running one in the slow lane
    closing.close()
    for job in (running, queued):
        with pytest.raises(JobError):
            job.future.result(10)
    deadline = time.monotonic() + 10
    while len(workers()) > before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(workers()) == before


def test_a_quick_job_does_not_wait_behind_slow_ones() -> None:
    """Two workers: one takes quick jobs only, so a quick job is answered while two slow ones
    hold the queue (in one first-come queue it would wait for the first to end)."""
    lanes = Pool(2)
    try:
        slow = [lanes.submit("sleep", 60, seconds=20) for _ in range(2)]
        deadline = time.monotonic() + 20
        while not any(job.pid for job in slow) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # time for a second slot to take the other, were it allowed to
        taken = [job for job in slow if job.pid is not None]
        assert len(taken) == 1  # the slot that takes slow jobs took one; the other waits in the queue
        quick = lanes.submit("sleep", 60, lane="quick", seconds=0.01)
        assert quick.future.result(30) == 0.01
        assert not any(job.future.done() for job in slow)
    finally:
        lanes.close()


def test_a_worker_stopped_from_two_threads_closes_its_pipe_once() -> None:
    """The pool's close and a slot that finds its worker dead both stop it, each from its own
    thread; the pipe's close must not run twice at once (the second os.close fails with EBADF)."""
    import multiprocessing
    import threading

    worker = pool_module._Worker(multiprocessing.get_context("spawn"))
    real = worker._conn
    inside, overlaps = [], []

    class SlowToClose:
        def close(self) -> None:
            inside.append(1)
            overlaps.append(len(inside))
            time.sleep(0.2)  # widen the window in which a second close would overlap
            real.close()
            inside.pop()

    worker._conn = SlowToClose()
    stoppers = [threading.Thread(target=worker.stop) for _ in range(2)]
    for thread in stoppers:
        thread.start()
    for thread in stoppers:
        thread.join(30)
    assert overlaps and max(overlaps) == 1 and not worker.alive()


def _niceness(lanes: Pool, pid: int | None = None) -> list[int]:
    """The niceness of ``pid``, or of each of the pool's workers (sorted), once the workers have
    set theirs (a spawned worker lowers its priority as it starts: polled for a while)."""
    expected = sorted([_BASE] * 2 + [_SLOW] * 2)
    deadline = time.monotonic() + 30
    while True:
        found = [os.getpriority(os.PRIO_PROCESS, pid)] if pid else \
            sorted(os.getpriority(os.PRIO_PROCESS, w.pid) for w in list(lanes._workers))
        if found == ([_SLOW] if pid else expected) or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


_BASE = os.getpriority(os.PRIO_PROCESS, 0) if hasattr(os, "getpriority") else 0
_SLOW = min(19, _BASE + pool_module.SLOW_NICE)


@pytest.mark.skipif(not hasattr(os, "getpriority") or _BASE >= 19, reason="no niceness to lower here")
def test_workers_that_take_slow_jobs_run_at_a_lower_priority() -> None:
    """Of four workers, the two of the slots that take slow jobs run at a lower CPU priority,
    and so does the worker that replaces one of them after a kill; the quick-only ones do not."""
    lanes = Pool(4)
    try:
        assert _niceness(lanes) == [_BASE, _BASE, _SLOW, _SLOW]
        slow = lanes.submit("sleep", 60, seconds=30)
        deadline = time.monotonic() + 30
        while slow.pid is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert slow.pid is not None and _niceness(lanes, slow.pid) == [_SLOW]
        slow.cancel()
        with pytest.raises(JobError):
            slow.future.result(30)
        assert lanes.restarts == 1
        assert _niceness(lanes) == [_BASE, _BASE, _SLOW, _SLOW]
        quick = lanes.submit("sleep", 60, lane="quick", seconds=0.01)
        assert quick.future.result(30) == 0.01
    finally:
        lanes.close()
