"""The ``cqlindex`` console script: a query starts without typer (issue 16: start-up).

Typer, with click and pydantic under it, costs a query about a fifth of its start-up. The command
line is declared once, for typer (:mod:`cqlindex.cli`, :mod:`cqlindex.cli_query`: the options,
their types, the help). Here :data:`QUERY` is that declaration of ``cqlindex query`` as data,
and a plain ``cqlindex query ...`` is read with it and handed to the command's body
(:func:`cqlindex.cli_execute.execute`) straight away. Anything else, or anything unusual in a
query's command line (help, --version, an unknown or repeated option, ``--opt=value``, a value
that looks like an option or that typer would have to check), goes to typer as it is, so a
mistake gets typer's message. tests/test_cli_launch.py derives :data:`QUERY` from typer's
command and checks that both readings give the body the same parameters.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

#: ``cqlindex query`` as :mod:`cqlindex.cli_query` declares it: the arguments in order; each
#: option spelling (lower case: the command reads option names in any case) with its parameter
#: and kind; each flag spelling with its parameter and the value it sets; the lower bounds; the
#: defaults. Written by :func:`tests.test_cli_launch.described` from typer's command.
QUERY: dict = {
    "arguments": ["db", "cql"],
    "options": {
        "--black": ["black", "str"], "--boards": ["boards", "int"], "--cql": ["append", "list"],
        "--dialect": ["dialect", "str"], "--engine": ["engine", "engine"], "--event": ["event", "str"],
        "--fen": ["fen", "str"], "--file": ["file", "paths"], "--format": ["format", "format"],
        "--gamenumber": ["gamenumber", "str"], "--input": ["input", "path"], "--limit": ["limit", "int"],
        "--matchcount": ["matchcount", "str"], "--matchstring": ["matchstring", "str"],
        "--output": ["output", "path"], "--player": ["player", "str"], "--result": ["result_tag", "str"],
        "--site": ["site", "str"], "--spark-master": ["spark_master", "str"], "--timeout": ["timeout", "float"],
        "--white": ["white", "str"], "--year": ["year", "str"], "-black": ["black", "str"],
        "-cql": ["append", "list"], "-event": ["event", "str"], "-f": ["file", "paths"], "-fen": ["fen", "str"],
        "-g": ["gamenumber", "str"], "-gamenumber": ["gamenumber", "str"], "-i": ["input", "path"],
        "-input": ["input", "path"], "-limit": ["limit", "int"], "-matchcount": ["matchcount", "str"],
        "-matchstring": ["matchstring", "str"], "-o": ["output", "path"], "-output": ["output", "path"],
        "-player": ["player", "str"], "-result": ["result_tag", "str"], "-site": ["site", "str"],
        "-white": ["white", "str"], "-year": ["year", "str"],
    },
    "flags": {
        "--explain": ["explain", True], "--flip": ["flip", True], "--flipcolor": ["flipcolor", True],
        "--include-unplayable": ["unplayable", True], "--mainline": ["variations", False],
        "--noheader": ["noheader", True], "--noremovecomment": ["nosettag", True], "--nosettag": ["nosettag", True],
        "--quiet": ["quiet", True], "--reversecolor": ["reversecolor", True], "--shift": ["shift", True],
        "--showmatches": ["showmatches", True], "--silent": ["silent", True], "--variations": ["variations", True],
        "-flip": ["flip", True], "-flipcolor": ["flipcolor", True], "-mainline": ["variations", False],
        "-noheader": ["noheader", True], "-noremovecomment": ["nosettag", True], "-nosettag": ["nosettag", True],
        "-q": ["quiet", True], "-quiet": ["quiet", True], "-reversecolor": ["reversecolor", True],
        "-shift": ["shift", True], "-showmatches": ["showmatches", True], "-silent": ["silent", True],
        "-variations": ["variations", True],
    },
    "minimum": {"boards": 1, "limit": 1, "timeout": 0.001},
    "defaults": {
        "append": None, "black": None, "boards": 12, "cql": None, "db": None, "dialect": "duckdb", "engine": "sql",
        "event": None, "explain": False, "fen": None, "file": None, "flip": False, "flipcolor": False,
        "format": None, "gamenumber": None, "input": None, "limit": None, "matchcount": None, "matchstring": None,
        "noheader": False, "nosettag": False, "output": None, "player": None, "quiet": False, "result_tag": None,
        "reversecolor": False, "shift": False, "showmatches": False, "silent": False, "site": None,
        "spark_master": "local[*]", "timeout": None, "unplayable": False, "variations": None, "version": None,
        "white": None, "year": None,
    },
}


def console() -> None:
    """Entry point of the console script and of ``python -m cqlindex``: :func:`main`, and after a
    query that ran here to its end, out at once. Python's teardown of the modules a query loads
    (DuckDB, sqlglot, the parser) costs ~0.1 CPU s, a fifth of a query's start-up, and frees
    nothing the system would not: the index is closed, the output written and closed, no child
    process is left (a Spark run, which has a JVM to stop, ends the usual way).

    Nothing a command runs here needs pandas, which pyarrow would import if installed
    (:mod:`cqlindex.no_pandas`, issue 16); ``--engine spark`` lets pyspark have it back; nor
    ``importlib.metadata`` before something uses it (:mod:`cqlindex.lazy_metadata`). Nor
    more than one BLAS thread (:func:`one_blas_thread`). A query's process is cqlindex's own and
    ends with the query, so its malloc keeps the columnar engine's freed arrays for the next
    (:mod:`cqlindex.heap`: a fifth of a heavy query's wall time went to faulting them in again);
    not a long-lived one's (``serve``), which should give back what a big query took."""
    from cqlindex import heap, lazy_metadata, no_pandas

    one_blas_thread()
    no_pandas.hide()
    lazy_metadata.defer()
    if sys.argv[1:2] == ["query"]:
        heap.reuse_freed_memory()
    if main():
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except OSError as error:
            _reader_gone(error)
        os._exit(0)


def one_blas_thread() -> None:
    """Have numpy's OpenBLAS start one thread, not one per core, unless the user says how many.

    Importing numpy (the columnar engine, the record writers) starts OpenBLAS's threads and
    their buffers: ~0.05 s of a fresh query's ~0.3 on two cores, more on more. Nothing cqlindex
    runs calls BLAS: its arrays are integers, whose ``einsum`` and ``@`` numpy computes itself,
    so the answers are the same. Set in the environment, it also holds in the worker processes
    a command spawns (build, PGN output, serve), which import numpy too."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main() -> bool:
    """Run the command line of ``sys.argv``; True when a query ran here (not through typer) to its
    end on the local engines, so that nothing is left to tear down but memory."""
    args = sys.argv[1:]
    params = query_params(args[1:]) if args[:1] == ["query"] else None
    if params is None:
        from cqlindex.cli import main as typer_main

        typer_main()
        return False
    from cqlindex.cli_execute import Engine, execute

    try:
        execute(**params)
        sys.stdout.flush()
    except (KeyboardInterrupt, EOFError):  # outside the body's guard: as click says it
        sys.stderr.write("\nAborted!\n")
        sys.exit(1)
    except OSError as error:
        _reader_gone(error)
    return params["engine"] is not Engine.spark


def _reader_gone(error: OSError) -> None:
    """The reader went away (cqlindex query ... | head): quietly, as click does; else ``error``."""
    if error.errno != errno.EPIPE:
        raise error
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(1)


def query_params(args: list[str]) -> dict | None:
    """The parameters typer would pass the query command for ``args`` (what follows ``query``),
    or None where this reading does not go: typer reads those."""
    from cqlindex.cql_options import join_ranges, refusal
    from cqlindex.errors import CqlindexError

    options, flags = QUERY["options"], QUERY["flags"]
    try:
        if refusal(args, options):
            return None  # typer's command says why
        args = join_ranges(args)
    except CqlindexError:
        return None
    given: dict = {}
    positional: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-", "--") or not arg.startswith("-"):
            if arg == "--":
                return None
            positional.append(arg)
            i += 1
            continue
        key = arg.lower()
        if key in flags:
            name, value = flags[key]
            if name in given:
                return None
            given[name] = value
            i += 1
            continue
        if key not in options or i + 1 >= len(args) or args[i + 1].startswith("-"):
            return None
        name, kind = options[key]
        value = _converted(kind, args[i + 1], QUERY["minimum"].get(name))
        if value is None or (name in given and kind not in _LISTS):
            return None
        given[name] = [*given.get(name, []), value] if kind in _LISTS else value
        i += 2
    if len(positional) > len(QUERY["arguments"]) or "-" in positional:
        return None
    for name, value in zip(QUERY["arguments"], positional):
        given[name] = Path(value) if name == "db" else value
    params = {name: _converted(_kind(name), value, None) if isinstance(value, str) and _kind(name) in _ENUMS
              else value for name, value in QUERY["defaults"].items()}
    params.update(given)
    return params


def _kind(name: str) -> str | None:
    return next((kind for n, kind in QUERY["options"].values() if n == name), None)


_ENUMS = ("engine", "format")
#: Kinds of option that may be repeated, each value added to a list.
_LISTS = ("list", "paths")


def _converted(kind: str, value: str, minimum: float | None):
    """``value`` as typer converts it for ``kind``, or None where typer might read it otherwise."""
    if kind in ("str", "list"):
        return value
    if kind in ("path", "paths"):
        return Path(value) if value else None
    if kind == "engine":
        from cqlindex.cli_execute import Engine

        return Engine(value) if value in Engine._value2member_map_ else None
    if kind == "format":
        from cqlindex.output.formats import Format

        return Format(value) if value in Format._value2member_map_ else None
    if kind == "int" and value.isascii() and value.isdigit():
        number: float = int(value)
    elif kind == "float" and value.isascii() and value.replace(".", "", 1).isdigit():
        number = float(value)
    else:
        return None
    return number if minimum is None or number >= minimum else None
