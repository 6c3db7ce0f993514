"""``--engine spark`` gives exactly the default engine's positions, decided and narrowed queries alike.

One local Spark session for the module (local[2], one shuffle partition) over one exported
dataset. The cases are acceptance queries of that dataset: every one the default engine answers,
split by whether its plan is exact (Spark's SQL alone) or narrowed (the evaluator on the
executors). Without pyspark or Java the module skips with the reason; under CI=true it fails,
since CI installs both (.ci/run).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cqlindex.cli import app
from cqlindex.errors import CqlUnsupportedError
from cqlindex.exec.run import plan_for, run
from cqlindex.store.database import connect
from cqlindex.store.export import export_parquet
from tests.conftest import SHARED, shared_path

DATASET = "data/studies/cql6-sample.pgn"
#: Cases of each kind on Spark: (exact, narrowed) by default, and with -m slow. Each case costs
#: Spark jobs of a few seconds, on the suite's last stretch (one module, one worker).
CASE_COUNTS = {"default": (14, 10), "slow": (40, 30)}


def _missing_prerequisite() -> str | None:
    if importlib.util.find_spec("pyspark") is None:
        return "pyspark is not installed (pip install -e '.[spark]')"
    if not (os.environ.get("JAVA_HOME") or shutil.which("java")):
        return "no Java for Spark (apt-get install default-jre-headless)"
    return None


@pytest.fixture(scope="module")
def spark():
    missing = _missing_prerequisite()
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"--engine spark cannot be tested: {missing}")
        pytest.skip(f"--engine spark not tested: {missing}")
    from cqlindex.exec.spark import session

    s = session("local[2]")
    s.conf.set("spark.sql.shuffle.partitions", "1")
    yield s
    s.stop()


@pytest.fixture(scope="module")
def exported(build_db, tmp_path_factory) -> tuple[Path, Path]:
    db = build_db(DATASET)
    directory = tmp_path_factory.mktemp("spark") / "parquet"
    con = connect(db)
    try:
        export_parquet(con, directory, rows_per_file=20_000)  # several files per table
    finally:
        con.close()
    return db, directory


def _cases(db: Path, exact_cases: int, narrowed_cases: int) -> list[tuple[dict, bool]]:
    """(case, exact) for the first cases of each kind the default engine answers, messages left out."""
    shared_path("acceptance/visible.jsonl")
    cases = [json.loads(line) for line in (SHARED / "acceptance/visible.jsonl").read_text().splitlines()]
    picked: dict[bool, list] = {True: [], False: []}
    for case in cases:
        if case["dataset"] != DATASET or "message" in case["query"] or "echo" in case["query"]:
            continue
        try:
            exact = plan_for(db, case["query"], variations=case["variations"]).exact
        except CqlUnsupportedError:
            continue
        if len(picked[exact]) < (exact_cases if exact else narrowed_cases):
            picked[exact].append(case)
    return [(c, True) for c in picked[True]] + [(c, False) for c in picked[False]]


@pytest.mark.parametrize("counts", [
    pytest.param(CASE_COUNTS["default"], id="default"),
    pytest.param(CASE_COUNTS["slow"], id="slow", marks=pytest.mark.slow),
])
def test_spark_finds_the_default_engines_positions(spark, exported, counts: tuple[int, int]) -> None:
    from cqlindex.exec.spark import run_spark

    db, directory = exported
    cases = _cases(db, *counts)
    assert len(cases) == sum(counts), "fewer cases of a kind than asked"
    different = []
    for case, exact in cases:
        expected = run(db, case["query"], variations=case["variations"])
        got = run_spark(directory, case["query"], variations=case["variations"], spark=spark)
        same = (got.matches == expected.matches and got.sort_values == expected.sort_values
                and got.comments == expected.comments and got.games_examined == expected.games_examined)
        if not same:
            different.append(f"{case['id']} {'exact' if exact else 'narrowed'} {case['query']!r}: "
                             f"{got.positions} positions in {len(got.matches)} games, expected "
                             f"{expected.positions} in {len(expected.matches)}")
        if not exact:
            assert got.candidates == expected.candidates, case["query"]
    assert not different, "\n".join(different)


@pytest.mark.parametrize("query", [
    "flipcolor { #(A attacks (. attackedby k)) >= 4 }",  # tables read at the king's square
    "#([qrbn] attacks (_ attackedby K)) >= 2",
])
def test_spark_reads_a_king_zone_bound_as_duckdb_does(spark, exported, query: str) -> None:
    """The king-zone bound's list lookups (1-based ``[i]`` in DuckDB, ``ELEMENT_AT`` on Spark)
    keep the same candidates and find the same positions."""
    from cqlindex.exec.spark import run_spark

    db, directory = exported
    expected = run(db, query, variations=True)
    got = run_spark(directory, query, variations=True, spark=spark)
    assert expected.positions > 0
    assert (got.matches, got.candidates) == (expected.matches, expected.candidates)


def test_cli_engine_spark_writes_the_same_output(spark, exported) -> None:
    db, directory = exported
    query = "sort ply check"  # narrowed: sort values come from the executors
    runner = CliRunner()
    expected = runner.invoke(app, ["query", str(db), query, "--format", "json"])
    got = runner.invoke(app, ["query", str(directory), query, "--engine", "spark", "--spark-master", "local[2]",
                              "--format", "json"])
    assert got.exit_code == 0, got.output
    assert json.loads(got.stdout) == json.loads(expected.stdout)
    explained = runner.invoke(app, ["query", str(directory), query, "--engine", "spark", "--explain",
                                    "--dialect", "spark"])
    assert explained.exit_code == 0 and "FROM positions" in explained.stdout
    bad = runner.invoke(app, ["query", str(db), "check", "--engine", "spark"])
    assert bad.exit_code == 3 and "not a directory written by cqlindex export" in bad.output


def test_other_paths_never_import_pyspark(build_db) -> None:
    """pyspark is imported by --engine spark alone: the default engine, explain and output run without it."""
    import subprocess
    import sys

    db = build_db(DATASET)
    code = ("import sys\nfrom typer.testing import CliRunner\nfrom cqlindex.cli import app\n"
            f"for args in (['query', {str(db)!r}, 'check Q attacks k', '--format', 'count'], "
            f"['query', {str(db)!r}, 'mate', '--explain', '--dialect', 'spark']):\n"
            "    assert CliRunner().invoke(app, args).exit_code == 0\n"
            "assert 'pyspark' not in sys.modules, 'pyspark was imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_without_java_the_engine_says_what_to_install(monkeypatch) -> None:
    from cqlindex.exec import spark

    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setattr(spark.shutil, "which", lambda name: None)
    with pytest.raises(spark.SparkUnavailable, match="needs (Java|pyspark)"):
        spark.session("local[1]")
