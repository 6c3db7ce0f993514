"""scripts/bench_vs_cql.py on tiny data: its table, its totals, and its check that both engines
found the same games, which must fail loudly (exit code 1, the games named) when they do not.

The engines run for real (the reference engine from ../shared, cqlindex from this checkout) on
samples/classics.pgn, whose mates the README states (games 1-5). A disagreement is planted by
putting a wrapper in place of the reference engine that drops one game from what it prints.
"""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest

from tests.conftest import shared_path

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT / "scripts"))  # the scripts import each other by name, as when run

import bench_vs_cql
from bench_vs_cql import Row, markdown, totals_of
from bench_vs_cql_data import first_games, indexed
from bench_vs_cql_engines import Side, measure

CLASSICS = ROOT / "samples" / "classics.pgn"
CQLINDEX = str(Path(sys.executable).parent / "cqlindex")

#: Query file name -> its text; the mates of classics.pgn are games 1-5 (README), its checks more.
QUERIES = {"mate.cql": "cql(quiet)\nmate\n", "check.cql": "cql(quiet)\ncheck\n"}


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> dict:
    """A folder with the query files, a cache holding classics.pgn's index (built here, so that each
    test's runs reuse it, in any order), and the real reference engine."""
    folder = tmp_path_factory.mktemp("bench_vs_cql")
    for name, text in QUERIES.items():
        (folder / name).write_text(text)
    built = indexed(CLASSICS, folder / "cache", [CQLINDEX])
    return {"folder": folder, "cache": folder / "cache", "cql": shared_path("reference/cql62/cql"), "built": built}


def run(work: dict, *extra: str, cql: Path | None = None, files: tuple[str, ...] = ("mate.cql", "check.cql"),
        capsys=None) -> tuple[int, dict, str, str]:
    """bench_vs_cql's main on classics.pgn: exit code, its JSON, its Markdown and its stderr."""
    out = work["folder"] / "figures.json"
    code = bench_vs_cql.main(["--pgn", str(CLASSICS), "--cache", str(work["cache"]), "--json", str(out),
                              "--cql", str(cql or work["cql"]), "--files", *(str(work["folder"] / f) for f in files),
                              *extra])
    captured = capsys.readouterr()
    return code, json.loads(out.read_text()), captured.out, captured.err


