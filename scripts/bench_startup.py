"""Start-up of ``cqlindex query``: what a fresh process costs before (and until) its answer (issue 34).

What it measures, in one run:

* ``--runs`` fresh processes of each case, the cases taken in turn (one run of each, then the
  next round) so that a burst of load on a shared machine falls on all of them alike. For each
  case it prints the median and the minimum wall time and CPU time (user + sys of the child,
  from ``wait4``: Python's, DuckDB's threads', everything the process did). The cases:

  - ``pass``: ``python -c pass``, the interpreter's own start-up (a floor nothing here can cut);
  - ``duckdb``: ``python -c "import duckdb"``, the floor of any query that opens an index;
  - ``Ka1``: a query SQL decides alone (an exact plan: no evaluator), ``--format count``, its
    plan kept from the round before (:mod:`cqlindex.exec.plan_cache`: no parser, no planner);
  - ``Ka1 cold``: the same with an empty plan cache each time: parsed, planned, and kept;
  - ``ray``: ``ray (Q k)``, a post-filtered query (SQL candidates, the columnar engine confirms
    the rows the plan's WHERE selects; that WHERE kept from the round before: no planner);
  - ``a.cql``: a file of the shared benchmark queries (``-f``), a header and two filters (kept);

  each query case against the same small index (``--db``; built from samples/gnuchess-300.pgn
  when it does not exist), and with ``--base DIR`` each query case again run from that checkout
  (``Ka1 @base``: the code before a change, measured in the same rounds). The plan cache (``XDG_CACHE_HOME``) is a folder of this run's own,
  never the user's. The last columns are each case's median over the two floors' medians
  taken in the same run: the figures to compare across machines and commits, since the absolute
  ones move with the machine's load.

* ``--phases``: one more set of fresh processes that time the stages of the Ka1 query inside the
  process as a run without a kept plan goes (importing what the command line imports, parsing,
  connecting, planning, running the SQL and writing the count), medians over the runs, so that
  the total above can be read as its parts. Imports inside each stage are counted in that stage.

Nothing here is a pass/fail threshold. Usage:

    python scripts/bench_startup.py [--runs 20] [--db /tmp/startup/small.duckdb] [--base DIR] [--phases] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("CQLINDEX_SHARED", "/work/shared"))

#: The Ka1 query's stages, timed inside one fresh process (``--phases``); printed as JSON.
PHASES = r"""
import json, sys, time
t0 = time.perf_counter()
from cqlindex.cli_execute import execute
t1 = time.perf_counter()
from cqlindex.query.prepare import prepare
prepared = prepare(sys.argv[2], variations=None)
t2 = time.perf_counter()
from cqlindex.store.database import connect
con = connect(sys.argv[1])
t3 = time.perf_counter()
from cqlindex.exec.run import plan_prepared
plan = plan_prepared(con, prepared)
sql = plan.select.sql(dialect="duckdb")
t4 = time.perf_counter()
from cqlindex.exec.rows import grouped
rows, count = grouped(con, plan.select, plan.batched)
t5 = time.perf_counter()
sys.stderr.write(f"{len(rows)} games {count} positions\n")
t6 = time.perf_counter()
print(json.dumps({"import cli_execute": t1 - t0, "parse": t2 - t1, "connect": t3 - t2, "plan": t4 - t3,
                  "execute": t5 - t4, "output": t6 - t5, "total": t6 - t0}))
