"""Worker processes that run the server's queries: a long query never blocks another, and a
cancelled or runaway one is stopped for certain.

Why processes and not threads: the evaluator that confirms a narrowed query is Python and
holds the GIL, so in a thread it would slow every other request of the server; and a thread
cannot be stopped from outside, while a process can. Each worker is spawned once (it imports
cqlindex once) and answers one job at a time over a pipe; a slot thread in the server feeds
it. A job is stopped three ways: its own ``timeout=`` inside the worker (the exec layer's
deadline: DuckDB interrupted, the evaluator checking), a kill when the client cancels it, and a
kill when the worker overruns its timeout by :data:`GRACE` seconds (the backstop). A killed
worker is replaced at once; the others go on.

Jobs cross the pipe as plain tuples and answers as results or :class:`JobError` data (the
exception types of :mod:`cqlindex.errors` take more than a message and do not unpickle).
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from cqlindex.errors import CqlError, CqlindexError, QueryTimeout

#: Seconds a worker may run past its job's own timeout before it is killed.
GRACE = 2.0
#: How often a slot looks at its job's cancel flag while the worker computes (seconds).
_POLL = 0.02
#: The niceness added to a worker that takes slow jobs (see :class:`Pool`).
SLOW_NICE = 10


class JobError(Exception):
    """A job's failure as the client should see it: the message, its kind and, for a CQL
    error, the line and column with the rendered caret."""

    def __init__(self, info: dict) -> None:
        super().__init__(info["message"])
        self.info = info

    @property
    def kind(self) -> str:
        return self.info["kind"]


def error_info(error: BaseException) -> dict:
    """What a client needs of ``error``: plain data, so that it crosses a pipe and becomes JSON."""
    info: dict[str, Any] = {"kind": type(error).__name__, "message": str(error)}
    if isinstance(error, CqlError):
        info.update(message=error.message, line=error.span.line, col=error.span.col,
                    length=max(1, error.span.end - error.span.start), rendered=error.render())
    if isinstance(error, QueryTimeout):
        info["kind"] = "QueryTimeout"
    elif isinstance(error, CqlindexError):
        info["exit_code"] = error.exit_code
    return info


@dataclass
class Job:
    """One piece of work for a worker: ``kind`` names a function of :func:`_perform`."""

    kind: str
    args: dict
    timeout: float
    future: Future = field(default_factory=Future)
    cancelled: threading.Event = field(default_factory=threading.Event)
    pid: int | None = None  #: the worker process that took the job

    def cancel(self) -> None:
        """Stop the job: dropped if still queued, its worker killed if running."""
        self.cancelled.set()


#: The two lanes of jobs: ``quick`` for queries SQL decides (their plan is exact), ``slow`` for
#: the rest (the evaluator confirms candidates; ad-hoc SQL).
LANES = ("quick", "slow")


class Pool:
    """``size`` worker processes, each fed by a slot thread, in two lanes.

    Why lanes: in one first-come queue a query SQL decides in 50 ms waited behind post-filtered
    ones of many seconds (8 clients on 20,000 games: a decided query's 99th percentile was 24 s).
    Half the slots (at least one) take quick jobs only; the others take quick jobs first, then
    slow ones, so a slow job always has a slot and a quick one never waits for slow ones to end.

    Why the workers of those other slots run at a lower CPU priority (:data:`SLOW_NICE`): a slot
    does not make a core. On 2 cores two post-filtered queries kept both busy, and a query SQL
    decides, though it had a worker of its own at once, shared the cores with them (and the
    server's own process, which cuts the pages, did too): its median response under the load
    benchmark was 4-10 times its cost alone. At a lower priority the slow queries take what the
    quick ones and the server leave. The priority is the process's for its life (an ordinary
    user cannot raise it back), so it is set once, when the worker starts, by its slot's lanes.
    """

    def __init__(self, size: int) -> None:
        self._queues: dict[str, deque[Job]] = {lane: deque() for lane in LANES}
        self._ready = threading.Condition()
        self._context = multiprocessing.get_context("spawn")  # fork in a threaded server is unsafe
        quick_only = max(1, size // 2) if size > 1 else 0
        self._slots = [threading.Thread(target=self._slot, args=(LANES[:1] if i < quick_only else LANES,),
                                        name=f"cqlindex-serve-slot-{i}", daemon=True) for i in range(size)]
        self._workers: list[_Worker] = []
        self._lock = threading.Lock()
        self._closed = False
        self.restarts = 0  #: workers killed and replaced (cancels, overruns, crashes)
        for slot in self._slots:
            slot.start()

    def submit(self, kind: str, timeout: float, *, lane: str = "slow", **args) -> Job:
        job = Job(kind, args, timeout)
        with self._ready:
            self._queues[lane].append(job)
            self._ready.notify_all()
        return job

    def close(self) -> None:
        """Stop every worker; jobs still queued or running fail as cancelled."""
        with self._lock:
            self._closed = True
            workers, self._workers = self._workers, []
        with self._ready:
            queued = [job for lane in LANES for job in self._queues[lane]]
            for lane in LANES:
                self._queues[lane].clear()
            self._ready.notify_all()
        for job in queued:
            self._fail(job, {"kind": "Cancelled", "message": "the server is stopping"})
        for worker in workers:
            worker.stop()

    def _take(self, lanes: tuple[str, ...]) -> Job | None:
        """The next job of the first of ``lanes`` that has one (waiting for one); None once closed."""
        with self._ready:
            while not self._closed:
                for lane in lanes:
                    if self._queues[lane]:
                        return self._queues[lane].popleft()
                self._ready.wait()
        return None

    def _slot(self, lanes: tuple[str, ...]) -> None:
        nice = SLOW_NICE if "slow" in lanes else 0
        worker = self._start(nice)  # at once: the first query should not wait for a process to start
        while True:
            job = self._take(lanes)
            if job is None:
                return
            if job.cancelled.is_set() or not job.future.set_running_or_notify_cancel():
                self._fail(job, {"kind": "Cancelled", "message": "the query was cancelled"})
                continue
            if worker is None or not worker.alive():
                worker = self._start(nice)
            if worker is None:  # closed
                self._fail(job, {"kind": "Cancelled", "message": "the server is stopping"})
                continue
            worker = self._run(worker, job)

    def _start(self, nice: int) -> _Worker | None:
        """A new worker, ``nice`` added to its niceness; None once the pool is closed (none may outlive it)."""
        with self._lock:
            if self._closed:
                return None
            worker = _Worker(self._context, nice)
            self._workers.append(worker)
        return worker

    def _replace(self, worker: _Worker) -> _Worker | None:
        worker.stop()
        with self._lock:
            if worker in self._workers:
                self._workers.remove(worker)
            self.restarts += 1
        return self._start(worker.nice)

    def _run(self, worker: _Worker, job: Job) -> _Worker | None:
        """Hand ``job`` to ``worker`` and wait for its answer, its cancel or its backstop;
        returns the worker to use next (a new one when this one was killed)."""
        try:
            worker.send((job.kind, job.args, job.timeout))
        except (OSError, ValueError):  # the worker died between jobs (or the pool closed)
            worker = self._replace(worker)
            if worker is None:
                self._fail(job, {"kind": "Cancelled", "message": "the server is stopping"})
                return None
            worker.send((job.kind, job.args, job.timeout))
        job.pid = worker.pid
        until = time.monotonic() + job.timeout + GRACE
        while True:
            if job.cancelled.is_set():  # the worker is replaced before the client hears of it
                worker = self._replace(worker)
                self._fail(job, {"kind": "Cancelled", "message": "the query was cancelled"})
                return worker
            if time.monotonic() >= until:
                worker = self._replace(worker)
                self._fail(job, {"kind": "QueryTimeout",
                                 "message": f"the query ran past its time limit of {job.timeout:g} s and was stopped"})
                return worker
            try:
                ready = worker.poll(_POLL)
            except (OSError, EOFError):
                ready = True
            if ready:
                break
        try:
            status, payload = worker.receive()
        except (OSError, EOFError):
            worker = self._replace(worker)
            self._fail(job, {"kind": "WorkerLost", "message": "the query's worker process ended unexpectedly"})
            return worker
        if status == "ok":
            job.future.set_result(payload)
        else:
            job.future.set_exception(JobError(payload))
        return worker

    @staticmethod
    def _fail(job: Job, info: dict) -> None:
        if not job.future.done():
            job.future.set_exception(JobError(info))


class _Worker:
    """One spawned process and the parent's end of its pipe."""

    def __init__(self, context, nice: int = 0) -> None:
        self.nice = nice
        # The pool's close and a slot that finds the worker dead may stop it at once, from two
        # threads: the pipe must be closed once, not twice (the second os.close fails with EBADF).
        self._stopping = threading.Lock()
        self._conn, child = context.Pipe()
        self._process = context.Process(target=_main, args=(child, os.getpid(), nice), daemon=True,
                                        name="cqlindex-serve-worker")
        self._process.start()
        child.close()

    def alive(self) -> bool:
        return self._process.is_alive()

    @property
    def pid(self) -> int | None:
        return self._process.pid

    def send(self, message) -> None:
        self._conn.send(message)

    def poll(self, seconds: float) -> bool:
        return self._conn.poll(seconds)

    def receive(self):
        return self._conn.recv()

    def stop(self) -> None:
        with self._stopping:
            if self._process.is_alive():
                self._process.kill()
            self._process.join(5)
            self._conn.close()  # a no-op once closed


def _main(conn, parent: int, nice: int = 0) -> None:
    """A worker's loop: one job at a time until the pipe closes (the server ended)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the server, which stops us
    if nice and hasattr(os, "nice"):  # not on Windows: there the workers keep the server's priority
        os.nice(nice)
    while True:
        try:
            kind, args, timeout = conn.recv()
        except (EOFError, OSError):
            return
        try:
            answer = ("ok", _perform(kind, args, timeout))
        except Exception as error:  # noqa: BLE001 - any failure goes back to the client as data
            answer = ("error", error_info(error))
        try:
            conn.send(answer)
        except (OSError, ValueError):
            return


#: In a worker: each index it has opened (see :func:`_opened`).
_OPEN: dict[str, object] = {}


def _opened(path: str):
    """The index at ``path``, opened once per worker. The open Database keeps a connection to its
    file (cqlindex.store.kept), which is what makes a query cost its scan: DuckDB shares one
    database instance between the connections of a process to the same file, so each run's own
    connection finds the file open and its catalog read (a query decided in SQL on 2,000 games:
    30-50 ms instead of 90-120)."""
    if path not in _OPEN:
        import cqlindex

        _OPEN[path] = cqlindex.open(path)
    return _OPEN[path]


def _perform(kind: str, args: dict, timeout: float):
    """The work itself, through the public API (:func:`cqlindex.open`)."""
    if kind == "sleep":  # the tests' stand-in for a job that overruns its worker (see tests/test_serve_pool.py)
        time.sleep(args["seconds"])
        return args["seconds"]
    db = _opened(args["db"])
    if kind == "query":
        return db.result(args["text"], variations=args["variations"], gamenumbers=args["gamenumbers"],
                         matchcount=args["matchcount"], timeout=timeout, source=args.get("source", "<query>"))
    if kind == "sql":  # Database.sql closes the kept connection first: the sandbox locks its instance
        table = db.sql(args["text"], timeout=timeout)
        cap = args["limit"]
        return {"columns": table.column_names, "rows": [list(row.values()) for row in table.slice(0, cap).to_pylist()], "total": table.num_rows}
    raise ValueError(f"unknown job kind {kind!r}")
