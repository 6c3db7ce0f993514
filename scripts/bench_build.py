"""Benchmark the cqlindex build: the compiled path against the python-chess path, in one run.

For each dataset and reader (``--reader compiled`` and ``--reader python-chess``) the build
runs in a fresh child process, and this script reports:

* wall seconds and positions/s (wall), CPU seconds (user + sys of the build and its workers,
  ``resource.getrusage`` deltas taken inside the child; "main" is the build process alone:
  cutting the input into pieces and the DuckDB inserts; the workers split and read the games)
  and positions per CPU second;
* the peak RSS of the whole process tree (the build and its workers together), sampled from
  /proc every 50 ms by this script, and the peak of the main process alone;
* the database's bytes per position;
* the ratio compiled / python-chess of positions/s (wall), the figure the compiled path is for.

Datasets: the first ``--games`` games (default 20,000) of the gnuchess book, written as a
plain .pgn, built both ways; then the whole gnuchess file (``.zst``, 11.4 M positions) with the
compiled path (``--full-python`` adds the python-chess path on it too: minutes), and with
``--twice`` the whole file given twice (its peak RSS must equal the single file's: memory is
bounded by the batch, not the input).

Why ratios: absolute timings depend on the machine, its load and its core count; a ratio taken
within one run on the same input is what compares. The load average is printed with the
results for that reason.

Hard check: both readers must index the same number of positions; otherwise exit status 1.

Usage: python scripts/bench_build.py [--games N] [--workers N] [--full-python] [--twice]
                                     [--skip-full] [--shared DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

DEFAULT_SHARED = Path(__file__).resolve().parents[2] / "shared"
LARGE = Path("data/large/gnuchess-book-145716.pgn.zst")
_RESULT_MARK = "BENCH-RESULT "
_PAGE = os.sysconf("SC_PAGE_SIZE")


# --------------------------------------------------------------------------- child side

def _child(spec: dict) -> None:
    from cqlindex.ingest.pipeline import build

    before_self = resource.getrusage(resource.RUSAGE_SELF)
    before_kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    summary = build(spec["inputs"], spec["output"], workers=spec["workers"], reader=spec["reader"])
    wall = time.perf_counter() - started
    _end_fork_server()
    after_self = resource.getrusage(resource.RUSAGE_SELF)
    after_kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    main, workers = (sum(getattr(a, f) - getattr(b, f) for f in ("ru_utime", "ru_stime"))
                     for a, b in ((after_self, before_self), (after_kids, before_kids)))
    cpu = main + workers
    print(_RESULT_MARK + json.dumps({
        "games": summary.games, "positions": summary.positions, "errors": summary.errors,
        "wall_seconds": wall, "cpu_seconds": cpu, "cpu_main_seconds": main, "maxrss_main_kib": after_self.ru_maxrss,
    }), flush=True)


def _end_fork_server() -> None:
    """Stop and reap the fork server the workers came from: their CPU reaches this process's
    children's usage only through it. (``_stop`` is CPython's own, used by its tests.)"""
    from multiprocessing import forkserver

    stop = getattr(getattr(forkserver, "_forkserver", None), "_stop", None)
    if stop is not None:
        stop()


# --------------------------------------------------------------------------- parent side

def _tree_rss(root: int) -> int:
    """Resident bytes of ``root`` and all its descendants, from /proc."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
                parents[int(entry)] = int(fields[1])
            except (OSError, IndexError, ValueError):
                continue
    tree, frontier = {root}, [root]
    while frontier:
        pid = frontier.pop()
        for child, parent in parents.items():
            if parent == pid and child not in tree:
                tree.add(child)
                frontier.append(child)
    total = 0
    for pid in tree:
        try:
            with open(f"/proc/{pid}/statm") as handle:
                total += int(handle.read().split()[1]) * _PAGE
        except (OSError, IndexError, ValueError):
            continue
    return total


