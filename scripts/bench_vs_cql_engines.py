"""The two engines of ``bench_vs_cql.py`` run as child processes, timed, and the games each found.

Each run is a process of its own, so the figures are its own: wall seconds around it, and
from ``os.wait4`` on it its CPU seconds (its threads and the processes it waited for included)
and its peak resident set. Linux hands a child the high-water mark of the process it was
started from when that is higher than its own (``exec`` keeps the peak of the memory it
replaces), so the script that launches them holds no index, no results and no cqlindex import,
and :func:`rss_floor` says below what figure a peak is the launcher's, not the child's (the
peak of ``/bin/true`` started the same way).

Which games matched is read from what each engine prints: the reference engine's
``-showmatches`` writes ``<N>`` when game N matched (acceptance/FACTS.md, section 1);
``cqlindex query --format summary -o FILE`` writes the game numbers to FILE and nothing else,
whatever ``message`` or ``persistent`` print on the terminal.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

#: ``N matches of M games in T seconds``: both engines end a run with it.
_GAMES_READ = re.compile(r"matches of (\d+) games")
_SHOWMATCHES = re.compile(r"<(\d+)>")


@dataclass
class Measured:
    """One finished child process: its figures and what it printed."""

    wall: float
    cpu: float
    rss_mb: float
    status: int  # the exit code, or -signal
    stdout: str
    stderr: str
    timed_out: bool = False

    def failure(self, name: str) -> str | None:
        """Why this run gave no answer (its last line of output), or None when it ran to its end."""
        if self.timed_out:
            return f"{name}: timed out after {self.wall:.0f} s"
        if self.status != 0:
            last = (self.stderr.strip() or self.stdout.strip() or "no output").splitlines()[-1]
            return f"{name}: exit code {self.status}: {last[:200]}"
        return None


@dataclass
class Side:
    """One engine on one query file: its figures and the games it found (None when it failed)."""

    wall: float
    cpu: float
    rss_mb: float
    games: frozenset[int] | None
    error: str | None = None
    games_read: int | None = None

    def to_json(self) -> dict:
        return {"wall_seconds": round(self.wall, 3), "cpu_seconds": round(self.cpu, 3),
                "peak_rss_mb": round(self.rss_mb, 1), "games_read": self.games_read,
                "games": sorted(self.games) if self.games is not None else None, "error": self.error}


def measure(command: list[str], timeout: float | None = None, env: dict[str, str] | None = None) -> Measured:
    """Run ``command`` to its end (killed past ``timeout`` seconds), its output kept in files, not pipes."""
    with tempfile.TemporaryFile("w+b") as out, tempfile.TemporaryFile("w+b") as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env)
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            process.kill()

        timer = threading.Timer(timeout, kill) if timeout else None
        if timer:
            timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            if timer:
                timer.cancel()
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        out.seek(0)
        err.seek(0)
        return Measured(wall=wall, cpu=usage.ru_utime + usage.ru_stime, rss_mb=usage.ru_maxrss / 1024,
                        status=process.returncode, stdout=out.read().decode("utf-8", "replace"),
                        stderr=err.read().decode("utf-8", "replace"), timed_out=killed.is_set())


def rss_floor() -> float:
    """Peak RSS (MB) that a do-nothing child reports when started from this process."""
    return measure(["/bin/true"]).rss_mb


def games_read(text: str) -> int | None:
    found = _GAMES_READ.search(text)
    return int(found.group(1)) if found else None


def run_reference(cql: Path, threads: int, pgn: Path, query: Path, timeout: float | None) -> Side:
    """The reference engine on ``pgn`` with ``query``; ``-i`` overrides the file's ``cql(input ...)``."""
    with tempfile.TemporaryDirectory() as tmp:
        run = measure([str(cql), "-threads", str(threads), "-i", str(pgn), "-o", str(Path(tmp) / "out.pgn"),
                       "-showmatches", str(query)], timeout)
    error = run.failure("reference")
    games = None if error else frozenset(int(n) for n in _SHOWMATCHES.findall(run.stdout))
    return Side(run.wall, run.cpu, run.rss_mb, games, error, games_read(run.stdout))


def run_cqlindex(cqlindex: list[str], index: Path, query: Path, timeout: float | None) -> Side:
    """``cqlindex query INDEX -f QUERY``, the game numbers written to a file of their own. Its plan
    cache (:mod:`cqlindex.exec.plan_cache`) is a new empty folder: a query's first run is timed,
    as a user asking something new sees it, not a plan kept by an earlier run of the benchmark."""
    with tempfile.TemporaryDirectory() as tmp:
        numbers = Path(tmp) / "games.txt"
        run = measure([*cqlindex, "query", str(index), "-f", str(query), "--format", "summary", "-o", str(numbers)],
                      timeout, env={**os.environ, "XDG_CACHE_HOME": str(Path(tmp) / "cache")})
        error = run.failure("cqlindex")
        if error is None and not numbers.exists():
            error = "cqlindex: wrote no game numbers"
        games = None if error else frozenset(int(n) for n in numbers.read_text().split())
    return Side(run.wall, run.cpu, run.rss_mb, games, error, games_read(run.stdout + run.stderr))


#: The session: one Python process opens the index once and runs every file through the API,
#: writing one JSON line per file (to a file: a query's ``message`` may print on stdout).
_SESSION = """
import json, sys, time
from pathlib import Path
import cqlindex
from cqlindex.errors import CqlindexError
db = cqlindex.open(sys.argv[2])
with open(sys.argv[1], "w") as out:
    for name in sys.argv[3:]:
        began = time.perf_counter()
        try:
            games, error = sorted(db.query(Path(name).read_text(encoding="utf-8")).games), None
        except CqlindexError as caught:
            games, error = None, str(caught).splitlines()[0][:200]
        print(json.dumps({"file": name, "games": games, "error": error,
                          "seconds": time.perf_counter() - began}), file=out, flush=True)
"""


def run_session(python: str, index: Path, queries: list[Path], timeout: float | None) -> tuple[Side, dict[str, Side]]:
    """Every query in one Python session (``cqlindex.open`` then ``query`` per file): the session's
    own figures, and per file the games and the seconds the session measured inside itself."""
    with tempfile.TemporaryDirectory() as tmp:
        lines = Path(tmp) / "session.jsonl"
        run = measure([python, "-c", _SESSION, str(lines), str(index), *map(str, queries)], timeout)
        answers = [json.loads(line) for line in lines.read_text().splitlines()] if lines.exists() else []
    per_file = {}
    for answer in answers:
        games = frozenset(answer["games"]) if answer["games"] is not None else None
        error = f"cqlindex session: {answer['error']}" if answer["error"] else None
        per_file[answer["file"]] = Side(answer["seconds"], 0.0, 0.0, games, error)
    missing = [str(q) for q in queries if str(q) not in per_file]
    failure = run.failure("cqlindex session")
    for name in missing:
        per_file[name] = Side(0.0, 0.0, 0.0, None, failure or "cqlindex session: no answer")
    return Side(run.wall, run.cpu, run.rss_mb, None, failure), per_file
