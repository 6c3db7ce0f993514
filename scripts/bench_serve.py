"""Load benchmark of ``cqlindex serve``: concurrent clients against a real server, every answer checked.

What it does, in one run:

* builds (once, reused; the same file as scripts/bench_query.py's) an index of the first
  ``--games`` games of ``shared/data/large/gnuchess-book-145716.pgn.zst``, starts
  ``cqlindex serve`` on it on a free loopback port (``--workers`` query processes), and asks
  the server's own ``/api/explain`` which queries SQL decides and which it only narrows;
* runs each query once through the command line (``cqlindex query DB Q --format json``): the
  reference records;
* starts ``--clients`` threads, each sending ``--requests`` requests of ``/api/query`` in a
  mix of four kinds: SQL-decided queries, post-filtered (narrowed) ones, invalid ones (a 400
  is the intended answer) and ones that run past ``--timeout-query`` seconds (a 504 is
  intended). Every valid request restricts the games to ``1-N`` with an ``N`` of its own, so
  no two requests share a cached result: each costs its run, not a cache hit. Its answer
  must equal the CLI's records of games 1 to N (totals, the page's games in order, each
  record field for field);
* samples the resident memory of the server and its workers while it runs, and reads the CPU
  time they spent (what a change of the code saves shows there even on a busy machine).

It prints the latency distribution per kind (median, 90th and 99th percentile, max), the
errors that were not intended (there must be none: exit status 1 otherwise), the peak memory, the
CPU time of the server and of its workers, and whether a SQL-decided query's median response is
under 150 ms (issue 36's target; a figure to read, not a pass/fail of the script).

Usage: python scripts/bench_serve.py [--games 2000] [--clients 8] [--requests 50] [--workers 4]
                                     [--timeout-query 0.5] [--db PATH] [--shared DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from bench_query import DEFAULT_SHARED, ensure_index

REPO = Path(__file__).resolve().parents[1]

#: Queries SQL decides (the server's explain must say exact).
DECIDED = ["mate", "Kg1 Rf1 kg8 rf8 Qd1 qd8", "flipcolor {Q == 0 q == 1 #R > #r}", "btm stalemate",
           "move promote N", "flip {Ka1 kh8}", 'result 1-0 player black "Adams" year < 1980']
#: Queries SQL narrows and the evaluator confirms (explain must say not exact).
NARROWED = ["flipcolor {A attacks k > 1}", "line --> check{2,} --> mate",
            "child : {Q attacks k > 1}"]
#: Queries the server must refuse with a 400 and a line and column.
INVALID = ["mat", "Ka1 &&& Kh8", "flipcolor {", "line --> --> mate"]
#: A query that takes far longer than the timeout it is sent with: a 504 is the intended answer.
SLOW = "echo (s t) {s & t}"
#: The mix of kinds each client draws from (weights).
MIX = {"decided": 6, "narrowed": 2, "invalid": 1, "timeout": 1}
PAGE = 50


def start_server(db: Path, workers: int, timeout: float) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen([sys.executable, "-m", "cqlindex", "serve", str(db), "--port", "0", "--workers",
                                str(workers), "--timeout", str(timeout)], stdout=subprocess.PIPE, text=True, cwd=REPO)
    line = process.stdout.readline()
    found = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
    if not found:
        process.kill()
        raise SystemExit(f"bench_serve: the server did not start: {line!r}")
    return process, found.group(1)


def children(pid: int) -> list[int]:
    """The child processes of ``pid``, whichever of its threads started them (the server's
    workers are started by its slot threads: the main thread's own list has none of them)."""
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found += [int(p) for p in handle.read().split()]
    except (OSError, ValueError):
        pass
    return found


def rss_tree(pid: int) -> int:
    """Resident bytes of ``pid`` and its children (the query workers), from /proc."""
    total = 0
    pids = [pid]
    while pids:
        current = pids.pop()
        try:
            with open(f"/proc/{current}/statm") as handle:
                total += int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError):
            continue
        pids += children(current)
    return total