def communicate_sampled(process: subprocess.Popen) -> tuple[str, str, int]:
    """``process.communicate()``, with the peak resident bytes of its process tree, sampled every 50 ms."""
    peak = [0]
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], _tree_rss(process.pid))
            stop.wait(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = process.communicate()
    stop.set()
    sampler.join()
    return out, err, peak[0]


def _column_costs(db: Path) -> dict[str, int]:
    """Bytes each ``positions`` column takes on disk, from DuckDB's storage info.

    A segment's size is the distance to the next segment of its block (the last one: to the
    block's end, so the figure is an upper bound), plus any whole overflow blocks it uses.
    """
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        block_size = con.execute("SELECT block_size FROM pragma_database_size()").fetchall()[0][0]
        rows = con.execute("SELECT column_name, block_id, block_offset, len(additional_block_ids) "
                           "FROM pragma_storage_info('positions') WHERE block_id >= 0 "
                           "ORDER BY block_id, block_offset").fetchall()
    finally:
        con.close()
    costs: dict[str, int] = {}
    for i, (column, block, offset, extra) in enumerate(rows):
        end = rows[i + 1][2] if i + 1 < len(rows) and rows[i + 1][1] == block else block_size
        costs[column] = costs.get(column, 0) + end - offset + extra * block_size
    return costs


def _run_build(inputs: list[str], output: Path, workers: int, reader: str) -> dict:
    spec = {"inputs": inputs, "output": str(output), "workers": workers, "reader": reader}
    process = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(spec)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err, peak = communicate_sampled(process)
    if process.returncode != 0:
        sys.stderr.write(out + err)
        raise SystemExit(f"bench_build: the {reader} build failed (exit {process.returncode})")
    line = next(x for x in out.splitlines() if x.startswith(_RESULT_MARK))
    result = json.loads(line[len(_RESULT_MARK):])
    size = output.stat().st_size
    costs = _column_costs(output)
    output.unlink()
    return {**result, "reader": reader, "peak_tree_rss_bytes": peak, "db_bytes": size, "column_bytes": costs,
            "bytes_per_position": size / result["positions"], "positions_per_second": result["positions"]
            / result["wall_seconds"], "positions_per_cpu_second": result["positions"] / result["cpu_seconds"]}


def _first_games(source: Path, target: Path, limit: int) -> int:
    """Write the first ``limit`` games of ``source`` (any compression) to plain ``target``."""
    from cqlindex.ingest.source import open_binary, split_games

    written = 0
    with open_binary(source) as stream, target.open("wb") as out:
        for raw in split_games(stream, str(source)):
            out.write(raw.data)
            written += 1
            if written >= limit:
                break
    return written


def _print(name: str, runs: list[dict]) -> None:
    print(name)
    print("=" * len(name))
    print(f"{'reader':<14}{'games':>9}{'positions':>12}{'wall s':>9}{'CPU s':>9}{'(main)':>8}{'positions/s':>13}"
          f"{'pos/CPU s':>11}{'peak RSS tree':>15}{'bytes/pos':>11}")
    for r in runs:
        print(f"{r['reader']:<14}{r['games']:>9,}{r['positions']:>12,}{r['wall_seconds']:>9.2f}{r['cpu_seconds']:>9.2f}"
              f"{r['cpu_main_seconds']:>8.2f}"
              f"{r['positions_per_second']:>13,.0f}{r['positions_per_cpu_second']:>11,.0f}"
              f"{r['peak_tree_rss_bytes'] / 2**20:>11,.0f} MiB{r['bytes_per_position']:>11.1f}")
    if len(runs) == 2:
        a, b = runs
        print(f"ratio {a['reader']} / {b['reader']}: positions/s (wall) {a['positions_per_second'] / b['positions_per_second']:.2f}x,"
              f" positions per CPU second {a['positions_per_cpu_second'] / b['positions_per_cpu_second']:.2f}x;"
              f" positions {'agree' if a['positions'] == b['positions'] else 'DIFFER'}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    first = runs[0]
    costs = sorted(first["column_bytes"].items(), key=lambda kv: -kv[1])
    print(f"positions columns on disk ({first['reader']}), bytes per position (upper bounds): "
          + ", ".join(f"{name} {size / first['positions']:.2f}" for name, size in costs))
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20000, help="games of the slice (default 20000)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="build worker processes")
    parser.add_argument("--full-python", action="store_true", help="also build the whole file with python-chess")
    parser.add_argument("--twice", action="store_true", help="also build the whole file given twice (memory bound)")
    parser.add_argument("--skip-full", action="store_true", help="only the slice")
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help="the shared directory holding data/")
    parser.add_argument("--json", action="store_true", help="also print all figures as one JSON object")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(json.loads(args.child))
        return 0
    large = args.shared / LARGE
    if not large.is_file():
        print(f"bench_build: missing input: {large}", file=sys.stderr)
        return 2

    import chess
    import duckdb

    print(f"cqlindex build benchmark  python={platform.python_version()} cpu_count={os.cpu_count()} "
          f"workers={args.workers} chess={chess.__version__} duckdb={duckdb.__version__}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
          "(the machine may be shared: compare ratios within one run)")
    print()
    results: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory(prefix="bench_build-") as tmp:
        work = Path(tmp)
        first = work / f"gnuchess-first-{args.games}.pgn"
        written = _first_games(large, first, args.games)
        name = f"gnuchess book, first {written:,} games"
        results[name] = [_run_build([str(first)], work / f"{reader}.duckdb", args.workers, reader)
                         for reader in ("compiled", "python-chess")]
        _print(name, results[name])
        if not args.skip_full:
            name = "gnuchess book, whole file (.zst)"
            readers = ("compiled", "python-chess") if args.full_python else ("compiled",)
            results[name] = [_run_build([str(large)], work / f"full-{r}.duckdb", args.workers, r) for r in readers]
            _print(name, results[name])
        if args.twice:
            name = "gnuchess book, whole file given twice"
            results[name] = [_run_build([str(large), str(large)], work / "twice.duckdb", args.workers, "compiled")]
            _print(name, results[name])
    if args.json:
        print(json.dumps(results, indent=2))
    bad = [n for n, runs in results.items() if len({r["positions"] for r in runs}) > 1]
    if bad:
        print("bench_build: the readers' position counts differ for: " + "; ".join(bad), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