def wrapper(folder: Path, body: str) -> Path:
    """An executable standing in for the reference engine: runs it, then ``body`` on its output."""
    path = folder / "fake-cql"
    path.write_text(f"#!{sys.executable}\nimport re, subprocess, sys\n"
                    f"real = subprocess.run([{str(shared_path('reference/cql62/cql'))!r}, *sys.argv[1:]],"
                    " capture_output=True, text=True)\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_same_games_make_the_table_and_exit_zero(work, capsys) -> None:
    code, figures, text, _ = run(work, capsys=capsys)
    assert code == 0, text
    rows = {Path(r["file"]).name: r for r in figures["sets"][0]["files"]}
    assert rows["mate.cql"]["reference"]["games"] == rows["mate.cql"]["cqlindex"]["games"] == [1, 2, 3, 4, 5]
    assert rows["check.cql"]["equal"] and len(rows["check.cql"]["cqlindex"]["games"]) > 5
    assert rows["mate.cql"]["reference"]["games_read"] == rows["mate.cql"]["cqlindex"]["games_read"] == 7
    assert "| file | games ref | games cqlindex | ref s | cqlindex s | ratio | cqlindex peak RSS MB |" in text
    assert "| mate | 5 | 5 | " in text
    assert "cqlindex faster on" in text and "games differ on 0 files" in text and "Differences" not in text
    assert figures["sets"][0]["totals"]["differ"] == figures["sets"][0]["totals"]["failed"] == 0
    assert figures["sets"][0]["data"]["games"] == 7
    assert "Load average (1 min)" in text and figures["load_average_at_end"] >= 0


def test_the_index_is_built_once_then_reused(work) -> None:
    assert work["built"].build["cached"] is False and work["built"].games == 7
    again = indexed(CLASSICS, work["cache"], [CQLINDEX])
    assert again.build == {**work["built"].build, "cached": True} and again.index == work["built"].index


def test_a_game_missing_on_one_side_fails_loudly(work, capsys) -> None:
    fake = wrapper(work["folder"], "sys.stdout.write(real.stdout.replace('<3>', '', 1)); sys.exit(real.returncode)\n")
    code, figures, text, err = run(work, cql=fake, files=("mate.cql",), capsys=capsys)
    assert code == 1
    assert "Index: reused" in text and figures["sets"][0]["data"]["build"]["cached"] is True
    mate = figures["sets"][0]["files"][0]
    assert not mate["equal"] and mate["reference"]["games"] == [1, 2, 4, 5]
    assert "| mate **differs** | 4 | 5 | " in text
    assert "- mate.cql: only cqlindex (1): 3" in text and "games differ on 1 files" in text
    assert "games differ (or an engine failed) on 1 files" in err


def test_an_engine_that_fails_counts_as_a_difference(work, capsys) -> None:
    fake = wrapper(work["folder"], "print('CQL internal error: planted', file=sys.stderr); sys.exit(1)\n")
    code, _, text, _ = run(work, cql=fake, files=("mate.cql",), capsys=capsys)
    assert code == 1
    assert "| mate **failed** | failed | 5 | " in text and " | - | " in text
    assert "Totals over 0 files" in text and "games differ on 0 files; an engine failed on 1 more" in text
    assert "reference: exit code 1: CQL internal error: planted" in text


def test_the_session_mode_compares_games_file_by_file(work, capsys) -> None:
    fake = wrapper(work["folder"], "sys.stdout.write(real.stdout.replace('<3>', '', 1)); sys.exit(real.returncode)\n")
    code, figures, text, _ = run(work, "--session", cql=fake, files=("mate.cql",), capsys=capsys)
    assert code == 1
    assert "| cqlindex, one Python session | 1 |" in text and "games differ (or a side failed) on 1 files" in text
    assert "- mate.cql: only cqlindex (1): 3" in text
    assert figures["sets"][0]["files"][0]["cqlindex"]["games"] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("argv, message", [
    (["--pgn", "missing.pgn"], "no such file: missing.pgn"),
    (["--files", "missing.cql"], "no such file: missing.cql"),
    (["--files", "README.md", "--set", "bench"], "--files or --set, not both"),
    (["--games", "0"], "--games must be at least 1"),
    (["--cql", "missing-cql"], "the reference engine not found: missing-cql"),
    (["--set", "nonsense"], "invalid choice: 'nonsense'"),
])
def test_bad_input_is_a_message_not_a_traceback(argv, message, capsys) -> None:
    with pytest.raises(SystemExit) as stopped:
        bench_vs_cql.main(argv)
    assert stopped.value.code == 2
    assert message in capsys.readouterr().err


def _side(wall: float, games: set[int] | None, read: int | None = None) -> Side:
    return Side(wall=wall, cpu=wall, rss_mb=50.0, games=frozenset(games) if games is not None else None,
                error=None if games is not None else "cqlindex: exit code 2: refused", games_read=read)


@pytest.mark.parametrize("walls, expected_ratio, faster", [
    ([(2.0, 1.0), (1.0, 4.0)], 3.0 / 5.0, 1),
    ([(3.0, 1.0), (3.0, 1.0)], 3.0, 2),
    ([(1.0, 2.0)], 0.5, 0),
])
def test_totals(walls, expected_ratio, faster) -> None:
    rows = [Row(Path(f"q{i}.cql"), _side(ref, {1}), _side(mine, {1})) for i, (ref, mine) in enumerate(walls)]
    totals = totals_of(rows)
    assert totals["ratio"] == pytest.approx(expected_ratio)
    assert totals["cqlindex_faster"] == faster and totals["differ"] == 0
    assert f"ratio of totals {expected_ratio:.2f} (of CPU seconds {expected_ratio:.2f})" in markdown(rows)


@pytest.mark.parametrize("reference, mine, expected", [
    ({1, 2}, {1, 2}, ""),
    (({1, 2}, 7), ({1, 2}, 7), ""),
    (({1, 2}, 7), ({1, 2}, None), ""),
    (({1, 2}, 7), ({1, 2}, 6), "games read: reference 7, cqlindex 6"),
    ({1, 2, 9}, {1, 2}, "only reference (1): 9"),
    ({1}, {1, 4, 5}, "only cqlindex (2): 4 5"),
    ({1, 7}, {1, 8}, "only reference (1): 7; only cqlindex (1): 8"),
    ({1}, None, "cqlindex: exit code 2: refused"),
    (set(range(1, 31)), set(), "only reference (30): " + " ".join(map(str, range(1, 21))) + " ..."),
])
def test_differences_name_the_games(reference, mine, expected) -> None:
    sides = [_side(1.0, *(side if isinstance(side, tuple) else (side,))) for side in (reference, mine)]
    row = Row(Path("q.cql"), *sides)
    assert row.differs == bool(expected)
    assert row.difference() == expected


def test_first_games_cuts_whole_games_from_a_zst(tmp_path) -> None:
    import zstandard

    text = CLASSICS.read_bytes()
    source = tmp_path / "classics.pgn.zst"
    source.write_bytes(zstandard.ZstdCompressor().compress(text))
    assert first_games(source, tmp_path / "three.pgn", 3) == 3
    three = (tmp_path / "three.pgn").read_bytes()
    assert three.count(b"[Event ") == 3 and text.startswith(three)
    assert text[len(three):].lstrip().startswith(b"[Event ")
    assert first_games(source, tmp_path / "all.pgn", 100) == 7
    assert (tmp_path / "all.pgn").read_bytes() == text
    assert not list(tmp_path.glob("*.partial"))


_MEASURE_BOTH = """
import json, sys
sys.path.append(sys.argv[1])
from bench_vs_cql_engines import measure
grown = measure([sys.executable, "-c", "b = bytearray(150 * 2**20); b[::4096] = b'x' * len(b[::4096])"])
idle = measure(["/bin/true"])
print(json.dumps([grown.status, grown.rss_mb, grown.cpu, grown.wall, idle.rss_mb]))
"""


def test_measure_takes_the_child_s_own_peak_and_cpu() -> None:
    """Measured from a small process, as the script runs: Linux reports a child's peak as its
    parent's when that is higher, and a pytest worker may have grown past 150 MB already."""
    import subprocess

    done = subprocess.run([sys.executable, "-c", _MEASURE_BOTH, str(ROOT / "scripts")], capture_output=True,
                          text=True, timeout=120, check=True)
    status, grown_mb, cpu, wall, idle_mb = json.loads(done.stdout)
    assert status == 0 and grown_mb >= 150 and idle_mb < 150
    assert 0 < cpu <= wall * 2 + 0.5  # its own seconds, not this process's


def test_measure_stops_a_run_at_its_timeout() -> None:
    stopped = measure(["sleep", "30"], timeout=0.5)
    assert stopped.timed_out and stopped.wall < 10
    assert stopped.failure("cqlindex").startswith("cqlindex: timed out after")
    assert measure(["sleep", "0"], timeout=5).failure("cqlindex") is None
