"""cqlindex's DuckDB import (cqlindex/store/duckdb_light.py): the extension without the package's
Python layer on the query path (issue 34: start-up), and the package wherever a call needs it.

The fast path is held to the pinned release (a DuckDB that moves its extension fails here, not
silently ~50 ms slower); the names cqlindex uses are the package's own objects; and every call of
the package's relation API on a connection goes through ``relations()`` or a module that imports
the package, because a fresh ``cqlindex query`` process that never imported it has no ``con.sql``
(the first PGN output of this change failed so, and only in a fresh process: a test process has
the package loaded by everything else). The fresh-process rows run each output format for real.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import duckdb as package
import pytest

from cqlindex.store.duckdb_light import duckdb, fetch_numpy, relations

REPO = Path(__file__).resolve().parents[1]
#: What the package adds to connections when it is imported (duckdb 2.x), as cqlindex calls it.
RELATION_API = {"sql", "query", "table", "view", "values", "to_arrow_table", "to_arrow_reader", "read_parquet",
                "read_csv", "read_json", "from_arrow", "from_query", "from_df", "from_parquet", "table_function"}
#: The names cqlindex gives its DuckDB connections.
CONNECTIONS = {"con", "cursor", "connection"}


def test_the_query_path_imports_the_extension_and_it_is_the_package_s_own() -> None:
    assert duckdb.__name__ == "_duckdb", "this DuckDB release moved its extension: start-up pays the package"
    for name in ("connect", "DuckDBPyConnection", "Error", "IOException", "InterruptException", "CatalogException",
                 "PermissionException", "StatementType", "tokenize", "token_type"):
        assert getattr(duckdb, name) is getattr(package, name), name


def test_relations_gives_the_connection_the_relation_api() -> None:
    con = duckdb.connect()
    try:
        assert relations(con) is con
        assert con.sql("SELECT 41 + 1 AS x").to_arrow_table().column("x").to_pylist() == [42]
    finally:
        con.close()


def _unwrapped_relation_calls(path: Path) -> list[str]:
    """``con.sql(...)`` (or another relation call on a connection) in ``path`` where neither the
    module imports the package nor the function made ``con = relations(con)`` first."""
    tree = ast.parse(path.read_text())
    if any(isinstance(node, ast.Import) and any(a.name == "duckdb" for a in node.names) for node in tree.body):
        return []
    found = []
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        wrapped = {target.id for node in ast.walk(function) if isinstance(node, ast.Assign)
                   and isinstance(node.value, ast.Call) and getattr(node.value.func, "id", None) == "relations"
                   for target in node.targets if isinstance(target, ast.Name)}
        for node in ast.walk(function):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in RELATION_API
                    and isinstance(node.func.value, ast.Name) and node.func.value.id in CONNECTIONS
                    and node.func.value.id not in wrapped):
                found.append(f"{path.relative_to(REPO)}:{node.lineno} {node.func.value.id}.{node.func.attr}")
    return sorted(set(found))


def test_every_relation_call_on_a_connection_has_the_package() -> None:
    found = [hit for path in sorted((REPO / "cqlindex").rglob("*.py")) for hit in _unwrapped_relation_calls(path)]
    assert not found, found


def test_the_scan_sees_an_unwrapped_call(tmp_path: Path) -> None:
    """The check can fail: a module like movetext.py before this change is caught, wrapped it is not."""
    bare = tmp_path / "m.py"
    bare.write_text("def heads(con):\n    return con.sql('SELECT 1').to_arrow_table()\n")
    assert [h.split()[1] for h in _unwrapped_relation_calls_at(bare)] == ["con.sql"]
    bare.write_text("def heads(con):\n    con = relations(con)\n    return con.sql('SELECT 1').to_arrow_table()\n")
    assert _unwrapped_relation_calls_at(bare) == []


def _unwrapped_relation_calls_at(path: Path) -> list[str]:
    global REPO
    saved, REPO = REPO, path.parent
    try:
        return _unwrapped_relation_calls(path)
    finally:
        REPO = saved


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    from cqlindex.ingest.pipeline import build

    db = tmp_path_factory.mktemp("light") / "g.duckdb"
    build([str(REPO / "samples" / "gnuchess-300.pgn")], db, workers=1)
    return db


@pytest.mark.parametrize("args", [
    ["ray (Q k)", "--format", "pgn"],                  # movetext: Arrow out
    ["ray (Q k)", "--format", "html"],
    ["ray (Q k)", "--format", "ndjson"],
    ["ray (Q k)", "--format", "csv"],
    ["ray (Q k)", "--format", "count"],
    ["check", "--engine", "tree", "--format", "pgn"],  # the tree-walker's loader: Arrow in and out
    ["line --> check --> check", "--format", "summary"],
])
def test_each_output_in_a_fresh_process(small: Path, tmp_path: Path, args: list[str]) -> None:
    """Each format twice (planned, then from the kept plan), each run a process of its own."""
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    for _ in range(2):
        out = tmp_path / "out"
        done = subprocess.run([sys.executable, "-m", "cqlindex", "query", str(small), *args, "-o", str(out)],
                              capture_output=True, text=True, cwd=REPO, env=env, timeout=120)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        assert out.stat().st_size > 0


def test_fetch_numpy_takes_the_materialised_path_of_the_pinned_release() -> None:
    con = duckdb.connect()
    try:
        assert callable(getattr(con, "_submit", None)), "this DuckDB release has no _submit: frames read ~2x slower"
    finally:
        con.close()


@pytest.mark.parametrize(("sql", "params"), [
    ("SELECT range AS i, range::UBIGINT << 40 AS b, range % 3 = 0 AS t FROM range(5000)", None),
    ("SELECT i, CASE WHEN i % 2 = 0 THEN i END AS maybe FROM range(?, ?) AS r(i)", [10, 2100]),
    ("SELECT 1 AS one WHERE false", None),
])
def test_fetch_numpy_gives_what_execute_and_fetchnumpy_give(sql: str, params) -> None:
    con = duckdb.connect()
    try:
        expected, got = con.execute(sql, params).fetchnumpy(), fetch_numpy(con, sql, params)
        assert list(got) == list(expected)
        for name, array in expected.items():
            assert got[name].dtype == array.dtype and type(got[name]) is type(array), name
            assert got[name].tolist() == array.tolist(), name
            if hasattr(array, "mask"):
                assert (got[name].mask == array.mask).all(), name
    finally:
        con.close()
