"""Every command line the README prints runs on the bundled samples and does what its comment says.

The commands are read from the README itself (the indented lines that start with ``cqlindex``),
run in order from a copy of ``samples/`` as a user types them in a terminal, and each one's
output is checked against what the README promises beside it. A command added to the README
without a check here fails the test, and so does a check whose command left the README.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shlex
import shutil
from collections.abc import Callable
from pathlib import Path

import chess.pgn
import pytest
from typer.testing import CliRunner

from cqlindex.cli import app

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def readme_commands() -> list[tuple[str, str]]:
    """(command, its comment) for every ``cqlindex`` line of the README's indented blocks."""
    out = []
    for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("    cqlindex "):
            words = shlex.split(line, comments=True)
            comment = line.split(" # ", 1)[1].strip() if " # " in line else ""
            out.append((shlex.join(words), comment))
    return out


def pgn_games(path: Path) -> list[chess.pgn.Game]:
    with path.open(encoding="utf-8") as handle:
        return list(iter(lambda: chess.pgn.read_game(handle), None))


def numbers(games: list[chess.pgn.Game]) -> list[int]:
    return [int(re.search(r"Game number (\d+)", g.comment).group(1)) for g in games]


def sort_values(path: Path) -> list[tuple[int, str]]:
    """(game number, the sort value) from the header comment of each game."""
    return [(int(n), v) for n, v in re.findall(r"Game number (\d+); longest: (\d+)", path.read_text())]


def table_games(text: str) -> list[int]:
    return [int(m) for m in re.findall(r"^│ (\d+) ", text, re.MULTILINE)]


class Run:
    def __init__(self, result, folder: Path) -> None:
        self.code = result.exit_code
        self.out = result.stdout
        self.err = result.stderr
        self.folder = folder


MATES = [1, 2, 3, 4, 5]

#: What each README command must do, by its exact text.
CHECKS: dict[str, Callable[[Run], None]] = {
    "cqlindex build 'samples/*.pgn' -o sample.duckdb":
        lambda r: re.search(r"sample.duckdb: 307 games, 24,565 positions", r.err) or pytest.fail(r.err),
    "cqlindex info sample.duckdb":
        lambda r: re.search(r"games\s+307\n\s+positions\s+24,565", r.out) or pytest.fail(r.out),
    "cqlindex info sample.duckdb --format json":
        lambda r: (lambda d: d["games"] == 307 and d["build"]["workers"] >= 1 and len(d["build"]["inputs"]) == 2
                   or pytest.fail(str(d["build"])))(json.loads(r.out)),
    "cqlindex sql sample.duckdb 'SELECT count(*) AS mates FROM positions WHERE is_mate'":
        lambda r: re.search(r"│ 6\s+│", r.out) or pytest.fail(r.out),
    "cqlindex sql sample.duckdb 'FROM errors' --format csv":
        lambda r: r.out == "source_file,gamenumber,line,message\n" or pytest.fail(r.out),
    "cqlindex sql sample.duckdb 'SELECT white FROM games WHERE year < ? ORDER BY year' --param 1850 --format csv":
        lambda r: list(csv.reader(io.StringIO(r.out))) == [
            ["white"], ["Legal de Kermeur, Francois"], ["De la Bourdonnais, Louis Charles Mahe"]] or pytest.fail(r.out),
    'cqlindex sql sample.duckdb \'COPY (FROM errors) TO \'"\'"\'errors.csv\'"\'"\'\' --allow-files':
        lambda r: (r.folder / "errors.csv").read_text() == "source_file,gamenumber,line,message\n" or pytest.fail(r.err),
    "cqlindex info sample.duckdb --schema":
        lambda r: "positions" in r.out and "fullmove(pos)" in r.out and "fen(pos)" in r.out or pytest.fail(r.out),
    "cqlindex export sample.duckdb parquet/":
        lambda r: (r.folder / "parquet" / "positions" / "part-00000.parquet").exists()
        and (r.folder / "parquet" / "spark.sql").exists() or pytest.fail(r.err),
    "cqlindex query sample.duckdb mate":
        lambda r: table_games(r.out) == MATES and "17. Rd8#" in r.out and "29. Qg5#" in r.out or pytest.fail(r.out),
    "cqlindex query sample.duckdb mate --variations":
        lambda r: table_games(r.out) == [*MATES, 7] and "4. Qxf7#" in r.out and "(variation)" in r.out
        or pytest.fail(r.out),
    "cqlindex query sample.duckdb -f samples/sacrifice.cql":
        lambda r: table_games(r.out) == [1, 2, 3, 4] or pytest.fail(r.out),
    "cqlindex query sample.duckdb 'flipcolor {A attacks k > 1}' --explain":
        lambda r: "SELECT" in r.out and "attacks" in r.out or pytest.fail(r.out),
    "cqlindex query sample.duckdb mate --engine python":
        lambda r: table_games(r.out) == MATES or pytest.fail(r.out),
    "cqlindex filters":
        lambda r: re.search(r"^  mate\s+supported\s+decided in SQL", r.out, re.MULTILINE) or pytest.fail(r.out),
    "cqlindex query sample.duckdb mat":
        lambda r: r.code == 2 and "did you mean 'mate'?" in r.err or pytest.fail(r.err),
    "cqlindex query sample.duckdb mate --format table":
        lambda r: table_games(r.out) == MATES and "first match" in r.out or pytest.fail(r.out),
    "cqlindex query sample.duckdb mate --format summary":
        lambda r: r.out == "1 2 3 4 5\n" or pytest.fail(r.out),
    "cqlindex query sample.duckdb mate -o mates.pgn":
        lambda r: numbers(pgn_games(r.folder / "mates.pgn")) == MATES
        and "{ CQL }" in (r.folder / "mates.pgn").read_text() or pytest.fail(r.out),
    "cqlindex query sample.duckdb mate -o mates.html":
        lambda r: (r.folder / "mates.html").read_text().count('<figure class="board"') == 5 or pytest.fail(r.out),
    "cqlindex query sample.duckdb mate --format ndjson":
        lambda r: [json.loads(x)["gamenumber"] for x in r.out.splitlines()] == MATES or pytest.fail(r.out),
    "cqlindex query sample.duckdb mate --format json":
        lambda r: [x["san"] for x in json.loads(r.out)] == ["Rd8#", "Nd5#", "Be7#", "Bxe7#", "Qg5#"]
        or pytest.fail(r.out),
    "cqlindex query sample.duckdb mate -o mates.csv":
        lambda r: [int(x["gamenumber"]) for x in csv.DictReader(io.StringIO((r.folder / "mates.csv").read_text()))]
        == MATES or pytest.fail(r.out),
    "cqlindex query sample.duckdb mate --format count":
        lambda r: r.out == "5 games 5 positions\n" or pytest.fail(r.out),
    "cqlindex query sample.duckdb mate -o mates.txt":
        lambda r: numbers(pgn_games(r.folder / "mates.txt")) == MATES or pytest.fail(r.out),
    "cqlindex query -i sample.duckdb -o out.pgn -gamenumber 1 7 -flipcolor samples/sacrifice.cql":
        lambda r: r.out.startswith("4 matches of 7 games") and numbers(pgn_games(r.folder / "out.pgn")) == [1, 2, 3, 4]
        or pytest.fail(r.out),
    "cqlindex query -i sample.duckdb -variations -matchcount 2 5 -cql btm check --format count":
        lambda r: r.out == "97 games 281 positions\n" or pytest.fail(r.out),
    "cqlindex query sample.duckdb mate -o mates.pgn -matchstring 'Mate!' -showmatches":
        lambda r: r.out.splitlines()[:6] == ["<1>", "<2>", "<3>", "<4>", "<5>", r.out.splitlines()[5]]
        and "{ Mate! }" in (r.folder / "mates.pgn").read_text() or pytest.fail(r.out),
    "cqlindex query sample.duckdb 'sort \"longest\" ply mate' -o longest.pgn":
        lambda r: sort_values(r.folder / "longest.pgn") == [(4, "47"), (3, "45"), (1, "33"), (2, "13"), (5, "3")]
        or pytest.fail(r.out),
    "cqlindex query -i sample.duckdb -player Anderssen -year 1850 1855 mate --format summary":
        lambda r: r.out == "3 4\n" or pytest.fail(r.out),
    "cqlindex query -i sample.duckdb -fen 7K/8/k1P5/7p/8/8/8/8 --format summary":
        lambda r: r.out == "6\n" or pytest.fail(r.out),
    "cqlindex query -i sample.duckdb -threads 2 mate":
        lambda r: r.code == 2 and "-threads: the index is already built; queries use every core" in r.err
        or pytest.fail(r.err),
}

