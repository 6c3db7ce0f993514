"""The default engine end to end: CQL header options, game ranges, older indexes, the CLI.

Matches are compared with the reference evaluator (``engine="python"``) on real games, so
each case checks the SQL path and the evaluator path agree, including what the header does
(result, matchcount, gamenumber) and what the index lacks (attack maps of schema 1).
"""

from __future__ import annotations

import json

import shutil
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from cqlindex.cli import app
from cqlindex.exec.run import plan_for, run

LICHESS = "data/games/lichess-474.pgn"
STUDIES = "data/studies/cql6-sample.pgn"

CASES = [
    (LICHESS, "cql(result 1-0) mate", None),
    (LICHESS, "cql(matchcount 3 4) check btm", None),
    (LICHESS, "cql(matchcount 9) check", None),
    (LICHESS, "cql(gamenumber 100 200) move o-o-o", None),
    (LICHESS, "flipcolor {A attacks k > 1}", None),
    (LICHESS, "Q attackedby n", None),
    (STUDIES, "cql(variations) child(1) : check", None),
    (STUDIES, "find stalemate", True),
    (STUDIES, "line --> check --> check --> mate", True),
    (STUDIES, "line <-- mate <-- check", False),
    (LICHESS, "find {A attacks k > 1}", None),           # the body is tested only where SQL allows it
    (STUDIES, "flipcolor find {Q attacks k}", True),
    (STUDIES, "x = 2 find {#A attacks k >= x}", True),  # a body with a variable: not remembered
    (STUDIES, "find <-- {R attackedby q}", True),
    # sort values: the last filter (candidates suffice), first (every position of a candidate game), two sorts
    (STUDIES, "check sort ply", None),
    (STUDIES, 'sort min "pieces" #[Aa] check', None),
    (LICHESS, 'check sort "attackers" A attacks k sort min "plies" ply', None),
    (LICHESS, "cql(sort matchcount 2 100) check btm", None),
    (STUDIES, 'mate parent:comment("before mate")', True),
    # every position a candidate: the columnar engine reads whole games without a candidate list
    (LICHESS, "echo (s t) {s & t == . t > s}", None),
    (STUDIES, "echo (s t) {s & t == . t > s}", True),
    (LICHESS, "flipcolor {x = power A - power a find quiet 4 (power A - power a >= x + 3)}", None),
]


@pytest.mark.parametrize("dataset, query, variations", CASES)
def test_default_engine_equals_evaluator(build_db, dataset: str, query: str, variations: bool | None) -> None:
    db = build_db(dataset)
    evaluator = run(db, query, variations=variations, engine="python")
    assert evaluator.matches, "a case that matches nothing tests nothing"
    got = run(db, query, variations=variations)
    assert list(got.matches.items()) == list(evaluator.matches.items())  # the order too (sort)
    assert got.sort_values == evaluator.sort_values and got.comments == evaluator.comments
    assert got.candidates is not None and got.candidates >= got.positions


def test_gamenumber_range_argument(build_db) -> None:
    db = build_db(LICHESS)
    whole = run(db, "mate").matches
    part = run(db, "mate", gamenumbers=(100, 300))
    assert part.matches == {g: ids for g, ids in whole.items() if 100 <= g <= 300}
    assert part.games_examined == 201


@pytest.fixture(scope="module")
def schema1_db(build_db, tmp_path_factory) -> Path:
    """An index as schema 1 wrote it: no attack map columns."""
    out = tmp_path_factory.mktemp("schema1") / "old.duckdb"
    shutil.copy(build_db(LICHESS), out)
    con = duckdb.connect(str(out))
    try:
        con.execute("ALTER TABLE positions DROP COLUMN white_attacks")
        con.execute("ALTER TABLE positions DROP COLUMN black_attacks")
    finally:
        con.close()
    return out


@pytest.mark.parametrize("query", ["A attacks k > 1", "_ attackedby a == 0 btm", "check"])
def test_an_index_without_attack_maps_still_answers(build_db, schema1_db: Path, query: str) -> None:
    assert "attacks" not in plan_for(schema1_db, query).sql
    assert run(schema1_db, query).matches == run(build_db(LICHESS), query, engine="python").matches


runner = CliRunner()


def test_cli_explain(build_db) -> None:
    result = runner.invoke(app, ["query", str(build_db(LICHESS)), "check Q attacks k", "--explain"])
    assert result.exit_code == 0, result.output
    assert "SELECT" in result.output and "p.is_check" in result.output
    assert "1:1  check  -- decided in SQL" in result.output
    assert "1:7  Q attacks k  -- narrowed in SQL, decided in Python" in result.output


