"""``cqlindex query DB -f a.cql -f b.cql ... --format count``: one row per file (cli_execute.py),
each the count that file alone gives with the same options."""

from __future__ import annotations

import pytest

from serve_fixtures import cli, sample_db  # noqa: F401 - the fixture

FILES = {"a.cql": "cql(variations)\nmate\n", "b.cql": "stalemate\n", "c.cql": "check\n", "bad.cql": "mat\n"}


def _write(folder, names):
    for name in names:
        (folder / name).write_text(FILES[name])
    return [str(folder / name) for name in names]


def _single(db, path, options) -> str:
    done = cli("query", str(db), "-f", path, "--format", "count", "-q", *options)
    assert done.returncode == 0, done.stderr
    return done.stdout.decode().strip()


@pytest.mark.parametrize("options", [[], ["-gamenumber", "1", "40"], ["--variations", "-flipcolor"]])
def test_each_row_is_that_files_own_count(sample_db, tmp_path, options) -> None:
    paths = _write(tmp_path, ["a.cql", "b.cql", "c.cql"])
    done = cli("query", str(sample_db), *sum((["-f", p] for p in paths), []), "--format", "count", *options)
    assert done.returncode == 0, done.stderr
    rows = done.stdout.decode().splitlines()
    assert rows == [f"{p}: {_single(sample_db, p, options)}" for p in paths]
    assert "3 query files in" in done.stderr.decode()


def test_a_bad_file_is_said_and_the_others_still_run(sample_db, tmp_path) -> None:
    paths = _write(tmp_path, ["a.cql", "bad.cql", "b.cql"])
    done = cli("query", str(sample_db), *sum((["-f", p] for p in paths), []), "--format", "count", "-q")
    assert done.returncode == 2
    assert done.stdout.decode().splitlines() == [f"{paths[0]}: 6 games 6 positions", f"{paths[1]}: error",
                                                 f"{paths[2]}: 0 games 0 positions"]
    assert "did you mean 'mate'" in done.stderr.decode() and "Traceback" not in done.stderr.decode()


@pytest.mark.parametrize("extra", [[], ["--format", "pgn"], ["--format", "count", "--explain"], ["mate"]])
def test_several_files_need_the_count_format(sample_db, tmp_path, extra) -> None:
    paths = _write(tmp_path, ["a.cql", "b.cql"])
    done = cli("query", str(sample_db), *extra, *sum((["-f", p] for p in paths), []))
    assert done.returncode == 2 and "Traceback" not in done.stderr.decode()


@pytest.mark.parametrize("form", [["{db}", "-f", "{q}"], ["{db}", "{q}"], ["-i", "{db}", "{q}"], ["-i", "{db}", "-f", "{q}"]])
def test_one_query_file_is_still_read_every_way(sample_db, tmp_path, form) -> None:
    path = _write(tmp_path, ["a.cql"])[0]
    done = cli("query", *[w.format(db=sample_db, q=path) for w in form], "--format", "count", "-q")
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().strip() == "6 games 6 positions"