"""


def cases(python: str, db: Path, base: Path | None) -> dict[str, tuple[list[str], bool, Path]]:
    """Each case's command line (a fresh process each time it runs), whether its plan cache is
    empty each time, and the checkout it runs (``base``'s cases are named ``... @base``)."""
    query = [python, "-m", "cqlindex", "query", str(db)]
    queries = {
        "Ka1": ([*query, "Ka1", "--format", "count"], False),
        "Ka1 cold": ([*query, "Ka1", "--format", "count"], True),
        "ray": ([*query, "ray (Q k)", "--format", "count"], False),
        "a.cql": ([*query, "-f", str(SHARED / "bench" / "a.cql"), "--format", "count"], False),
    }
    found = {"pass": ([python, "-c", "pass"], False, ROOT), "duckdb": ([python, "-c", "import duckdb"], False, ROOT)}
    for name, (command, cold) in queries.items():
        found[name] = (command, cold, ROOT)
        if base is not None:
            found[f"{name} @base"] = (command, cold, base)
    return found


def timed(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU (user + sys) seconds of one run of ``command`` in the folder ``cwd`` (not a
    checkout: ``python -m`` puts its folder first on the module path); SystemExit if it fails."""
    started = time.perf_counter()
    child = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stderr = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"{' '.join(command)} failed ({child.returncode}): {stderr.decode(errors='replace')}")
    return wall, usage.ru_utime + usage.ru_stime


def ensure_index(python: str, db: Path, env: dict[str, str]) -> None:
    """Build the small index from samples/gnuchess-300.pgn if ``db`` does not exist."""
    if db.exists():
        return
    db.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([python, "-m", "cqlindex", "build", str(ROOT / "samples" / "gnuchess-300.pgn"), "-o", str(db),
                    "-q"], env=env, check=True, stdout=subprocess.DEVNULL)


def measure(commands: dict[str, tuple[list[str], bool, Path]], runs: int,
            cache: Path) -> dict[str, dict[str, float]]:
    """Median and minimum wall and CPU of each case, ``runs`` rounds, one run of each case per round
    (after one unmeasured round that warms the file cache and keeps the plans), the plans kept
    under ``cache`` (an empty folder of its own each time for a cold case)."""
    walls: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    for round_ in range(runs + 1):
        for name, (command, cold, root) in commands.items():
            with tempfile.TemporaryDirectory(dir=cache) as empty:
                wall, cpu = timed(command, {**environment(root),
                                            "XDG_CACHE_HOME": empty if cold else str(cache / "kept")}, cache)
            if round_:
                walls[name].append(wall)
                cpus[name].append(cpu)
    return {name: {"wall_median": statistics.median(walls[name]), "wall_min": min(walls[name]),
                   "cpu_median": statistics.median(cpus[name]), "cpu_min": min(cpus[name])} for name in commands}


def environment(root: Path) -> dict[str, str]:
    """This process's environment with the checkout ``root`` first on the module path."""
    return {**os.environ, "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def phases(python: str, db: Path, runs: int, env: dict[str, str]) -> dict[str, float]:
    """Median seconds of each stage of the Ka1 query over ``runs`` fresh processes."""
    samples: list[dict[str, float]] = []
    for _ in range(runs):
        done = subprocess.run([python, "-c", PHASES, str(db), "Ka1"], env=env, cwd=ROOT, capture_output=True, text=True,
                              check=True)
        samples.append(json.loads(done.stdout))
    return {stage: statistics.median(sample[stage] for sample in samples) for stage in samples[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="fresh processes per case (default 20)")
    parser.add_argument("--db", type=Path, default=Path("/tmp/startup/small.duckdb"),
                        help="the small index (built from samples/gnuchess-300.pgn if missing)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter to run (default: this one)")
    parser.add_argument("--phases", action="store_true", help="also time the Ka1 query's stages in-process")
    parser.add_argument("--base", type=Path,
                        help="another checkout (main, say) whose query cases run too, in the same rounds")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    env = environment(ROOT)
    ensure_index(args.python, args.db, env)
    with tempfile.TemporaryDirectory() as cache:
        figures = measure(cases(args.python, args.db, args.base), args.runs, Path(cache))
    stages = phases(args.python, args.db, args.runs, env) if args.phases else None
    if args.json:
        print(json.dumps({"cases": figures, "phases": stages, "load": os.getloadavg()}, indent=2))
        return
    floor, duck = figures["pass"]["wall_median"], figures["duckdb"]["wall_median"]
    print(f"{args.runs} runs per case, load average {os.getloadavg()[0]:.2f} at the end")
    print(f"{'case':15} {'wall med':>9} {'wall min':>9} {'cpu med':>8} {'cpu min':>8} {'/pass':>6} {'/duckdb':>8}")
    for name, f in figures.items():
        print(f"{name:15} {f['wall_median']:9.3f} {f['wall_min']:9.3f} {f['cpu_median']:8.3f} {f['cpu_min']:8.3f} "
              f"{f['wall_median'] / floor:6.2f} {f['wall_median'] / duck:8.2f}")
    if stages:
        print("Ka1 in one process, median seconds per stage:")
        for stage, seconds in stages.items():
            print(f"  {stage:18} {seconds:.4f}")


if __name__ == "__main__":
    main()
