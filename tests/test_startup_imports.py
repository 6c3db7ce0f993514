"""A query that SQL decides entirely does not load what only other paths need (issue 16: start-up).

Checked in a fresh interpreter, through the command line: pyarrow (the record writers, the
evaluator's tree loader), the Python evaluator, numpy (the relation filter's arrays, many plan
rows) and python-chess (boards, SAN, the evaluator's filters) must stay unimported when the plan
is exact, its rows few and the output a count. A module-level import added on that path makes
this fail. The benchmark queries (``../shared/bench``) are held to the same when SQL decides them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import shared_path

REPO = Path(__file__).resolve().parents[1]
#: What a query SQL decides alone does not import.
HEAVY = ("pyarrow", "numpy", "chess")
PROBE = """
import json, sys
from cqlindex.cli import main
sys.argv = ["cqlindex", "query", sys.argv[1], sys.argv[2], "--format", "count"]
try:
    main()
except SystemExit:
    pass
HEAVY = %r
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in HEAVY + ("cqlindex",))))
"""


def _loaded(db: Path, query: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", PROBE % (HEAVY,), str(db), query], capture_output=True, text=True,
                          cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0].split()[1] == "games", lines  # the count line: the query ran
    return set(json.loads(lines[-1]))


def test_an_exact_query_loads_neither_pyarrow_nor_the_evaluator(tmp_path) -> None:
    from cqlindex.ingest.pipeline import build

    db = tmp_path / "g.duckdb"
    build([str(REPO / "samples" / "gnuchess-300.pgn")], db)
    exact = _loaded(db, "Ka1 Kh8 or Qd1")
    assert not exact & {*HEAVY, "cqlindex.evaluate.core"}, exact & {*HEAVY, "cqlindex.evaluate.core"}
    # The same probe sees them when the evaluator runs: the check can tell the two apart.
    confirmed = _loaded(db, "Qd1 sort #Q")
    assert {"cqlindex.evaluate.core", "pyarrow", "chess"} <= confirmed
    assert "numpy" in _loaded(db, "Qd1 relation (mismatch 0)")  # relation's arrays


def test_the_benchmark_queries_sql_decides_load_none_of_them(tmp_path) -> None:
    from cqlindex.ingest.pipeline import build

    db = tmp_path / "g.duckdb"
    build([str(REPO / "samples" / "gnuchess-300.pgn")], db)
    for name in ("a", "b1", "b2", "c", "c2", "d2"):
        loaded = _loaded(db, shared_path(f"bench/{name}.cql").read_text())
        assert not loaded & set(HEAVY), (name, loaded & set(HEAVY))
