"""Benchmark the cqlindex build against a plain python-chess read-and-replay loop.

What it measures, for each dataset, in one run:

* the build (``cqlindex.ingest.pipeline.build``) run in a fresh child process:
  positions/s by wall clock, the same divided by the number of worker processes (wall
  positions/s per core), and positions per CPU second, where CPU time is user + sys of the
  build process and of its worker processes (``resource.getrusage`` RUSAGE_SELF and
  RUSAGE_CHILDREN deltas, taken inside the child around the ``build()`` call);
* the baseline, also in a fresh child process: one thread running ``chess.pgn.read_game``
  over the same file and replaying every node of each game tree, main line and variations
  (a depth-first walk with ``board.push``/``board.pop``), counting positions;
* the ratio build wall positions/s ÷ baseline positions/s;
* the size of the built ``.duckdb`` file per position;
* peak memory (ru_maxrss) of the build's main process and of its largest worker, and of the
  baseline process. Each measurement runs in its own child so that its peak is isolated
  from the others and from this script.

The datasets are the first ``--games`` games (default 20,000) of
``shared/data/large/gnuchess-book-145716.pgn.zst``, written as a plain temporary .pgn so that
the build and the baseline read the very same bytes without the decompression, and the whole
of ``shared/data/studies/cql6-sample.pgn`` (a small file of studies with many variations;
its timings are short and so noisier).

Why ratios: absolute timings depend on the machine, its load and its core count, so they are
reported but must never be used as pass/fail thresholds. What is comparable across machines
and commits is a ratio taken within one run, on one machine, on the same input: the build
against the plain python-chess loop that any user could write, and bytes per position.

One hard check: the build and the baseline must count the same number of positions (every
node of every game tree, the start position included). If they differ for any dataset the
script prints both and exits with status 1.

Usage: python scripts/bench_build.py [--games N] [--workers N] [--batch-games N]
                                     [--shared DIR] [--json]
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
import time
from pathlib import Path

DEFAULT_SHARED = Path(__file__).resolve().parents[2] / "shared"
LARGE = Path("data/large/gnuchess-book-145716.pgn.zst")
STUDIES = Path("data/studies/cql6-sample.pgn")
_RESULT_MARK = "BENCH-RESULT "


# --------------------------------------------------------------------------- child side

def _cpu(usage: resource.struct_rusage) -> float:
    return usage.ru_utime + usage.ru_stime


def _measure(work) -> tuple[object, dict]:
    """Run ``work()``; its result and wall/CPU/peak-RSS figures of this process and its children."""
    self0 = resource.getrusage(resource.RUSAGE_SELF)
    kids0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = work()
    wall = time.perf_counter() - started
    self1 = resource.getrusage(resource.RUSAGE_SELF)
    kids1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return result, {
        "wall_seconds": wall,
        "cpu_self_seconds": _cpu(self1) - _cpu(self0),
        "cpu_children_seconds": _cpu(kids1) - _cpu(kids0),
        "maxrss_self_kib": self1.ru_maxrss,  # KiB on Linux
        "maxrss_children_kib": kids1.ru_maxrss,  # the largest single (reaped) child
    }


def count_positions(game) -> int:
    """Every node of the game tree (start position included), replayed with push/pop."""
    board = game.board()
    count = 1
    stack = [iter(game.variations)]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
            if stack:
                board.pop()
            continue
        board.push(child.move)
        count += 1
        stack.append(iter(child.variations))
    return count


def _baseline(path: str) -> dict:
    import chess.pgn

    games = positions = 0
    with open(path, encoding="utf-8", errors="replace") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games += 1
            positions += count_positions(game)
    return {"games": games, "positions": positions}


def _build(path: str, output: str, workers: int, batch_games: int) -> dict:
    from cqlindex.ingest.pipeline import build

    summary = build([path], output, workers=workers, batch_games=batch_games)
    return {"games": summary.games, "positions": summary.positions,
            "mainline_positions": summary.mainline_positions, "errors": summary.errors,
            "summary_seconds": summary.seconds, "warnings": list(summary.warnings)}


def _child(spec: dict) -> None:
    if spec["kind"] == "build":
        import cqlindex.ingest.pipeline  # noqa: F401  (imports are not part of the timing)

        result, figures = _measure(lambda: _build(spec["input"], spec["output"], spec["workers"],
                                                  spec["batch_games"]))
    else:
        import chess.pgn  # noqa: F401

        result, figures = _measure(lambda: _baseline(spec["input"]))
    print(_RESULT_MARK + json.dumps({**result, **figures}), flush=True)


# --------------------------------------------------------------------------- parent side

def _run_child(spec: dict) -> dict:
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(spec)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"bench_build: the {spec['kind']} child failed (exit {done.returncode})")
    for line in done.stdout.splitlines():
        if line.startswith(_RESULT_MARK):
            return json.loads(line[len(_RESULT_MARK):])
    sys.stderr.write(done.stdout + done.stderr)
    raise SystemExit(f"bench_build: the {spec['kind']} child printed no result")


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


def bench_dataset(name: str, path: Path, workdir: Path, workers: int, batch_games: int) -> dict:
    output = workdir / f"{path.stem}.duckdb"
    build = _run_child({"kind": "build", "input": str(path), "output": str(output), "workers": workers,
                        "batch_games": batch_games})
    db_bytes = output.stat().st_size
    base = _run_child({"kind": "baseline", "input": str(path)})

    build_pps = build["positions"] / build["wall_seconds"]
    build_cpu = build["cpu_self_seconds"] + build["cpu_children_seconds"]
    base_pps = base["positions"] / base["wall_seconds"]
    base_cpu = base["cpu_self_seconds"] + base["cpu_children_seconds"]
    return {
        "dataset": name,
        "input": str(path),
        "input_bytes": path.stat().st_size,
        "workers": workers,
        "batch_games": batch_games,
        "build": {
            **build,
            "cpu_seconds": build_cpu,
            "positions_per_second_wall": build_pps,
            "positions_per_second_per_worker_wall": build_pps / workers,
            "positions_per_cpu_second": build["positions"] / build_cpu if build_cpu else None,
            "db_bytes": db_bytes,
            "db_bytes_per_position": db_bytes / build["positions"] if build["positions"] else None,
        },
        "baseline": {
            **base,
            "cpu_seconds": base_cpu,
            "positions_per_second_wall": base_pps,
            "positions_per_cpu_second": base["positions"] / base_cpu if base_cpu else None,
        },
        "ratio_build_wall_over_baseline": build_pps / base_pps,
        "ratio_build_cpu_over_baseline_cpu": ((build["positions"] / build_cpu) / (base["positions"] / base_cpu)
                                              if build_cpu and base_cpu else None),
        "positions_agree": build["positions"] == base["positions"],
    }


def _num(value, digits: int = 0) -> str:
    if value is None:
        return "-"
    return f"{value:,.{digits}f}"


def _mib(kib: int) -> str:
    return f"{kib / 1024:,.1f} MiB"


def print_table(r: dict) -> None:
    b, s, w = r["build"], r["baseline"], r["workers"]
    rows = [
        ("games", _num(b["games"]), _num(s["games"])),
        ("positions", _num(b["positions"]), _num(s["positions"])),
        ("wall seconds", _num(b["wall_seconds"], 2), _num(s["wall_seconds"], 2)),
        ("CPU seconds (user+sys, incl. children)", _num(b["cpu_seconds"], 2), _num(s["cpu_seconds"], 2)),
        ("  of which main process", _num(b["cpu_self_seconds"], 2), _num(s["cpu_self_seconds"], 2)),
        ("  of which worker processes", _num(b["cpu_children_seconds"], 2), "-"),
        ("positions/s (wall)", _num(b["positions_per_second_wall"]), _num(s["positions_per_second_wall"])),
        (f"positions/s per core (wall / {w} workers)", _num(b["positions_per_second_per_worker_wall"]),
         _num(s["positions_per_second_wall"])),
        ("positions per CPU second", _num(b["positions_per_cpu_second"]), _num(s["positions_per_cpu_second"])),
        ("peak RSS, main process", _mib(b["maxrss_self_kib"]), _mib(s["maxrss_self_kib"])),
        ("peak RSS, largest worker process", _mib(b["maxrss_children_kib"]) if b["cpu_children_seconds"] else "-",
         "-"),
        ("DB file bytes", _num(b["db_bytes"]), "-"),
        ("DB bytes per position", _num(b["db_bytes_per_position"], 1), "-"),
    ]
    head = ("", f"cqlindex build ({w} workers)", "python-chess baseline (1 thread)")
    widths = [max(len(row[i]) for row in (head, *rows)) for i in range(3)]
    title = f"{r['dataset']}  ({r['input']}, {r['input_bytes']:,} bytes)"
    print(title)
    print("=" * len(title))
    line = lambda row: f"{row[0]:<{widths[0]}}  {row[1]:>{widths[1]}}  {row[2]:>{widths[2]}}"  # noqa: E731
    print(line(head))
    print("-" * (sum(widths) + 4))
    for row in rows:
        print(line(row))
    print("-" * (sum(widths) + 4))
    print(f"ratio build/baseline, positions/s (wall):     {r['ratio_build_wall_over_baseline']:.2f}x")
    if r["ratio_build_cpu_over_baseline_cpu"] is not None:
        print(f"ratio build/baseline, positions per CPU s:     {r['ratio_build_cpu_over_baseline_cpu']:.2f}x")
    print(f"build: {b['mainline_positions']:,} main-line positions, {b['errors']:,} error rows, "
          f"BuildSummary.seconds {b['summary_seconds']:.2f}")
    for warning in b["warnings"]:
        print(f"build warning: {warning}")
    batches = -(-b["games"] // r["batch_games"])
    if batches < w:
        print(f"note: {b['games']:,} games make {batches} batch(es) of up to {r['batch_games']} games, so only "
              f"{batches} of the {w} workers had work; the per-core figure understates them")
    verdict = "agree" if r["positions_agree"] else "DIFFER"
    print(f"positions: build {b['positions']:,}, baseline {s['positions']:,} -> {verdict}")
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20000,
                        help="games taken from the start of the large file (default 20000)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="build worker processes (default: os.cpu_count())")
    parser.add_argument("--batch-games", type=int, default=None, help="games per batch (default: the pipeline's)")
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED,
                        help=f"the shared directory holding data/ (default {DEFAULT_SHARED})")
    parser.add_argument("--json", action="store_true", help="also print all figures as one JSON object")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child:
        _child(json.loads(args.child))
        return 0
    if args.games < 1 or args.workers < 1:
        parser.error("--games and --workers must be at least 1")

    from cqlindex.ingest.pipeline import BATCH_GAMES

    batch_games = args.batch_games or BATCH_GAMES
    large, studies = args.shared / LARGE, args.shared / STUDIES
    missing = [str(p) for p in (large, studies) if not p.is_file()]
    if missing:
        print("bench_build: missing input: " + ", ".join(missing), file=sys.stderr)
        return 2

    import chess
    import duckdb

    environment = {
        "python": platform.python_version(), "platform": platform.platform(),
        "cpu_count": os.cpu_count(), "workers": args.workers, "batch_games": batch_games,
        "chess": chess.__version__, "duckdb": duckdb.__version__,
    }
    print("cqlindex build benchmark  "
          + "  ".join(f"{k}={v}" for k, v in environment.items() if k != "platform"))
    print(f"platform: {environment['platform']}")
    print("(absolute timings depend on the machine and its load; compare ratios within one run)")
    print()

    results = []
    with tempfile.TemporaryDirectory(prefix="bench_build-") as tmp:
        workdir = Path(tmp)
        first = workdir / f"gnuchess-first-{args.games}.pgn"
        written = _first_games(large, first, args.games)
        name = f"gnuchess book, first {written:,} games"
        results.append(bench_dataset(name, first, workdir, args.workers, batch_games))
        print_table(results[-1])
        results.append(bench_dataset("cql6 studies sample (whole file)", studies, workdir, args.workers,
                                     batch_games))
        print_table(results[-1])

    if args.json:
        print(json.dumps({"environment": environment, "datasets": results}, indent=2))
    bad = [r["dataset"] for r in results if not r["positions_agree"]]
    if bad:
        print("bench_build: position counts of build and baseline differ for: " + "; ".join(bad), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