def _spark_or_its_absence(r: Run) -> None:
    """The Spark engine's games; where pyspark or Java is missing (never in CI), the message that says so."""
    import os

    if r.code == 3 and "--engine spark needs" in r.err and os.environ.get("CI") != "true":
        return
    assert r.code == 0 and r.out == "4 3 1 2 5\n", (r.out, r.err)


def _explain_json(r: Run) -> None:
    data = json.loads(r.out)
    assert data["rows"] == "candidates" and data["filters"][0]["verdict"] == "narrowed", data
    assert data["residual"]["filters"] == ["line --> check{2,} --> mate"]


CHECKS.update({
    "cqlindex query sample.duckdb 'flip {Ka1 kh8}' --explain --dialect spark":
        lambda r: r.out.startswith("-- cqlindex plan (spark SQL)") and r.out.rstrip().endswith(";")
        or pytest.fail(r.out),
    "cqlindex query sample.duckdb 'line --> check{2,} --> mate' --explain --format json": _explain_json,
    "cqlindex export sample.duckdb cluster/ --base-path s3://my-bucket/chess":
        lambda r: "(path 's3://my-bucket/chess/positions')" in (r.folder / "cluster" / "spark.sql").read_text()
        or pytest.fail(r.err),
    "cqlindex query parquet/ 'sort \"longest\" ply mate' --engine spark --format summary": _spark_or_its_absence,
    "cqlindex build samples/gnuchess-300.pgn -o grown.duckdb":
        lambda r: "grown.duckdb: 300 games" in r.err or pytest.fail(r.err),
    "cqlindex add grown.duckdb samples/classics.pgn":
        lambda r: "grown.duckdb: added 7 games" in r.err and runner.invoke(
            app, ["sql", "grown.duckdb", "SELECT max(gamenumber) FROM games", "--format", "csv"]).stdout.endswith(
            "307\n") or pytest.fail(r.err),
})

ERRORS = {"cqlindex query sample.duckdb mat", "cqlindex query -i sample.duckdb -threads 2 mate"}


def test_every_readme_command_has_a_check() -> None:
    commands = [c for c, _ in readme_commands()]
    assert sorted(set(commands)) == sorted(CHECKS)


def test_the_readme_commands_do_what_they_say(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(ROOT / "samples", tmp_path / "samples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("cqlindex.cli_execute._terminal", lambda: True)  # as a user types them in a terminal
    for command, comment in readme_commands():
        result = runner.invoke(app, shlex.split(command)[1:])
        run = Run(result, tmp_path)
        if command not in ERRORS and "--engine spark" not in command:
            assert result.exit_code == 0, (command, result.output)
        CHECKS[command](run)
