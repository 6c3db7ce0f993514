"""The light entry point (:mod:`cqlindex.launch`) reads ``cqlindex query`` as typer does.

Its table of the query command is derived here from typer's own command, so a changed option
fails until the table is written again; and for many command lines the parameters it hands the
command's body must be those typer hands it, or it must leave the line to typer.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from enum import Enum
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

import cqlindex.cli_execute
from cqlindex import launch
from cqlindex.cli import app

REPO = Path(__file__).resolve().parents[1]


def described() -> dict:
    """:data:`cqlindex.launch.QUERY` as typer's ``query`` command declares it."""
    command = typer.main.get_command(app).commands["query"]
    kinds = {str: "str", Path: "path", int: "int", float: "float", list[str]: "list", list[Path]: "paths"}
    spec: dict = {"arguments": [], "options": {}, "flags": {}, "minimum": {}, "defaults": {}}
    for param in command.params:
        default = param.default.value if isinstance(param.default, Enum) else param.default
        spec["defaults"][param.name] = default
        if param.param_type_name == "argument":
            spec["arguments"].append(param.name)
            continue
        if param.is_eager:
            spec["defaults"][param.name] = None  # --version: typer's; the body gets its callback's None
            continue
        if getattr(param, "min", None) is not None:
            spec["minimum"][param.name] = param.min
        if param.is_flag:
            spec["flags"].update({opt.lower(): [param.name, True] for opt in param.opts})
            spec["flags"].update({opt.lower(): [param.name, False] for opt in param.secondary_opts})
            continue
        annotation = param.type_descriptor.annotation
        kind = annotation.__name__.lower() if isinstance(annotation, type) and issubclass(annotation, Enum) \
            else kinds[annotation]
        spec["options"].update({opt.lower(): [param.name, kind] for opt in param.opts})
    return spec


def test_the_table_is_typers_declaration() -> None:
    assert launch.QUERY == described()


def _typers(args: list[str], monkeypatch) -> dict | None:
    """The parameters typer hands the query command's body for ``args``; None if it exits first."""
    seen: list[dict] = []
    monkeypatch.setattr(cqlindex.cli_execute, "execute", lambda **params: seen.append(params))
    CliRunner().invoke(app, ["query", *args])
    return seen[0] if seen else None


@pytest.mark.parametrize("args", [
    ["g.duckdb", "Ka1"],
    ["g.duckdb", "Ka1", "--format", "ndjson", "-o", "out.ndjson"],
    ["-i", "g.duckdb", "check", "-gamenumber", "3", "9", "-matchcount", "2"],
    ["g.duckdb", "-f", "q.cql", "--format", "count", "-quiet", "-MainLine"],
    ["g.duckdb", "-f", "a.cql", "--file", "b.cql", "-F", "c.cql", "--format", "count"],
    ["g.duckdb", "mate", "-cql", "check", "-cql", "wtm", "--engine", "python", "--timeout", "2.5"],
    ["G.DUCKDB", "-fen", "8/8/8/8/8/8/8/8", "-player", "Kasparov", "-year", "1990", "2000", "-flip"],
    ["g.duckdb", "true", "--limit", "3", "--boards", "2", "--format", "html", "-showmatches", "-silent"],
    ["g.duckdb", "true", "--explain", "--dialect", "spark", "-variations", "--include-unplayable"],
    ["g.duckdb", "true", "-G", "5", "-result", "1-0", "-white", "a", "-black", "b", "-event", "e", "-site", "s"],
    ["g.duckdb"],
    [],
])
def test_both_readings_give_the_body_the_same_parameters(args, monkeypatch) -> None:
    mine = launch.query_params(args)
    assert mine is not None, args
    assert mine == _typers(args, monkeypatch)


@pytest.mark.parametrize("args", [
    ["--help"], ["-h"], ["g.duckdb", "Ka1", "-version"],
    ["g.duckdb", "Ka1", "--format=ndjson"],          # typer splits it
    ["g.duckdb", "Ka1", "--format", "yaml"],         # typer's message
    ["g.duckdb", "Ka1", "--limit", "0"],             # below the minimum
    ["g.duckdb", "Ka1", "--limit", "x"],
    ["g.duckdb", "Ka1", "-threads", "2"],            # a refused CQL option
    ["g.duckdb", "Ka1", "extra"],                    # one argument too many
    ["g.duckdb", "Ka1", "-o", "a", "-o", "b"],       # repeated
    ["g.duckdb", "Ka1", "-matchstring", "-s"],       # a value like an option
    ["g.duckdb", "--", "-Ka1"],
    ["g.duckdb", "Ka1", "--no-such-option"],
])
def test_anything_unusual_is_left_to_typer(args) -> None:
    assert launch.query_params(args) is None


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cqlindex", *args], capture_output=True, text=True, cwd=REPO,
                          timeout=120)


def test_a_query_through_the_entry_point_is_the_query_through_typer(tmp_path) -> None:
    from cqlindex.ingest.pipeline import build

    db = tmp_path / "g.duckdb"
    build([str(REPO / "samples" / "gnuchess-300.pgn")], db, workers=1)
    for args in (["query", str(db), "check", "-gamenumber", "1", "40", "--format", "ndjson"],
                 ["query", str(db), "Ka1 {", "--format", "count"],          # a CQL mistake: exit 2, located
                 ["query", str(tmp_path / "none.duckdb"), "Ka1"],           # no index: exit 3
                 ["query", str(db), "check", "--limit", "0"]):              # typer's own message, through the launcher
        light = _cli(*args)
        typed = CliRunner().invoke(app, args)
        assert light.returncode == typed.exit_code, (args, light.stderr, typed.output)
        assert light.stdout == typed.stdout, args
        assert _timeless(light.stderr) == _timeless(typed.stderr), args


def _timeless(text: str) -> str:
    """The text but the time taken and the program name (python -m cqlindex here, cqlindex in the runner)."""
    return re.sub(r" in [0-9.]+ seconds", " in S seconds", text).replace("python -m cqlindex", "cqlindex")


@pytest.mark.parametrize(("given", "seen"), [(None, "1"), ("3", "3")])
def test_the_console_script_starts_one_blas_thread_unless_told(given, seen) -> None:
    """numpy's OpenBLAS starts a thread per core on import (start-up, issue 34): the console
    script asks for one before anything imports numpy, and a number the user set stands."""
    probe = ("import os, sys\n"
             "sys.argv = ['cqlindex', '--version']\n"
             "from cqlindex.launch import console\n"
             "try:\n"
             "    console()\n"
             "except SystemExit:\n"
             "    pass\n"
             "print(os.environ.get('OPENBLAS_NUM_THREADS'), 'numpy' in sys.modules)\n")
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-2:] == [seen, "False"], done.stdout