def cpu_seconds(pid: int) -> tuple[float, float]:
    """CPU seconds (user and system) spent so far by the server ``pid`` (with the workers it has
    reaped, those killed at a timeout say) and by its live workers, from /proc: what the run
    cost the machine, a figure that other work on it disturbs far less than the latencies."""
    def times(p: int) -> list[int]:
        with open(f"/proc/{p}/stat") as handle:
            return [int(v) for v in handle.read().rsplit(")", 1)[1].split()[11:15]]

    tick = os.sysconf("SC_CLK_TCK")
    try:
        utime, stime, cutime, cstime = times(pid)
    except (OSError, ValueError):
        return float("nan"), float("nan")
    workers = cutime + cstime
    for child in children(pid):
        try:
            workers += sum(times(child)[:2])
        except (OSError, ValueError):
            continue
    return (utime + stime) / tick, workers / tick


def cli_records(db: Path, query: str) -> list[dict]:
    done = subprocess.run([sys.executable, "-m", "cqlindex", "query", str(db), query, "--format", "json", "-q"],
                          capture_output=True, text=True, cwd=REPO, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"bench_serve: the CLI failed on {query!r}: {done.stderr}")
    return json.loads(done.stdout)


def expected_page(records: list[dict], last_game: int) -> tuple[int, int, list[dict]]:
    """Games, positions and the first page's records of ``records`` restricted to games 1..last_game."""
    kept = [r for r in records if r["gamenumber"] <= last_game]
    games = list(dict.fromkeys(r["gamenumber"] for r in kept))
    first = set(games[:PAGE])
    return len(games), len(kept), [r for r in kept if r["gamenumber"] in first]


def client(url: str, plan: list[tuple[str, str, int]], reference: dict, timeout_query: float,
           out: list, problems: list) -> None:
    with httpx.Client(base_url=url, timeout=120) as http:
        for kind, query, last_game in plan:
            params = {"cql": query, "limit": PAGE}
            if kind == "timeout":
                params.update(timeout=timeout_query, variations=1)
            elif kind != "invalid":
                params["gamenumber"] = f"1-{last_game}"
            started = time.perf_counter()
            answer = http.get("/api/query", params=params)
            seconds = time.perf_counter() - started
            out.append((kind, seconds))
            problem = check(kind, query, last_game, answer, reference)
            if problem:
                problems.append(f"{kind} {query!r} games 1-{last_game}: {problem}")


def check(kind: str, query: str, last_game: int, answer: httpx.Response, reference: dict) -> str | None:
    """What is wrong with ``answer``, or None."""
    if kind == "invalid":
        error = answer.json().get("error", {})
        if answer.status_code != 400 or not error.get("line") or not error.get("col"):
            return f"expected a 400 with line and column, got {answer.status_code} {answer.text[:200]}"
        return None
    if kind == "timeout":
        if answer.status_code != 504:
            return f"expected a 504, got {answer.status_code} {answer.text[:200]}"
        return None
    if answer.status_code != 200:
        return f"HTTP {answer.status_code}: {answer.text[:200]}"
    data = answer.json()
    games, positions, records = expected_page(reference[query], last_game)
    if (data["games"], data["positions"]) != (games, positions):
        return f"totals {data['games']}, {data['positions']} != the CLI's {games}, {positions}"
    if data["records"] != records:
        return "the page's records differ from the CLI's"
    return None


def plans(clients: int, requests: int, games: int, seed: int = 36) -> list[list[tuple[str, str, int]]]:
    """Each client's requests: kinds drawn by :data:`MIX`, each valid one with games 1..N of its
    own N (no two requests of the run share a cached result)."""
    rng = random.Random(seed)
    kinds = [k for k, weight in MIX.items() for _ in range(weight)]
    pool = {"decided": DECIDED, "narrowed": NARROWED, "invalid": INVALID, "timeout": [SLOW]}
    lasts = rng.sample(range(max(1, games - clients * requests * 4), games + 1), clients * requests)
    out = []
    for c in range(clients):
        plan = []
        for r in range(requests):
            kind = rng.choice(kinds)
            plan.append((kind, rng.choice(pool[kind]), lasts[c * requests + r]))
        out.append(plan)
    return out


