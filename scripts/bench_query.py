"""Benchmark queries: the default engine (SQL planner) against the Python evaluator and a python-chess scan.

What it measures, in one run:

* for each query of :data:`QUERIES` (one or more per family: piece placement, counts,
  transforms including a shift, check/mate flags, attacks, ``move``, game metadata, ``line``,
  ``find``, ``:``), on the same index: the default engine's time (median of ``--repeat`` runs,
  after one warm-up run), the Python evaluator's time (one run: it is the slow side), their
  ratio, whether the plan is exact (SQL alone) or narrowed (SQL candidates, Python confirms),
  and the number of candidate and matching positions. Both engines must return the same
  matches; if they differ the script says so and exits with status 1;
* for the queries of :data:`HAND_WRITTEN`, on the first ``--scan-games`` games of the same
  file: a plain python-chess scan (``read_game`` and replay of every main-line move) that
  evaluates the predicate written by hand, against the default engine restricted to the same
  games (``gamenumbers``). The scan's count of matching games must equal the engine's.

The index is the first ``--games`` games of ``shared/data/large/gnuchess-book-145716.pgn.zst``
(0 = all 145,716), built once into ``--db`` (default ``build/bench-<games>.duckdb``) and
reused by later runs. The Python evaluator needs about 30 microseconds a position, so on the
whole file it takes minutes per query: the default of 20,000 games (1.55 million positions)
keeps a full run around ten minutes.

The relation report (``--only relation`` runs it alone) times seed 001's chameleon-echo query
(:data:`CHAMELEON`, CQL 5's ``relation`` with ``echoshift``) on studies/cql6-sample.pgn with
variations with both engines (they must agree), and on the same gnuchess index with the default
engine only: a source against every other position of its game, over 1.55 million positions
(issue 17 aims at under 30 s there).

With ``--engine spark`` it times instead ``--engine spark`` (the index exported as Parquet once,
beside ``--db``; a local Spark of ``--spark-master``) against the default engine on DuckDB, per
query, after one warm-up run of each: the ratio is Spark's time over DuckDB's, with the same
agreement check. It is the entry to a cluster, not a race: on one machine Spark pays for its JVM,
its scheduling and the Arrow trips to the Python workers.

Why ratios: absolute timings depend on the machine and its load; a ratio taken in one run on
the same index is what compares across machines and commits. Nothing here is a pass/fail
threshold except the agreement checks.

Usage: python scripts/bench_query.py [--games N] [--scan-games N] [--repeat N] [--db PATH]
                                     [--shared DIR] [--only FAMILY|relation] [--skip-python] [--json]
                                     [--engine spark [--spark-master URL]]
       python scripts/bench_query.py --examples [--only NAME] [--skip-python]
       python scripts/bench_query.py --scale [--games N] [--positions N | --replicate K] [--repeat N] [--json]

With ``--scale`` (scripts/bench_scale.py) the index is the whole file (``--games 0``) copied by SQL,
only gamenumber changed, until it holds ``--positions`` (default 32 M) positions; a small run to
try it: ``--scale --games 2000 --positions 400000 --repeat 1``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import chess
import chess.pgn

DEFAULT_SHARED = Path(__file__).resolve().parents[2] / "shared"
LARGE = Path("data/large/gnuchess-book-145716.pgn.zst")

#: (family, query). Families follow issue 4's list; the last three have a residual part.
QUERIES: list[tuple[str, str]] = [
    ("placement", "Kg1 Rf1 kg8 rf8 Qd1 qd8"),
    ("placement", "[Aa]e4 & p == 0"),
    ("counts", "#[Aa] <= 8 Q == 0 q == 0"),
    ("counts", "power A >= power a + 9"),
    ("transform", "flipcolor {Q == 0 q == 1 #R > #r}"),
    ("transform", "flip {Ka1 kh8}"),
    ("transform", "shift {Kd4 Pd5 ke6}"),
    ("flags", "mate"),
    ("flags", "btm stalemate"),
    ("attacks", "flipcolor {A attacks k > 1}"),
    ("attacks", "flipcolor {btm mate _ attackedby k == 0}"),
    ("move", "move promote N"),
    ("move", "move from N to f7 capture p"),
    ("metadata", 'result 1-0 player black "Adams" year < 1980'),
    ("line", "line --> check --> check --> check --> check"),
    ("find", "initial find mate"),
    ("find", "find {A attacks k > 1}"),
    (":", "parent : check child : check"),
    (":", "child : {Q attacks k > 1}"),
]


#: Seed 001's chameleon-echo query: the white king changes square colour in a shifted echo.
CHAMELEON = "K on darksquares relation K on lightsquares (tomove match) echoshift (mismatch 0)"
STUDIES = Path("data/studies/cql6-sample.pgn")


def relation_report(shared: Path, db: Path, repeat: int, skip_python: bool, studies_db: Path) -> int:
    """Print the chameleon-echo timings; return the number of engine disagreements."""
    from cqlindex.exec.run import run
    from cqlindex.ingest.pipeline import build

    if not studies_db.exists():
        studies_db.parent.mkdir(parents=True, exist_ok=True)
        build([str(shared / STUDIES)], studies_db)
    print(f"\nrelation (seed 001): {CHAMELEON}")
    print(f"{'index':38} {'default s':>10} {'python s':>9} {'ratio':>7} {'cands':>9} {'matches':>8}")
    failures = 0
    for name, index, variations, with_python in (("studies/cql6-sample.pgn, variations", studies_db, True, True),
                                                  (f"gnuchess slice ({db.name}), main line", db, False, False)):
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            result = run(index, CHAMELEON, variations=variations)
            times.append(time.perf_counter() - started)
        fast = statistics.median(times)
        slow = ratio = float("nan")
        if with_python and not skip_python:
            started = time.perf_counter()
            reference = run(index, CHAMELEON, variations=variations, engine="python")
            slow = time.perf_counter() - started
            ratio = slow / fast if fast else float("nan")
            if reference.matches != result.matches:
                failures += 1
                name += "  ** ENGINES DIFFER **"
        print(f"{name:38} {fast:10.3f} {slow:9.2f} {ratio:7.1f} {result.candidates or 0:9,} {result.positions:8,}")
    return failures


def _mates(board: chess.Board) -> bool:
    return board.is_checkmate()


def _few_pieces(board: chess.Board) -> bool:
    return (chess.popcount(board.occupied) <= 8 and not board.queens)


def _corner_kings(board: chess.Board) -> bool:
    for white, black in ((chess.A1, chess.H8), (chess.H8, chess.A1), (chess.H1, chess.A8), (chess.A8, chess.H1)):
        if board.king(chess.WHITE) == white and board.king(chess.BLACK) == black:
            return True
    return False


#: Queries with a predicate written directly with python-chess, for the scan baseline. The
#: predicate sees every main-line position (the start included), like CQL's default search.
HAND_WRITTEN: dict[str, Callable[[chess.Board], bool]] = {
    "mate": _mates,
    "#[Aa] <= 8 Q == 0 q == 0": _few_pieces,
    "flip {Ka1 kh8}": _corner_kings,
}


def slice_games(source: Path, target: Path, limit: int) -> int:
    """The first ``limit`` games of ``source`` (0 = all) as a plain PGN; how many were written."""
    from cqlindex.ingest.source import open_binary, split_games

    written = 0
    with open_binary(source) as stream, target.open("wb") as out:
        for raw in split_games(stream, str(source)):
            out.write(raw.data)
            written += 1
            if limit and written >= limit:
                break
    return written


def ensure_index(shared: Path, games: int, db: Path) -> Path:
    from cqlindex.ingest.pipeline import build

    if db.exists():
        return db
    db.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        pgn = Path(tmp) / "slice.pgn"
        n = slice_games(shared / LARGE, pgn, games)
        print(f"building an index of {n:,} games into {db} ...", file=sys.stderr)
        started = time.perf_counter()
        build([str(pgn)], db)
        print(f"built in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return db


def time_engine(db: Path, query: str, engine: str, repeat: int,
                gamenumbers: tuple[int, int] | None = None) -> tuple[float, object]:
    from cqlindex.exec.run import run

    times = []
    result = None
    for _ in range(repeat):
        started = time.perf_counter()
        result = run(db, query, engine=engine, gamenumbers=gamenumbers)
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def scan(pgn: Path, predicate: Callable[[chess.Board], bool]) -> tuple[float, int]:
    """Seconds and matching games of a python-chess read-and-replay scan of ``pgn``."""
    started = time.perf_counter()
    matching = 0
    with pgn.open(encoding="latin-1") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            board = game.board()
            hit = predicate(board)
            for move in game.mainline_moves():
                if hit:
                    break
                board.push(move)
                hit = predicate(board)
            matching += hit
    return time.perf_counter() - started, matching


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=None,
                        help="games in the index (0 = all; default 20000, with --scale all)")
    parser.add_argument("--scan-games", type=int, default=20000, help="games of the python-chess scan (default 20000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of the default engine per query (median)")
    parser.add_argument("--db", type=Path, default=None, help="index to build or reuse")
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help="the shared directory holding data/")
    parser.add_argument("--only", default=None, help="run only the queries of this family")
    parser.add_argument("--skip-python", action="store_true",
                        help="time the default engine only (the evaluator takes minutes per query on the full file)")
    parser.add_argument("--json", action="store_true", help="also print all figures as one JSON object")
    parser.add_argument("--examples", action="store_true",
                        help="instead: each CQL 6.2 example file's time on the studies file, both engines "
                             "(scripts/bench_examples.py)")
    parser.add_argument("--engine", choices=("python", "spark"), default="python",
                        help="the engine to compare with the default one (spark: needs cqlindex[spark] and Java)")
    parser.add_argument("--spark-master", default="local[*]", help="with --engine spark: the Spark master URL")
    parser.add_argument("--scale", action="store_true",
                        help="instead: the shared/bench query files, start-up and streamed output against the bare "
                             "DuckDB scan (scripts/bench_scale.py)")
    parser.add_argument("--replicate", type=int, default=None,
                        help="with --scale: copy the index's games this many times in all, by SQL (default: as "
                             "many as reach --positions)")
    parser.add_argument("--positions", type=int, default=32_000_000,
                        help="with --scale: the positions the replicated index reaches at least (default 32 M: "
                             "the whole file, 11.5 M positions, three times)")
    args = parser.parse_args(argv)
    if args.games is None:
        args.games = 0 if args.scale else 20000
    if args.scale:
        from bench_scale import copies_for, replicated, report

        db = ensure_index(args.shared, args.games, args.db or Path(f"build/bench-{args.games or 'all'}.duckdb"))
        copies = args.replicate or copies_for(db, args.positions)
        figures = report(replicated(db, copies), args.shared, args.repeat)
        if args.json:
            print(json.dumps(figures, indent=2))
        return 0
    if args.examples:
        from bench_examples import report

        report(args.shared, ("sql",) if args.skip_python else ("sql", "python"), args.only)
        return 0
    if args.engine == "spark":
        db = ensure_index(args.shared, args.games, args.db or Path(f"build/bench-{args.games or 'all'}.duckdb"))
        return spark_main(args, db)

    from cqlindex.exec.run import plan_for
    from cqlindex.plan.planner import PYTHON_ONLY

    db = ensure_index(args.shared, args.games, args.db or Path(f"build/bench-{args.games or 'all'}.duckdb"))
    rows = []
    failures = 0
    if args.only == "relation":
        return 1 if relation_report(args.shared, db, args.repeat, args.skip_python,
                                    db.parent / "bench-cql6-sample.duckdb") else 0
    print(f"{'family':10} {'plan':8} {'default s':>10} {'python s':>9} {'ratio':>8} {'cands':>9} {'matches':>8}  query")
    for family, query in QUERIES:
        if args.only and family != args.only:
            continue
        plan = plan_for(db, query)
        kind = "exact" if plan.exact else ("python" if {v for _, v in plan.verdicts} == {PYTHON_ONLY} else "narrowed")
        time_engine(db, query, "sql", 1)  # warm-up: the OS cache and DuckDB's
        fast, result = time_engine(db, query, "sql", args.repeat)
        if args.skip_python:
            slow, same = float("nan"), True
        else:
            slow, reference = time_engine(db, query, "python", 1)
            same = result.matches == reference.matches
        failures += not same
        row = {"family": family, "query": query, "plan": kind, "default_seconds": fast, "python_seconds": slow,
               "ratio": slow / fast if fast else None, "candidates": result.candidates, "positions": result.positions,
               "games": len(result.matches), "same_matches": same}
        rows.append(row)
        print(f"{family:10} {kind:8} {fast:10.3f} {slow:9.2f} {row['ratio']:8.1f} {result.candidates or 0:9,} "
              f"{result.positions:8,}  {query}{'' if same else '  ** ENGINES DIFFER **'}")
    scans = []
    if args.scan_games and not args.only:
        with tempfile.TemporaryDirectory() as tmp:
            pgn = Path(tmp) / "scan.pgn"
            n = slice_games(args.shared / LARGE, pgn, args.scan_games)
            print(f"\npython-chess scan of the first {n:,} games against the default engine on the same games")
            print(f"{'scan s':>8} {'default s':>10} {'ratio':>8} {'games':>7}  query")
            for query, predicate in HAND_WRITTEN.items():
                scan_seconds, scan_games = scan(pgn, predicate)
                fast, result = time_engine(db, query, "sql", args.repeat, gamenumbers=(1, n))
                same = scan_games == len(result.matches)
                failures += not same
                scans.append({"query": query, "scan_seconds": scan_seconds, "default_seconds": fast,
                              "ratio": scan_seconds / fast if fast else None, "games": scan_games, "same": same})
                print(f"{scan_seconds:8.2f} {fast:10.3f} {scan_seconds / fast:8.0f} {scan_games:7,}  {query}"
                      f"{'' if same else f'  ** engine found {len(result.matches)} games **'}")
    if not args.only:
        failures += relation_report(args.shared, db, args.repeat, args.skip_python,
                                    db.parent / "bench-cql6-sample.duckdb")
    exact = [r["ratio"] for r in rows if r["plan"] == "exact" and not args.skip_python]
    residual = [r["ratio"] for r in rows if r["family"] in ("line", "find", ":") and r["plan"] != "exact"
                and not args.skip_python]
    print()
    if exact:
        print(f"exact queries: median ratio {statistics.median(exact):.0f}x over the Python evaluator ({len(exact)})")
    if residual:
        print(f"line/find/':' with a residual part: median ratio {statistics.median(residual):.1f}x ({len(residual)})")
    if scans:
        print(f"python-chess scan: median ratio {statistics.median(s['ratio'] for s in scans):.0f}x")
    if args.json:
        print(json.dumps({"index_games": args.games, "queries": rows, "scans": scans}, indent=2))
    if failures:
        print(f"{failures} disagreement(s) between engines or with the scan", file=sys.stderr)
        return 1
    return 0


def spark_main(args, db: Path) -> int:
    """``--engine spark``: Spark local over the exported Parquet against DuckDB, query by query."""
    from cqlindex.exec.run import plan_for, run
    from cqlindex.exec.spark import run_spark, session
    from cqlindex.store.database import connect
    from cqlindex.store.export import export_parquet

    parquet = db.with_suffix(".parquet")
    if not parquet.exists():
        con = connect(db)
        try:
            export_parquet(con, parquet)
        finally:
            con.close()
    started = time.perf_counter()
    spark = session(args.spark_master)
    print(f"Spark session ({args.spark_master}) started in {time.perf_counter() - started:.1f} s")
    rows, failures = [], 0
    print(f"{'family':10} {'plan':8} {'duckdb s':>9} {'spark s':>8} {'ratio':>7} {'matches':>8}  query")
    for family, query in QUERIES:
        if args.only and family != args.only:
            continue
        kind = "exact" if plan_for(db, query).exact else "residual"
        timings = {}
        for name, engine in (("duckdb", lambda: run(db, query)), ("spark", lambda: run_spark(parquet, query,
                                                                                               spark=spark))):
            engine()  # warm-up
            times, result = [], None
            for _ in range(args.repeat):
                t = time.perf_counter()
                result = engine()
                times.append(time.perf_counter() - t)
            timings[name] = (statistics.median(times), result)
        (fast, expected), (slow, got) = timings["duckdb"], timings["spark"]
        same = got.matches == expected.matches
        failures += not same
        rows.append({"family": family, "query": query, "plan": kind, "duckdb_seconds": fast, "spark_seconds": slow,
                     "ratio": slow / fast if fast else None, "positions": expected.positions, "same_matches": same})
        print(f"{family:10} {kind:8} {fast:9.3f} {slow:8.2f} {slow / fast:7.1f} {expected.positions:8,}  {query}"
              f"{'' if same else '  ** ENGINES DIFFER **'}")
    spark.stop()
    ratios = [r["ratio"] for r in rows if r["ratio"]]
    if ratios:
        print(f"\nSpark local / DuckDB: median ratio {statistics.median(ratios):.1f}x ({len(ratios)} queries)")
    if args.json:
        print(json.dumps({"index_games": args.games, "spark_master": args.spark_master, "queries": rows}, indent=2))
    if failures:
        print(f"{failures} disagreement(s) between Spark and DuckDB", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