def test_cli_explain_json(build_db) -> None:
    result = runner.invoke(app, ["query", str(build_db(LICHESS)), "check Q attacks k", "--explain", "--format",
                                 "json", "--dialect", "spark"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["dialect"] == "spark" and "SELECT" in data["sql"] and data["rows"] == "candidates"
    assert [f["verdict"] for f in data["filters"]] == ["decided", "narrowed"]
    assert data["residual"]["filters"] == ["Q attacks k"]
    bad = runner.invoke(app, ["query", str(build_db(LICHESS)), "check", "--explain", "--format", "pgn"])
    assert bad.exit_code == 2 and "--format is json" in bad.output


def test_cli_explain_reports_syntax_errors(build_db) -> None:
    result = runner.invoke(app, ["query", str(build_db(LICHESS)), "check (", "--explain"])
    assert result.exit_code == 2
    assert "^" in result.output


@pytest.mark.parametrize("engine", ["sql", "python"])
def test_cli_engines_print_the_same_games(build_db, engine: str) -> None:
    result = runner.invoke(app, ["query", str(build_db(LICHESS)), "mate btm", "--engine", engine])
    assert result.exit_code == 0, result.output
    games = result.output.splitlines()[0].split()
    assert games == [str(g) for g in run(build_db(LICHESS), "mate btm", engine="python").matches]


@pytest.mark.parametrize("engine", ["python", "sql"])
def test_a_tag_with_escapes_is_found_as_meant(tmp_path: Path, engine: str) -> None:
    """PGN writes '"' and '\\' inside a tag value as '\\"' and '\\\\'; CQL strings do the same."""
    from cqlindex.ingest.pipeline import build

    source = tmp_path / "escapes.pgn"
    source.write_text('[Event "a\\"b"]\n[Site "C:\\\\games"]\n\n1. e4 *\n\n[Event "ab"]\n[Site "C:games"]\n\n1. d4 *\n')
    build([str(source)], tmp_path / "x.duckdb", workers=1)
    assert list(run(tmp_path / "x.duckdb", 'event "a\\"b"', engine=engine).matches) == [1]
    assert list(run(tmp_path / "x.duckdb", 'site "C:\\\\games"', engine=engine).matches) == [1]


@pytest.fixture(scope="module")
def variant_db(tmp_path_factory) -> Path:
    """Game 1 standard, game 2 crazyhouse (read as standard chess), game 3 text that is not a game."""
    from cqlindex.ingest.pipeline import build

    root = tmp_path_factory.mktemp("variants")
    source = root / "variants.pgn"
    source.write_text('[Event "a"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n'
                      '[Event "b"]\n[Variant "crazyhouse"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n'
                      'Some words that are not a game.\n')
    build([str(source)], root / "x.duckdb", workers=1)
    return root / "x.duckdb"


@pytest.mark.parametrize("engine", ["python", "sql"])
@pytest.mark.parametrize("text", ["mate", "initial", "true"])
def test_unplayable_games_are_left_out_unless_asked(variant_db: Path, engine: str, text: str) -> None:
    with_mate = {"mate": [1], "initial": [1], "true": [1]}[text]
    assert list(run(variant_db, text, engine=engine).matches) == with_mate
    everything = {"mate": [1, 2], "initial": [1, 2, 3], "true": [1, 2, 3]}[text]
    assert list(run(variant_db, text, engine=engine, include_unplayable=True).matches) == everything
    assert "playable" in plan_for(variant_db, text).sql or engine == "python"


def test_an_index_without_unplayable_games_plans_as_before(tmp_path: Path) -> None:
    from cqlindex.ingest.pipeline import build

    source = tmp_path / "one.pgn"
    source.write_text('[Event "a"]\n\n1. e4 e5 *\n')
    build([str(source)], tmp_path / "x.duckdb", workers=1)
    assert "playable" not in plan_for(tmp_path / "x.duckdb", "check").sql


@pytest.mark.parametrize("engine", ["python", "sql"])
def test_the_cli_searches_unplayable_games_when_asked(variant_db: Path, engine: str) -> None:
    def games(*extra: str) -> list[str]:
        result = runner.invoke(app, ["query", str(variant_db), "initial", "--format", "summary", "--quiet",
                                     "--engine", engine, *extra])
        assert result.exit_code == 0, result.output
        return result.output.split()

    assert games() == ["1"]
    assert games("--include-unplayable") == ["1", "2", "3"]
