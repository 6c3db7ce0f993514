"""Plans kept between runs of ``cqlindex query`` (cqlindex/exec/plan_cache.py, issue 34): a query
asked again gives the same output without parsing or planning (an exact plan) or without planning
(a WHERE the columnar engine confirms), and a plan is reused only under the same query, options,
index file and code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cqlindex.exec import plan_cache

REPO = Path(__file__).resolve().parents[1]
PROBE = """
import json, sys
from cqlindex.launch import main
sys.argv = ["cqlindex", "query", *sys.argv[1:]]
main()
sys.stdout.flush()
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("sqlglot", "numpy", "pyarrow", "chess")
                        or m in ("duckdb", "cqlindex.cql.parser", "cqlindex.plan.planner", "importlib.resources"))))
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    from cqlindex.ingest.pipeline import build

    path = tmp_path_factory.mktemp("cache") / "g.duckdb"
    build([str(REPO / "samples" / "gnuchess-300.pgn")], path, workers=1)
    return path


def _query(cache: Path, *args: str) -> tuple[str, set[str]]:
    """The output of ``cqlindex query ARGS`` (stdout and stderr, the timing cut) and what it imported."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=REPO, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    *out, loaded = done.stdout.splitlines()
    closing = done.stderr.split(" in ")[0]  # 'N matches of M games' (the seconds differ)
    return "\n".join(out) + closing, set(json.loads(loaded))


def _kept(cache: Path) -> list[Path]:
    return sorted((cache / "cqlindex" / "plans").glob("*.pickle"))


@pytest.mark.parametrize("args", [
    ["Ka1 Kh8 or Qd1", "--format", "count"],
    ["check", "--format", "ndjson"],                                  # streamed, range by range
    ["mate", "-gamenumber", "40", "260", "--format", "summary"],   # a span of games, held
    ["Qd1", "-matchcount", "3", "100", "--format", "count"],
])
def test_a_kept_plan_gives_the_same_output_without_parser_or_planner(db, tmp_path, args) -> None:
    first, planned = _query(tmp_path, str(db), *args)
    assert {"sqlglot", "cqlindex.cql.parser", "cqlindex.plan.planner"} <= planned
    assert len(_kept(tmp_path)) == 1
    again, loaded = _query(tmp_path, str(db), *args)
    assert again == first
    assert not loaded & {"sqlglot", "cqlindex.cql.parser", "cqlindex.plan.planner"}, loaded
    if args[-1] in ("count", "summary"):  # no Arrow out: DuckDB's extension alone (store/duckdb_light.py)
        assert "duckdb" not in loaded | planned, loaded | planned
        assert "importlib.resources" not in loaded  # only a build reads schema/ (store/schema.py)


@pytest.mark.parametrize("args", [
    ["ray (Q k)", "--format", "count"],        # SQL narrows, the columnar engine confirms the rows it reads
    ["pin", "--format", "summary"],
    ["xray (Q k)", "-gamenumber", "20", "250", "--format", "table"],
    ["btm check #(. attacks k) == 2", "--format", "count"],  # facts the frame reads: their SQL is kept too
])
def test_a_scanned_plan_gives_the_same_output_without_the_planner(db, tmp_path, args) -> None:
    first, planned = _query(tmp_path, str(db), *args)
    assert {"sqlglot", "cqlindex.plan.planner"} <= planned
    assert len(_kept(tmp_path)) == 1
    again, loaded = _query(tmp_path, str(db), *args)
    assert again == first
    assert not loaded & {"sqlglot", "cqlindex.plan.planner"}, loaded
    if args[-1] in ("count", "summary"):  # no Arrow out: DuckDB's extension alone (store/duckdb_light.py)
        assert "duckdb" not in loaded | planned, loaded | planned


def test_a_kept_scanned_plan_plans_for_the_games_the_columnar_engine_gives_back(db, tmp_path, monkeypatch) -> None:
    """Where a kernel cannot take a batch on, its games go to the planner's candidates and the
    tree-walker, in a run from a kept plan as in the run that planned."""
    import cqlindex.columnar.run
    from cqlindex.exec.cached import run_query

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    options = dict(variations=None, gamenumbers=None, matchcount=None, include_unplayable=False,
                   allow_files=True, held=True)
    planned = run_query(db, "ray (Q k)", **options)
    assert len(_kept(tmp_path)) == 1
    given_back = []

    def refuses(con, prepared, variations, candidates, keep, *args, **kwargs):
        if candidates is None:  # the rows the WHERE selects: every game given back
            given_back.append(True)
            return [g for (g,) in con.execute("SELECT gamenumber FROM games ORDER BY 1").fetchall()], None
        return list(candidates), None  # the candidates: the tree-walker's

    monkeypatch.setattr(cqlindex.columnar.run, "confirm", refuses)
    again = run_query(db, "ray (Q k)", **options)
    assert given_back and dict(again.matches) == dict(planned.matches) and again.matches
    assert again.games_examined == planned.games_examined


@pytest.mark.parametrize("query", [
    "Ka1 sort ply",                       # sort keys
    "ray (Q k) sort ply",
    "ray (Q k) comment \"x\"",            # comments: the tree-walker writes them
    "Ka1 gamenumber == lastgamenumber",   # the collection's size is not in the key
])
def test_only_an_exact_or_scanned_plan_without_sort_keys_is_kept(db, tmp_path, query) -> None:
    _query(tmp_path, str(db), query, "--format", "count")
    assert not _kept(tmp_path)


def test_a_plan_is_reused_only_under_the_same_key(db, tmp_path) -> None:
    options = dict(variations=None, gamenumbers=None, matchcount=None, include_unplayable=False,
                   allow_files=True, held=True)
    key = plan_cache.key(db, "Ka1", "<query>", options)
    assert key == plan_cache.key(db, "Ka1", "<query>", dict(options))
    others = {plan_cache.key(db, "Ka2", "<query>", options),
              plan_cache.key(db, "Ka1", "q.cql", options),
              *(plan_cache.key(db, "Ka1", "<query>", {**options, name: value}) for name, value in
                (("variations", True), ("gamenumbers", (1, 5)), ("matchcount", (2, None)),
                 ("include_unplayable", True), ("held", False)))}
    assert key not in others and len(others) == 7
    copy = tmp_path / "copy.duckdb"  # the same content, another file
    copy.write_bytes(db.read_bytes())
    assert plan_cache.key(copy, "Ka1", "<query>", options) != key
    mode = copy.stat().st_mode
    copied = plan_cache.key(copy, "Ka1", "<query>", options)
    stamp = copy.stat().st_mtime_ns
    time.sleep(0.05)  # past the clock tick the file system stamps times with
    copy.write_bytes(copy.read_bytes())  # written in place, its size and modification time put back:
    os.utime(copy, ns=(stamp, stamp))    # only the change time, which no program sets, tells
    os.chmod(copy, mode)
    assert plan_cache.key(copy, "Ka1", "<query>", options) != copied


def test_a_rebuilt_index_or_other_code_misses(db, tmp_path, monkeypatch) -> None:
    from cqlindex.ingest.pipeline import build

    index = tmp_path / "i.duckdb"
    build([str(REPO / "samples" / "gnuchess-300.pgn")], index, workers=1)
    cache = tmp_path / "cache"
    _query(cache, str(index), "Ka1", "--format", "count")
    assert len(_kept(cache)) == 1
    os.utime(index, ns=(index.stat().st_atime_ns, index.stat().st_mtime_ns + 1000))  # written again
    _, loaded = _query(cache, str(index), "Ka1", "--format", "count")
    assert "sqlglot" in loaded and len(_kept(cache)) == 2
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    options = dict(variations=None, gamenumbers=None, matchcount=None, include_unplayable=False,
                   allow_files=True, held=True)
    key = plan_cache.key(index, "Ka1", "<query>", options)
    monkeypatch.setattr(plan_cache, "_CODE", ("another", "cqlindex"))
    assert plan_cache.key(index, "Ka1", "<query>", options) != key


def test_a_damaged_entry_is_a_miss(db, tmp_path) -> None:
    first, _ = _query(tmp_path, str(db), "Ka1", "--format", "count")
    (entry,) = _kept(tmp_path)
    entry.write_bytes(entry.read_bytes()[:20])
    again, loaded = _query(tmp_path, str(db), "Ka1", "--format", "count")
    assert again == first and "sqlglot" in loaded  # planned again, and kept again
    _, loaded = _query(tmp_path, str(db), "Ka1", "--format", "count")
    assert "sqlglot" not in loaded


def test_the_folder_follows_xdg_cache_home(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert plan_cache.directory() == tmp_path / "cqlindex" / "plans"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # not absolute: ignored, as the specification says
    assert plan_cache.directory() == Path.home() / ".cache" / "cqlindex" / "plans"


def test_keys_that_share_a_file_miss_and_never_mix(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(plan_cache, "_path", lambda key: tmp_path / "one.pickle")  # every key one file
    plan_cache.store("first key", ("first",))
    assert plan_cache.load("first key") == ("first",)
    assert plan_cache.load("second key") is None
    plan_cache.store("second key", ("second",))
    assert plan_cache.load("first key") is None and plan_cache.load("second key") == ("second",)


def test_the_oldest_entries_go_past_the_limit(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(plan_cache, "ENTRIES", 3)
    for number in range(5):
        plan_cache.store(f"key {number}", (number,))
        path = plan_cache._path(f"key {number}")
        os.utime(path, ns=(number * 10**9, number * 10**9))  # in that order, whatever the clock's tick
    assert len(_kept(tmp_path)) == 3
    assert [plan_cache.load(f"key {number}") for number in range(5)] == [None, None, (2,), (3,), (4,)]
