"""A query that SQL decides entirely does not load what only other paths need (issue 16: start-up);
a post-filtered one loads numpy and the columnar engine but neither pyarrow nor python-chess.

Checked in a fresh interpreter, through the command line: pyarrow (the record writers, the
evaluator's tree loader), the Python evaluator, numpy (the relation filter's arrays, many plan
rows) and python-chess (boards, SAN, the evaluator's filters) must stay unimported when the plan
is exact, its rows few and the output a count. A module-level import added on that path makes
this fail. The benchmark queries (``../shared/bench``) are held to the same when SQL decides them.
The console script's query path (:mod:`cqlindex.launch`) loads no command-line framework either:
typer, click (typer's own copy), pydantic and rich stay out; and a query it plans prints its SQL
without sqlglot's DuckDB dialect (:mod:`cqlindex.plan.dialect`).
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
#: What the console script's query path does not import.
FRAMEWORKS = ("typer", "click", "pydantic", "pydantic_core", "rich")
PROBE = """
import json, sys
from cqlindex.launch import main
sys.argv = ["cqlindex", *(sys.argv[3:] or ["query", sys.argv[1], sys.argv[2], "--format", "count"])]
try:
    main()
except SystemExit:
    pass
HEAVY = %r
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in HEAVY + ("cqlindex",))))
"""


def _loaded(db: Path, query: str, *args: str) -> set[str]:
    """The modules of :data:`HEAVY`, :data:`FRAMEWORKS` and cqlindex that ``cqlindex query DB QUERY
    --format count`` (or ``cqlindex ARGS``) imported."""
    done = subprocess.run([sys.executable, "-c", PROBE % (HEAVY + FRAMEWORKS + ("sqlglot",),), str(db), query, *args],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    if not args:
        assert lines[0].split()[1] == "games", lines  # the count line: the query ran
    return set(json.loads(lines[-1]))


def test_an_exact_query_loads_neither_pyarrow_nor_the_evaluator(tmp_path) -> None:
    from cqlindex.ingest.pipeline import build

    db = tmp_path / "g.duckdb"
    build([str(REPO / "samples" / "gnuchess-300.pgn")], db)
    engines = {"cqlindex.evaluate.core", "cqlindex.columnar.core"}
    for query in ("Ka1 Kh8 or Qd1", "Kg1 not (p & up 1 7 (diagonal 1 d4))"):  # a constant direction too
        exact = _loaded(db, query)
        assert not exact & {*HEAVY, *engines}, (query, exact & {*HEAVY, *engines})
    # The same probe sees them when a post-filter runs: the check can tell the two apart. The
    # columnar engine reads its frames as numpy (no pyarrow) and loads python-chess only to
    # generate moves no game played.
    post_filtered = _loaded(db, "Qd1 sort #Q")
    assert "cqlindex.columnar.core" in post_filtered and "numpy" in post_filtered
    assert not post_filtered & {"pyarrow", "chess"}, post_filtered & {"pyarrow", "chess"}
    assert "chess" in _loaded(db, "Qd1 move legal from Q count > 5")
    assert {"cqlindex.evaluate.core", "pyarrow", "chess"} <= _loaded(
        db, "", "query", str(db), "Qd1 sort #Q", "--format", "count", "--engine", "tree")
    assert "numpy" in _loaded(db, "Qd1 relation (mismatch 0)")  # relation's arrays


def test_the_benchmark_queries_sql_decides_load_none_of_them(tmp_path) -> None:
    from cqlindex.ingest.pipeline import build

    db = tmp_path / "g.duckdb"
    build([str(REPO / "samples" / "gnuchess-300.pgn")], db)
    for name in ("a", "b1", "b2", "c", "c2", "d2"):
        loaded = _loaded(db, shared_path(f"bench/{name}.cql").read_text())
        assert not loaded & set(HEAVY), (name, loaded & set(HEAVY))


def test_a_query_through_the_console_script_loads_no_command_line_framework(tmp_path) -> None:
    from cqlindex.ingest.pipeline import build

    db = tmp_path / "g.duckdb"
    build([str(REPO / "samples" / "gnuchess-300.pgn")], db)
    tops = {m.split(".")[0] for m in _loaded(db, "Ka1 Kh8 or Qd1")}
    assert not tops & set(FRAMEWORKS), tops & set(FRAMEWORKS)
    # Help is typer's: the probe sees typer when it is loaded.
    assert "typer" in {m.split(".")[0] for m in _loaded(db, "", "--help")}


def test_parsing_a_query_loads_neither_sqlglot_nor_duckdb() -> None:
    """The parser reads every filter's declaration, whose SQL is built only when the planner asks
    (issue 34: ~0.1 s of sqlglot and ~0.05 s of DuckDB were imported by the parser alone): a
    query that another engine answers, or a plan that is cached, must not pay for them."""
    probe = ("import json, sys\n"
             "from cqlindex.query.prepare import prepare\n"
             "prepare(sys.argv[1])\n"
             "print(json.dumps(sorted(m.split('.')[0] for m in sys.modules)))\n")
    for query in ("Ka1 Kh8 or Qd1", "o-o-o sidetomove == 1 primary", 'hhdb prize similarposition "x.pgn"'):
        done = subprocess.run([sys.executable, "-c", probe, query], capture_output=True, text=True, cwd=REPO,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        loaded = set(json.loads(done.stdout))
        banned = {"sqlglot", "duckdb", "_duckdb", *HEAVY}  # _duckdb: the extension cqlindex imports alone
        assert not loaded & banned, (query, loaded & banned)
    # The same probe sees sqlglot once the planner's SQL is built: the check can tell the two apart.
    done = subprocess.run([sys.executable, "-c", probe.replace("prepare(sys.argv[1])",
                                                               "from cqlindex.plan.planner import plan\n"
                                                               "plan(prepare(sys.argv[1]).query, False)"), "o-o-o"],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "sqlglot" in json.loads(done.stdout)


def test_the_search_loop_loads_neither_sqlglot_nor_the_parser() -> None:
    """What runs SQL that is already written (exec/search.py and what it imports: the rows, the
    result, the deadline) must not bring the planner's sqlglot or the parser (issue 34)."""
    probe = ("import json, sys\n"
             "import cqlindex.exec.search\n"
             "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('sqlglot', 'cqlindex.cql.parser',"
             " 'cqlindex.plan', 'numpy')))))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []
    done = subprocess.run([sys.executable, "-c", probe.replace("exec.search", "exec.streamed")], capture_output=True,
                          text=True, cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "sqlglot" in json.loads(done.stdout)  # the planning run does: the probe can tell


def test_commands_that_print_plain_text_load_no_rich(tmp_path) -> None:
    """Help, CSV and JSON are plain text: typer prints its help and errors as click does here, and
    cqlindex imports rich (~0.1 s) only where it prints with it (issue 34: start-up)."""
    from cqlindex.ingest.pipeline import build

    db = tmp_path / "g.duckdb"
    build([str(REPO / "samples" / "gnuchess-300.pgn")], db)
    for args in (["--help"], ["query", "--help"], ["sql", str(db), "SELECT 1 AS x", "--format", "csv"],
                 ["info", str(db), "--format", "json"], ["filters", "--family", "logic"]):
        tops = {m.split(".")[0] for m in _loaded(db, "", *args)}
        assert "typer" in tops and "rich" not in tops, args
    # The same probe sees rich where a command prints with it: the check can tell.
    assert "rich" in {m.split(".")[0] for m in _loaded(db, "", "sql", str(db), "SELECT 1 AS x")}


def test_a_planned_query_loads_sqlglot_but_not_its_duckdb_dialect(tmp_path) -> None:
    from cqlindex.ingest.pipeline import build

    db = tmp_path / "g.duckdb"
    build([str(REPO / "samples" / "gnuchess-300.pgn")], db)
    for query in ("Ka1 Kh8 or Qd1", "Qd1 sort #Q", "line --> check --> check --> mate"):
        loaded = _loaded(db, query)  # a new index: no kept plan, so the query is planned
        assert "cqlindex.plan.planner" in loaded and "sqlglot" in loaded, query
        assert not {m for m in loaded if m.startswith(("sqlglot.dialects.duckdb", "sqlglot.generators.duckdb"))}, query


def test_the_columnar_engine_leaves_numpy_ma_alone(tmp_path) -> None:
    """numpy's plain ``unique`` imports numpy.ma (~10 ms of a fresh process) to ask whether an
    array is masked; the engine's frames and kernels use cqlindex.columnar.values.distinct."""
    from cqlindex.ingest.pipeline import build

    db = tmp_path / "g.duckdb"
    build([str(REPO / "samples" / "gnuchess-300.pgn")], db)
    for name in ("p03-royal-fork", "p07-overprotected", "p19-material-swing"):  # confirmed by the columnar engine
        loaded = _loaded(db, shared_path(f"bench/patterns/{name}.cql").read_text())
        assert "cqlindex.columnar.core" in loaded and "numpy.ma" not in loaded, name