def distribution(seconds: list[float]) -> dict:
    ordered = sorted(seconds)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return {"count": len(ordered), "median_ms": 1000 * statistics.median(ordered), "p90_ms": 1000 * at(0.9),
            "p99_ms": 1000 * at(0.99), "max_ms": 1000 * ordered[-1]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--timeout-query", type=float, default=0.5)
    parser.add_argument("--db", type=Path)
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    db = ensure_index(args.shared, args.games, args.db or REPO / "build" / f"bench-{args.games}.duckdb")
    # The server's own limit far above any query of the mix: only the requests sent with
    # --timeout-query are meant to time out.
    process, url = start_server(db, args.workers, timeout=600)
    peak = [rss_tree(process.pid)]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.05):
            peak.append(rss_tree(process.pid))

    try:
        with httpx.Client(base_url=url, timeout=120) as http:
            for kind, queries in (("decided", DECIDED), ("narrowed", NARROWED)):
                for query in queries:
                    exact = http.get("/api/explain", params={"cql": query}).json()["exact"]
                    if exact != (kind == "decided"):
                        raise SystemExit(f"bench_serve: {query!r} is {'' if exact else 'not '}exact, listed as {kind}")
        reference = {q: cli_records(db, q) for q in DECIDED + NARROWED}
        load_before = os.getloadavg()[0]
        sampler = threading.Thread(target=sample, daemon=True)
        cpu_before = cpu_seconds(process.pid)
        sampler.start()
        latencies: list = []
        problems: list = []
        started = time.perf_counter()
        with ThreadPoolExecutor(args.clients) as threads:
            for future in [threads.submit(client, url, plan, reference, args.timeout_query, latencies, problems)
                           for plan in plans(args.clients, args.requests, args.games)]:
                future.result()
        wall = time.perf_counter() - started
        cpu = [after - before for before, after in zip(cpu_before, cpu_seconds(process.pid))]
        done.set()
        sampler.join()
    finally:
        process.terminate()
        process.wait(30)
    by_kind = defaultdict(list)
    for kind, seconds in latencies:
        by_kind[kind].append(seconds)
    report = {"games": args.games, "clients": args.clients, "requests": len(latencies), "workers": args.workers,
              "wall_seconds": wall, "requests_per_second": len(latencies) / wall,
              "peak_rss_mib": max(peak) / 2**20, "latency": {k: distribution(v) for k, v in sorted(by_kind.items())},
              "cpu_seconds_server": cpu[0], "cpu_seconds_workers": cpu[1],
              "unintended_errors": problems, "load_before": load_before, "load_after": os.getloadavg()[0]}
    decided = report["latency"].get("decided", {}).get("median_ms", float("nan"))
    report["decided_median_under_150ms"] = decided < 150
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"cqlindex serve on {args.games:,} games: {args.clients} clients x {args.requests} requests, "
              f"{args.workers} workers, {wall:.1f} s, {report['requests_per_second']:.1f} requests/s")
        print(f"{'kind':<10}{'count':>7}{'median ms':>11}{'p90 ms':>9}{'p99 ms':>9}{'max ms':>9}")
        for kind, d in report["latency"].items():
            print(f"{kind:<10}{d['count']:>7}{d['median_ms']:>11.0f}{d['p90_ms']:>9.0f}{d['p99_ms']:>9.0f}"
                  f"{d['max_ms']:>9.0f}")
        print(f"peak resident memory, server and workers: {report['peak_rss_mib']:.0f} MiB")
        print(f"CPU time: server {cpu[0]:.1f} s, workers {cpu[1]:.1f} s")
        print(f"load average before {report['load_before']:.2f}, after {report['load_after']:.2f} "
              f"({os.cpu_count()} cores; other work on the machine slows every figure)")
        print(f"SQL-decided median {decided:.0f} ms: {'under' if decided < 150 else 'NOT under'} 150 ms")
        print(f"unintended errors: {len(problems)}")
        for problem in problems[:20]:
            print(f"  {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
