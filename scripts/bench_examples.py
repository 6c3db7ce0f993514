"""Each of the 90 CQL 6.2 example files on studies/cql6-sample.pgn: its time on both engines.

Issue 18 asks that no example file take more than 10 s on the default engine; this prints,
per ASCII example file and engine, the wall time of one run after the index is built, the CPU
time of this process (the figure to read on a busy machine), whether it gave the reference's
positions (acceptance/examples.jsonl), and at the end the slowest files and any over the limit.
The engines' agreement with the reference is the tests' job; it is shown here so that a fast
wrong answer never looks good.

Run alone (``python scripts/bench_examples.py``) or from ``scripts/bench_query.py --examples``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_SHARED = Path(__file__).resolve().parents[2] / "shared"
DATASET = "data/studies/cql6-sample.pgn"
LIMIT_SECONDS = 10.0


def time_file(db: Path, path: Path, engine: str) -> tuple[float, float, str, dict | None]:
    """Wall seconds, CPU seconds of this process, outcome ("answered", "refused: ...", "error: ...")
    and matches of one run."""
    from cqlindex.errors import CqlindexError, CqlUnsupportedError
    from cqlindex.exec.run import run

    started, cpu = time.perf_counter(), time.process_time()
    outcome, matches = "answered", None
    try:
        matches = run(db, path.read_text(encoding="utf-8"), source=str(path), engine=engine).matches
    except CqlUnsupportedError as error:
        outcome = "refused: " + str(error).splitlines()[0][-60:]
    except CqlindexError as error:
        outcome = "error: " + str(error).splitlines()[0][-60:]
    return time.perf_counter() - started, time.process_time() - cpu, outcome, matches


def report(shared: Path, engines: tuple[str, ...] = ("sql", "python"), only: str | None = None) -> list[dict]:
    """Time every ASCII example file on ``engines``; print a line each and a summary; the rows."""
    from cqlindex.ingest.pipeline import build

    cases = [json.loads(line) for line in (shared / "acceptance/examples.jsonl").read_text().splitlines()]
    cases = [c for c in cases if "/ascii/" in c["file"] and (only is None or only in c["file"])]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "studies.duckdb"
        build([str(shared / DATASET)], db)
        print(f"{'file':36} " + " ".join(f"{e + ' s':>9} {'cpu s':>7} {'ref':>4}" for e in engines) + "  outcome")
        for case in cases:
            path = shared / case["file"]
            expected = {int(g): ids for g, ids in case["positions"].items()}
            row = {"file": path.name}
            cells, outcome = [], "answered"
            for engine in engines:
                seconds, cpu, outcome, matches = time_file(db, path, engine)
                exact = matches == expected
                row[engine] = {"seconds": seconds, "cpu_seconds": cpu, "outcome": outcome, "exact": exact}
                cells.append(f"{seconds:9.2f} {cpu:7.2f} {'yes' if exact else 'no':>4}")
            rows.append(row)
            print(f"{path.name:36} " + " ".join(cells) + f"  {outcome}", flush=True)
    timed = sorted(rows, key=lambda r: -r[engines[0]]["seconds"])
    over = [r["file"] for r in timed if r[engines[0]]["seconds"] > LIMIT_SECONDS]
    exact = {e: sum(r[e]["exact"] for r in rows) for e in engines}
    print(f"\nexact against the reference: " + ", ".join(f"{e} {n}/{len(rows)}" for e, n in exact.items()))
    print("slowest on the default engine: " + ", ".join(f"{r['file']} {r[engines[0]]['seconds']:.1f} s"
                                                        for r in timed[:5]))
    print(f"over {LIMIT_SECONDS:g} s on the default engine: {len(over)} {over}")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help="the shared directory holding data/")
    parser.add_argument("--only", default=None, help="only example files whose path contains this")
    parser.add_argument("--skip-python", action="store_true", help="time the default engine only")
    parser.add_argument("--json", action="store_true", help="also print all figures as one JSON object")
    args = parser.parse_args(argv)
    rows = report(args.shared, ("sql",) if args.skip_python else ("sql", "python"), args.only)
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
