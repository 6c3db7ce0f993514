"""Benchmark PGN output: games/s written from the index's columns against python-chess's export.

The index is the first ``--games`` games of ``shared/data/large/gnuchess-book-145716.pgn.zst``,
sliced into a plain PGN kept beside it (``build/bench-output-<games>.pgn``) so that the
python-chess path reads the games from their source as it does for users, and built once into
``build/bench-output-<games>.duckdb``. The query is ``true`` (every game matches, every
main-line position is marked: the most markers there can be). In one run, on the same result:

* the default writer (:mod:`cqlindex.output.movetext`, python-chess only for the games it
  leaves): all matched games;
* the reference path (``reference=True``: read the source, parse, replay, export with python-chess)
  on the first ``--reference-games`` of them (it is the slow side);
* both outputs must agree on the common games byte for byte, else the script exits with status 1.

It prints games/s for each (wall and CPU), their ratio and the machine's load average: absolute
figures depend on the load, the ratio in one run is what compares.

Usage: python scripts/bench_output.py [--games N] [--reference-games N] [--shared DIR] [--json]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time
from pathlib import Path

DEFAULT_SHARED = Path(__file__).resolve().parents[2] / "shared"
LARGE = Path("data/large/gnuchess-book-145716.pgn.zst")


def ensure_index(shared: Path, games: int) -> Path:
    """The index of the first ``games`` games, its sliced PGN kept beside it (built once)."""
    from cqlindex.ingest.pipeline import build
    from cqlindex.ingest.source import open_binary, split_games

    build_dir = Path(__file__).resolve().parents[1] / "build"
    build_dir.mkdir(exist_ok=True)
    pgn, db = build_dir / f"bench-output-{games}.pgn", build_dir / f"bench-output-{games}.duckdb"
    if db.exists() and pgn.exists():
        return db
    written = 0
    with open_binary(shared / LARGE) as stream, pgn.open("wb") as out:
        for raw in split_games(stream, str(shared / LARGE)):
            out.write(raw.data)
            written += 1
            if games and written >= games:
                break
    print(f"building an index of {written:,} games into {db} ...", file=sys.stderr)
    started = time.perf_counter()
    build([str(pgn)], db)
    print(f"built in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return db


def timed(write) -> tuple[float, float, object]:
    wall, cpu = time.perf_counter(), time.process_time()
    value = write()
    return time.perf_counter() - wall, time.process_time() - cpu, value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20000, help="games in the index (default 20000)")
    parser.add_argument("--reference-games", type=int, default=2000,
                        help="games written by the python-chess path (default 2000)")
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help="the shared directory holding data/")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)

    from cqlindex.exec.run import run
    from cqlindex.output.pgn import write_pgn
    from cqlindex.store.database import connect

    db = ensure_index(args.shared, args.games)
    result = run(db, "true")
    con = connect(db)
    fast = io.StringIO()
    wall, cpu, summary = timed(lambda: write_pgn(con, result, fast, variations=False))
    everything = result.matches
    result.matches = dict(list(everything.items())[:args.reference_games])
    slow = io.StringIO()
    ref_wall, ref_cpu, ref_summary = timed(lambda: write_pgn(con, result, slow, variations=False, reference=True))
    result.matches = everything
    common = slow.getvalue()
    agree = fast.getvalue()[:len(common)] == common and ref_summary.rebuilt == []
    figures = {
        "games": summary.games, "left_to_python_chess": summary.reference,
        "fast_games_per_s_wall": summary.games / wall, "fast_games_per_s_cpu": summary.games / cpu,
        "reference_games": ref_summary.games,
        "reference_games_per_s_wall": ref_summary.games / ref_wall,
        "reference_games_per_s_cpu": ref_summary.games / ref_cpu,
        "load_average_1min": os.getloadavg()[0], "agree": agree,
    }
    figures["speedup_cpu"] = figures["fast_games_per_s_cpu"] / figures["reference_games_per_s_cpu"]
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"index: {db.name}, query 'true' (main line), load average {figures['load_average_1min']:.2f}")
        print(f"  columns writer : {summary.games:>7,} games  {figures['fast_games_per_s_wall']:>9,.0f} games/s wall"
              f"  {figures['fast_games_per_s_cpu']:>9,.0f} games/s CPU  ({summary.reference} left to python-chess)")
        print(f"  python-chess   : {ref_summary.games:>7,} games  "
              f"{figures['reference_games_per_s_wall']:>9,.0f} games/s wall"
              f"  {figures['reference_games_per_s_cpu']:>9,.0f} games/s CPU")
        print(f"  speed-up (CPU) : {figures['speedup_cpu']:.1f}x; outputs agree on the common games: {agree}")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
