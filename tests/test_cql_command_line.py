"""Every CQL 6.2 command-line option on ``cqlindex query``: it works, or it is refused by name.

A CQL user types the options they know. Each one either does what CQL does (checked against
the library running the CQL text the option stands for) or stops with one line that names the
option and says what to do instead; never click's guess at a short option (``No such option:
-t`` for ``-threads``) and never a FEN taken for the query.
"""

from __future__ import annotations

from pathlib import Path

import chess.pgn
import pytest
from typer.testing import CliRunner

from cqlindex.cli import app
from cqlindex.cql_options import ACCEPTED, REFUSED
from cqlindex.exec.run import run

ROOT = Path(__file__).resolve().parents[1]
CLASSICS = ROOT / "samples" / "classics.pgn"
runner = CliRunner()

#: CQL 6.2's command-line options, as its -help lists them (and the manual's -assign, -gui, -alwayscomment).
CQL_62_OPTIONS = ("a", "u", "alwayscomment", "assign", "black", "white", "player", "event", "site", "year", "result",
                  "fen", "gamenumber", "g", "cql", "flip", "flipcolor", "reversecolor", "shift", "input", "i", "output",
                  "o", "mainline", "variations", "matchcount", "matchstring", "noheader", "noremovecomment",
                  "nosettag", "quiet", "silent", "showmatches", "similarposition", "singlethreaded", "s", "threads",
                  "lineincrement", "hhdb", "html", "parse", "vi", "version", "help", "h", "gui", "virtualmainline")

#: Arguments each refused option is tried with (its operands, where it takes some).
OPERANDS = {"threads": ["2"], "lineincrement": ["500"], "a": ["q.cql"], "u": ["q.cql"], "assign": ["X", "3"]}


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    from cqlindex.ingest.pipeline import build

    out = tmp_path_factory.mktemp("cqlopts") / "classics.duckdb"
    build([str(CLASSICS)], out, workers=1)
    return out


def invoke(*args):
    return runner.invoke(app, ["query", *map(str, args)])


def games_of(result) -> list[int]:
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if line and not line.startswith("<")]
    return [int(g) for g in lines[0].split()] if lines else []


def test_every_cql_option_is_accepted_or_refused() -> None:
    assert set(CQL_62_OPTIONS) <= set(ACCEPTED) | set(REFUSED)
    assert not set(ACCEPTED) & set(REFUSED)


@pytest.mark.parametrize("name", sorted(REFUSED))
@pytest.mark.parametrize("dashes", ["-", "--"])
def test_a_refused_option_is_named_with_what_to_do(db: Path, name: str, dashes: str) -> None:
    result = invoke(db, f"{dashes}{name}", *OPERANDS.get(name, []), "mate")
    assert result.exit_code == 2 and "Traceback" not in result.output
    [line] = result.output.strip().splitlines()
    assert line.startswith(f"cqlindex: -{name}: ") and len(line) > len(f"cqlindex: -{name}: ") + 20
    assert "No such option" not in line


def test_threads_says_the_index_is_built() -> None:
    result = invoke("x.duckdb", "-threads", "2", "mate")
    assert "-threads: the index is already built; queries use every core" in result.output


@pytest.mark.parametrize("name", [n for n in ACCEPTED if n not in ("help", "h", "version")])
def test_an_accepted_option_is_declared_with_one_dash(name: str) -> None:
    import typer.main

    command = typer.main.get_command(app).commands["query"]
    spellings = {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}
    assert f"-{name}" in spellings


@pytest.mark.parametrize("flag", ["-help", "-h", "--help"])
def test_help(flag: str) -> None:
    result = invoke(flag)
    assert result.exit_code == 0 and "-player" in result.stdout and "<bool>" not in result.stdout


@pytest.mark.parametrize("flag", ["-version", "--version", "-Version"])
def test_version(flag: str) -> None:
    from cqlindex import __version__

    result = invoke(flag)
    assert result.exit_code == 0 and result.stdout.strip() == f"cqlindex {__version__}"


# (CQL's options after the index, and the CQL text they stand for), each one run both ways
EQUIVALENT = [
    (["-player", "Anderssen", "mate"], 'mate player "Anderssen"'),
    (["-white", "Anderssen"], 'player white "Anderssen"'),
    (["-black", "Dufresne", "mate"], 'mate player black "Dufresne"'),
    (["-event", "London", "mate"], 'mate event "London"'),
    (["-site", "Opera", "mate"], 'mate site "Opera"'),
    (["-year", "1850", "1855", "mate"], "mate year >= 1850 year <= 1855"),
    (["-year", "1834", "mate"], "mate year == 1834"),
    (["-result", "1/2-1/2", "initial"], "initial result 1/2-1/2"),
    (["-fen", "7K/8/k1P5/7p/8/8/8/8 w - - 0 1"], 'fen "7K/8/k1P5/7p/8/8/8/8"'),
    (["-reversecolor", "-cql", "wtm mate"], "btm mate"),
    (["-flipcolor", "-white", "Morphy", "Kc1"], 'flipcolor {Kc1} player white "Morphy"'),
    (["-Player", "Morphy", "-GameNumber", "1", "3", "check"], 'check player "Morphy"'),
]


@pytest.mark.parametrize("args, text", EQUIVALENT, ids=[" ".join(a) for a, _ in EQUIVALENT])
def test_option_finds_what_cql_finds(db: Path, args: list[str], text: str) -> None:
    expected = list(run(db, text).matches)
    assert expected, "the option must find something for the test to mean anything"
    assert games_of(invoke(db, *args, "--format", "summary")) == expected
    assert games_of(invoke("-i", db, *args, "--format", "summary")) == expected


def test_the_restrictions_restrict(db: Path) -> None:
    assert list(run(db, 'mate player "Anderssen"').matches) != list(run(db, "mate").matches)
    assert list(run(db, "mate year >= 1850 year <= 1855").matches) == [3, 4]
    # -white under -flipcolor still means White: the restriction stays outside the transform
    assert games_of(invoke(db, "-flipcolor", "-white", "Morphy", "Kc1", "--format", "summary")) == [1]


@pytest.mark.parametrize("args, words", [
    (["-result", "2-0", "mate"], "-result takes 1-0, 0-1 or 1/2-1/2"),
    (["-white", 'a"b', "mate"], "double quote"),
    (["-year", "x", "mate"], "-year needs a number"),
    (["-fen", "8/8/8 w", "mate"], "not a FEN board"),
])
def test_bad_values_are_one_clear_message(db: Path, args: list[str], words: str) -> None:
    result = invoke(db, *args)
    assert result.exit_code == 2 and "Traceback" not in result.output and words in result.output


def test_noheader_and_nosettag(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "mates.pgn"
    assert invoke(db, "mate", "-o", out, "-noheader", "-nosettag", "-noremovecomment").exit_code == 0
    with out.open() as handle:
        games = list(iter(lambda: chess.pgn.read_game(handle), None))
    assert len(games) == len(run(db, "mate").matches)
    assert not any("Game number" in g.comment for g in games) and all("CQL" in g.end().comment for g in games)
