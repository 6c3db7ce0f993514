"""Queries at full scale (issue 16): the benchmark query files against the bare DuckDB scan.

What it measures, in one run, on one index (the gnuchess slice of ``bench_query.py``, copied by
SQL with only ``gamenumber`` changed until it holds ``--positions``, 32 M by default, or
``--replicate`` times: tens of millions of positions without replaying them):

* per query file of ``shared/bench`` (a, b1, b2, c, c2, d1, d2): the in-process time of
  :func:`cqlindex.exec.run.run` (median of ``--repeat``), the CLI's wall time, CPU seconds and
  peak RSS (``cqlindex query DB -f FILE --format count`` in a child process), and the bare scan:
  ``SELECT count(*)`` over the plan's own candidate SQL (the pushed-down condition, no sort), on
  the same connection settings, warm (DuckDB's buffers filled by a warm-up run) and cold (a new
  connection per run, as every CLI query and every ``run`` starts); for the sequence queries (d1, d2) also the bare scan of their
  first step alone (:data:`FIRST_STEPS`), the issue's yardstick for them, warm and cold (``run``
  opens the index anew, so its DuckDB buffers start empty: the cold scan is the like-for-like one). The ratios (in-process / bare, CLI CPU / bare) are the figures
  to compare across machines; the games and positions found are printed so a fast wrong answer
  shows;
* start-up: ``cqlindex --help`` and a query on an empty range of games (``-gamenumber 0 0``),
  CPU seconds of the whole process;
* output that streams: ``true --format ndjson`` and ``--format csv`` into a file through the CLI
  (records/s over the whole process, CPU seconds, peak RSS), against DuckDB's own
  ``COPY ... TO (FORMAT json | csv)`` of the same rows without the FEN (the baseline), and the
  first :data:`PGN_GAMES` games as PGN (games/s, peak RSS of the process and of its tree: the
  writer's workers), against the same games written in one process (``pgn-1``), the same bytes.

Nothing here is a pass/fail threshold: absolute figures depend on the machine and its load.
Run from ``scripts/bench_query.py --scale [--positions N | --replicate K]`` or alone.
"""

from __future__ import annotations

import json
import math
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_bytecode import compiled

#: Games of the PGN output figure (the issue's target: 5,000 games/s on 100,000 games).
PGN_GAMES = 100_000
QUERIES = ("a", "b1", "b2", "c", "c2", "d1", "d2")
#: The first step of each sequence query: the issue's target is the query within 3x of its bare scan.
FIRST_STEPS = {"d1": "move to _ not move enpassant", "d2": "wtm move o-o-o"}


def copies_for(db: Path, positions: int) -> int:
    """How many copies of ``db``'s games reach ``positions`` positions (at least one)."""
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        held = con.execute("SELECT count(*) FROM positions").fetchall()[0][0]
    finally:
        con.close()
    return max(1, math.ceil(positions / max(held, 1)))


def replicated(db: Path, times: int) -> Path:
    """``db`` with its games and positions copied ``times`` times in all (gamenumbers shifted
    past the last game each time), built once beside it; ``db`` itself when ``times`` is 1."""
    import duckdb

    from cqlindex.store import rowmap

    if times <= 1:
        return db
    target = db.with_name(f"{db.stem}-x{times}.duckdb")
    if target.exists():
        return target
    partial = target.with_suffix(".partial")
    shutil.copyfile(db, partial)
    con = duckdb.connect(str(partial))
    try:
        con.execute("SET enable_progress_bar = false")
        last = con.execute("SELECT max(gamenumber) FROM games").fetchall()[0][0]
        for k in range(1, times):
            print(f"replicating: copy {k + 1} of {times} ...", file=sys.stderr)
            # No ORDER BY: the tables are stored in (gamenumber, positionid) order and DuckDB keeps the
            # order of a filtered scan (preserve_insertion_order), so each copy is appended in order
            # without sorting 11 M wide rows in memory (and a query sorts rows it finds out of order).
            con.execute("INSERT INTO games SELECT * REPLACE (gamenumber + ? AS gamenumber) FROM games "
                        "WHERE gamenumber <= ?", [k * last, last])
            con.execute("INSERT INTO positions SELECT * REPLACE (gamenumber + ? AS gamenumber) FROM positions "
                        "WHERE gamenumber <= ?", [k * last, last])
        rowmap.write(con)  # the copies' rows too, as cqlindex add does
    finally:
        con.close()
    partial.rename(target)
    return target


