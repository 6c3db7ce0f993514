"""A query that SQL decides entirely does not load what only other paths need (issue 16: start-up).

Checked in a fresh interpreter, through the command line: pyarrow (the record writers, the
evaluator's tree loader) and the Python evaluator must stay unimported when the plan is exact
and the output is a count. A module-level import added on that path makes this fail.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROBE = """
import json, sys
from cqlindex.cli import main
sys.argv = ["cqlindex", "query", sys.argv[1], sys.argv[2], "--format", "count"]
try:
    main()
except SystemExit:
    pass
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("pyarrow", "cqlindex"))))
"""


def _loaded(db: Path, query: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, str(db), query], capture_output=True, text=True,
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
    assert "pyarrow" not in exact and "cqlindex.evaluate.core" not in exact
    # The same probe sees them when the evaluator runs: the check can tell the two apart.
    confirmed = _loaded(db, "Qd1 sort #Q")
    assert "cqlindex.evaluate.core" in confirmed and "pyarrow" in confirmed
