#!/usr/bin/env python3
"""Record the reference CQL 6.2 engine's matches for the reference rows of the tests.

The rows are the ``REFERENCE`` tables of the test modules named in MODULES (each a list of
tests.filters.reference.RefRow: a query, a shared file, main line or variations). Their answers
go to tests/reference/answers.jsonl, one record per row, position ids kept as runs
(tests/filters/reference.py reads them). Rows already answered are kept unless --all is given.

``--sample N`` first draws the table of tests/test_evaluate_reference_sample.py: N mutated
queries of tests/reference/verdicts.jsonl.zst (scripts/reference_verdicts.py), seeded, among those
both the reference and cqlindex run (a file's mutations left out: their headers name other
PGN files), each kept only if cqlindex's Python engine answers it on the studies file with
variations within a few seconds, so the default suite stays short, and the reference runs it
there to its end (it stops on a few with an 'internal error'). It writes them to
tests/reference/sample.jsonl, then answers them with the rest. Usage, from the checkout:

    python scripts/reference_answers.py [--all] [--sample 80]
"""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
from pathlib import Path

import zstandard

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference_engine import ROOT, SHARED, matches  # noqa: E402

sys.path.insert(0, str(ROOT))
#: The test modules whose REFERENCE tables are answered here.
MODULES = ("tests.filters.test_strings", "tests.filters.test_moves", "tests.filters.test_variables",
           "tests.filters.test_sequences",
           "tests.test_evaluate_reference_sample")
SAMPLE = ROOT / "tests" / "reference" / "sample.jsonl"
#: Seconds the Python engine may take on a sampled query (studies file, variations).
SAMPLE_SECONDS = 3.0


def draw_sample(count: int, seed: int = 35) -> None:
    """Write ``count`` seeded mutated queries both engines run to SAMPLE (see the module's doc)."""
    import random
    import time

    from cqlindex.errors import CqlindexError
    from cqlindex.exec.run import run
    from cqlindex.ingest.pipeline import build
    from cqlindex.query.prepare import parse_body
    from tests.filters.reference import DATASETS

    data = zstandard.ZstdDecompressor().decompress((ROOT / "tests/reference/verdicts.jsonl.zst").read_bytes())
    records = [json.loads(line) for line in data.decode("utf-8").splitlines()]
    # '[>]' and '[>=]' (≻ ≽) left out: the reference's own comparison of positions by them is broken
    # (its run stops on them with "CQL internal error: rncompare: bad name" on some games)
    pool = sorted({r["text"] for r in records if r["mutation"] and not r["file"] and r["run"] == "accept"
                   and not any(op in r["text"] for op in ("[>]", "[>=]", "≻", "≽"))})
    random.Random(seed).shuffle(pool)
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "studies.duckdb"
        build([str(SHARED / DATASETS["studies"])], db, workers=2)
        chosen = []
        for text in pool:
            try:
                parse_body(text)
                started = time.perf_counter()
                run(db, text, variations=True, engine="python", timeout=SAMPLE_SECONDS)
            except CqlindexError:  # refused, or past its time
                continue
            if time.perf_counter() - started > SAMPLE_SECONDS:
                continue
            try:
                matches(text, SHARED / DATASETS["studies"], True, timeout=60)
            except (RuntimeError, subprocess.TimeoutExpired):
                continue  # the reference stops on it here (its 'internal error'), though it ran the tiny game
            chosen.append(text)
            if len(chosen) == count:
                break
    SAMPLE.write_text("".join(json.dumps({"query": q}, ensure_ascii=False) + "\n" for q in chosen), encoding="utf-8")
    print(f"{len(chosen)} sampled queries -> {SAMPLE.relative_to(ROOT)}")


def rows() -> list:
    found = []
    for name in MODULES:
        found += getattr(importlib.import_module(name), "REFERENCE", [])
    return found


def main() -> None:
    from tests.filters.reference import ANSWERS, DATASETS, compress

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--all", action="store_true", help="answer every row again")
    parser.add_argument("--sample", type=int, help="draw this many mutated queries for the sample first")
    args = parser.parse_args()
    if args.sample:
        draw_sample(args.sample)
    kept: dict[str, dict] = {}
    if ANSWERS.exists() and not args.all:
        kept = {r["key"]: r for r in map(json.loads, ANSWERS.read_text().splitlines())}
    wanted = {row.key: row for row in rows()}
    records = []
    for key, row in wanted.items():
        if key not in kept:
            found = matches(row.query, SHARED / DATASETS[row.dataset], row.variations)
            kept[key] = {"key": key, "matches": {str(g): compress(ids) for g, ids in found.items()}}
            print(f"{row.query!r} on {row.dataset}: {len(found)} games", flush=True)
        records.append(kept[key])
    ANSWERS.parent.mkdir(parents=True, exist_ok=True)
    ANSWERS.write_text("".join(json.dumps(r) + "\n" for r in records))
    print(f"{len(records)} rows -> {ANSWERS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