#: Runs a command and writes its CPU seconds and peak RSS (KB) to a file. The measured process is
#: forked from this small interpreter, not from the benchmark's: a child's peak RSS counts the
#: memory of the process it was forked from, which here holds whole query results.
_MEASURE = """
import json, os, subprocess, sys
process = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(process.pid, 0)
with open(sys.argv[1], "w") as out:
    json.dump({"cpu": usage.ru_utime + usage.ru_stime, "rss_kb": usage.ru_maxrss, "status": status}, out)
"""


def child(args: list[str], command: list[str] | None = None) -> dict:
    """Run ``python -m cqlindex ARGS`` (or ``command``): wall seconds, CPU seconds and peak RSS
    (MB) of that process (its own processes' CPU included), and the peak RSS of its whole process
    tree (MB: the PGN writer's workers included), sampled from /proc every 50 ms."""
    from bench_build import communicate_sampled

    with tempfile.TemporaryDirectory() as tmp:
        figures = Path(tmp) / "usage.json"
        started = time.perf_counter()
        process = subprocess.Popen([sys.executable, "-c", _MEASURE, str(figures),
                                    *(command or [sys.executable, "-m", "cqlindex", *args])],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        stdout, stderr, peak = communicate_sampled(process)
        wall = time.perf_counter() - started
        usage = json.loads(figures.read_text())
    if usage["status"] != 0:
        raise SystemExit(f"cqlindex {' '.join(args)} failed: {stderr.strip()}")
    return {"wall": wall, "cpu": usage["cpu"], "rss_mb": usage["rss_kb"] / 1024, "tree_rss_mb": peak / 2**20,
            "stdout": stdout, "stderr": stderr}


#: The PGN of the first games written in one process (:func:`cqlindex.output.pgn.write_pgn`, no
#: workers): the baseline of the CLI's PGN figure, the same bytes.
_ONE_PROCESS_PGN = """
import sys
from cqlindex.exec.run import run
from cqlindex.output.pgn import write_pgn
from cqlindex.store.database import connect
db, games, target = sys.argv[1], int(sys.argv[2]), sys.argv[3]
result = run(db, "true", gamenumbers=(1, games))
con = connect(db)
with open(target, "w", encoding="utf-8") as out:
    write_pgn(con, result, out, variations=result.variations)
"""


def bare_scan(db: Path, text: str, repeat: int, cold: bool = False) -> tuple[float, int]:
    """Median seconds and rows of ``SELECT count(*)`` over the plan's candidate SQL without its sort.

    Warm (default): one connection, after a warm-up run, so DuckDB's buffers hold the columns.
    ``cold``: a new connection (a new DuckDB instance) for each run, its buffers empty and only the
    OS's page cache warm: what every CLI query and every :func:`run` starts from, so the fair
    yardstick for them beside the warm one."""
    from cqlindex.exec.run import plan_for
    from cqlindex.store.database import connect

    select = plan_for(db, text).select.copy()
    select.set("order", None)
    sql = f"SELECT count(*) FROM ({select.sql(dialect='duckdb')})"
    con = connect(db)
    try:
        con.execute(sql).fetchall()  # warm-up
        times, rows = [], 0
        for _ in range(repeat):
            if cold:
                con.close()
                con = connect(db)
            started = time.perf_counter()
            rows = con.execute(sql).fetchall()[0][0]
            times.append(time.perf_counter() - started)
    finally:
        con.close()
    return statistics.median(times), rows


def query_rows(db: Path, bench: Path, repeat: int) -> list[dict]:
    from cqlindex.exec.run import run

    rows = []
    print(f"{'query':5} {'bare s':>7} {'cold s':>7} {'run s':>7} {'run/bare':>8} {'run/cold':>8} {'CLI wall':>8} {'CLI CPU':>7} "
          f"{'CPU/bare':>8} {'RSS MB':>7} {'games':>7} {'positions':>9} {'first s':>7} {'run/first':>9} "
          f"{'first cold':>10} {'run/fcold':>9}")
    for name in QUERIES:
        path = bench / f"{name}.cql"
        text = path.read_text(encoding="utf-8")
        bare, _ = bare_scan(db, text, repeat)
        cold, _ = bare_scan(db, text, repeat, cold=True)
        run(db, text)  # warm-up
        times = []
        result = None
        for _ in range(repeat):
            started = time.perf_counter()
            result = run(db, text)
            times.append(time.perf_counter() - started)
        fast = statistics.median(times)
        first = bare_scan(db, FIRST_STEPS[name], repeat)[0] if name in FIRST_STEPS else None
        first_cold = bare_scan(db, FIRST_STEPS[name], repeat, cold=True)[0] if name in FIRST_STEPS else None
        cli = child(["query", str(db), "-f", str(path), "--format", "count"])
        row = {"query": name, "bare_seconds": bare, "cold_bare_seconds": cold, "run_seconds": fast, "cli_wall": cli["wall"],
               "cli_cpu": cli["cpu"], "cli_rss_mb": cli["rss_mb"], "games": len(result.matches),
               "positions": result.positions, "first_step_bare_seconds": first,
               "first_step_cold_bare_seconds": first_cold}
        rows.append(row)
        print(f"{name:5} {bare:7.3f} {cold:7.3f} {fast:7.3f} {fast / bare:8.1f} {fast / cold:8.1f} {cli['wall']:8.2f} {cli['cpu']:7.2f} "
              f"{cli['cpu'] / bare:8.1f} {cli['rss_mb']:7.0f} {row['games']:7,} {row['positions']:9,}"
              + (f" {first:7.3f} {fast / first:9.1f} {first_cold:10.3f} {fast / first_cold:9.1f}" if first else ""))
    targets(rows)
    return rows


def targets(rows: list[dict]) -> None:
    """The issue's yardstick for the single-position queries, the CLI's wall time against 1.5x the
    bare scan plus 0.2 s of start-up, with either bare scan: the warm one, and the cold one, which
    is what any new process (a CLI, DuckDB's own shell) reads the index from. Under 1.0 is met."""
    print(f"\n{'query':5} {'CLI wall':>8} {'1.5 warm+0.2':>12} {'ratio':>6} {'1.5 cold+0.2':>12} {'ratio':>6}")
    for row in rows:
        if row["first_step_bare_seconds"] is not None:
            continue
        warm, cold = 1.5 * row["bare_seconds"] + 0.2, 1.5 * row["cold_bare_seconds"] + 0.2
        row["target_warm"], row["target_cold"] = warm, cold
        print(f"{row['query']:5} {row['cli_wall']:8.2f} {warm:12.2f} {row['cli_wall'] / warm:6.2f} {cold:12.2f} "
              f"{row['cli_wall'] / cold:6.2f}")


def startup_rows() -> dict:
    helps = [child(["--help"])["cpu"] for _ in range(3)]
    print(f"\nstart-up: cqlindex --help {statistics.median(helps):.2f} CPU s", end="")
    return {"help_cpu": statistics.median(helps)}


#: What any query's process imports before cqlindex does anything: DuckDB, and sqlglot with the
#: DuckDB dialect its SQL is generated in. The floor under a query's start-up.
_LIBRARIES = "import duckdb, sqlglot; sqlglot.Dialect.get_or_raise('duckdb').generator_class"


def empty_query_cpu(db: Path) -> float:
    cpus = [child(["query", str(db), "Ka1", "-gamenumber", "0", "0", "--format", "count"])["cpu"] for _ in range(3)]
    floor = statistics.median(child([], [sys.executable, "-c", _LIBRARIES])["cpu"] for _ in range(3))
    print(f"; a query on no games {statistics.median(cpus):.2f} CPU s (python with duckdb and sqlglot's "
          f"DuckDB dialect imported, nothing else: {floor:.2f})")
    return statistics.median(cpus)


#: The records' columns DuckDB can write by itself (all but the FEN), for the writers' baseline.
_BASELINE = ("SELECT p.gamenumber, p.positionid, p.ply, p.movenumber, p.wtm, p.mainline, p.depth, p.san, "
             "g.white, g.black, g.result, g.year, g.event, g.site, g.date, g.eco, p.move_from, p.move_to "
             "FROM positions p JOIN games g USING (gamenumber) WHERE p.mainline")


def stream_rows(db: Path) -> list[dict]:
    """``true`` written as ndjson and csv through the CLI, against DuckDB's COPY of the same rows,
    and the first :data:`PGN_GAMES` games as PGN."""
    import duckdb

    rows = []
    print(f"\n{'format':7} {'records':>10} {'wall s':>7} {'CPU s':>6} {'rec/s':>9} {'rec/CPU s':>9} {'RSS MB':>7} "
          f"{'COPY s':>7} {'COPY rec/s':>10} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for shape, copy_format in (("ndjson", "json"), ("csv", "csv")):
            target = Path(tmp) / f"out.{shape}"
            cli = child(["query", str(db), "true", "--format", shape, "-o", str(target)])
            with target.open("rb") as handle:
                records = sum(1 for _ in handle) - (shape == "csv")
            target.unlink()
            con = duckdb.connect(str(db), read_only=True)
            try:
                con.execute("SET enable_progress_bar = false")  # not into the benchmark's report
                started = time.perf_counter()
                con.execute(f"COPY ({_BASELINE}) TO '{Path(tmp) / 'copy'}' (FORMAT {copy_format})")
                copy = time.perf_counter() - started
            finally:
                con.close()
            rate, copy_rate = records / cli["wall"], records / copy
            rows.append({"format": shape, "records": records, "wall": cli["wall"], "cpu": cli["cpu"],
                         "records_per_second": rate, "records_per_cpu_second": records / cli["cpu"],
                         "rss_mb": cli["rss_mb"], "copy_seconds": copy, "copy_records_per_second": copy_rate})
            print(f"{shape:7} {records:10,} {cli['wall']:7.2f} {cli['cpu']:6.2f} {rate:9,.0f} "
                  f"{records / cli['cpu']:9,.0f} {cli['rss_mb']:7.0f} {copy:7.2f} {copy_rate:10,.0f} "
                  f"{cli['wall'] / copy:6.1f}")
        pgn = {}
        for shape, command in (("pgn", None), ("pgn-1", [sys.executable, "-c", _ONE_PROCESS_PGN, str(db),
                                                         str(PGN_GAMES), str(Path(tmp) / "out.pgn-1")])):
            target = Path(tmp) / f"out.{shape}"
            cli = child(["query", str(db), "true", "-gamenumber", "1", str(PGN_GAMES), "--format", "pgn", "-o",
                         str(target)], command)
            with target.open("rb") as handle:
                games = sum(line.startswith(b"[Event ") for line in handle)
            pgn[shape] = target
            rows.append({"format": shape, "games": games, "wall": cli["wall"], "cpu": cli["cpu"],
                         "games_per_second": games / cli["wall"], "games_per_cpu_second": games / cli["cpu"],
                         "rss_mb": cli["rss_mb"], "tree_rss_mb": cli["tree_rss_mb"]})
            print(f"{shape:7} {games:10,} {cli['wall']:7.2f} {cli['cpu']:6.2f} {games / cli['wall']:9,.0f} "
                  f"{games / cli['cpu']:9,.0f} {cli['rss_mb']:7.0f}  (games; process tree peak "
                  f"{cli['tree_rss_mb']:,.0f} MB{'' if command is None else '; one process, no workers'})")
        same = pgn["pgn"].read_bytes() == pgn["pgn-1"].read_bytes()
        rows[-1]["same_bytes"] = same
        print(f"pgn / pgn-1 wall: {rows[-2]['wall'] / rows[-1]['wall']:.2f}, "
              f"{'the same bytes' if same else '** THE BYTES DIFFER **'}")
    return rows


def report(db: Path, shared: Path, repeat: int) -> dict:
    """Print every figure above for the index ``db``; return them for ``--json``."""
    from cqlindex.store.database import connect

    con = connect(db)
    try:
        positions = con.execute("SELECT count(*) FROM positions").fetchall()[0][0]
    finally:
        con.close()
    print(f"index {db}: {positions:,} positions")
    compiled()
    figures = {"positions": positions, "queries": query_rows(db, shared / "bench", repeat)}
    figures["startup"] = startup_rows()
    figures["startup"]["empty_query_cpu"] = empty_query_cpu(db)
    figures["streams"] = stream_rows(db)
    return figures
