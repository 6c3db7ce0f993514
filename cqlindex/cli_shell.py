"""What every ``cqlindex`` command shares: its error console, the guard that turns a
:class:`~cqlindex.errors.CqlindexError` into one line and an exit code, ``--version``, and the
name of the index a PGN file gets.

Without typer (the light entry point, :mod:`cqlindex.launch`, runs queries without it): an exit
code is ``SystemExit``, which typer's commands let through as they do their own ``Exit``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from cqlindex.errors import CqlError, CqlindexError

if TYPE_CHECKING:
    from rich.console import Console

_T = TypeVar("_T")


def stderr() -> Console:
    from rich.console import Console  # here: a query that says nothing does not load rich (start-up)

    return Console(stderr=True, highlight=False, soft_wrap=True)


def guard(fn: Callable[[], _T]) -> _T:
    """Run ``fn``; turn an input error into a message and an exit code."""
    try:
        return fn()
    except CqlError as error:
        stderr().print(error.render(), markup=False)
        raise SystemExit(error.exit_code) from None
    except CqlindexError as error:
        from rich.markup import escape

        stderr().print(f"[bold red]cqlindex:[/] {escape(str(error))}", markup=True)
        raise SystemExit(error.exit_code) from None
    except KeyboardInterrupt:
        stderr().print("cqlindex: interrupted")
        raise SystemExit(130) from None
    except RecursionError:  # the limits of cql/limits.py are meant to make this unreachable
        from cqlindex.errors import TOO_DEEP

        stderr().print(f"cqlindex: {TOO_DEEP}", highlight=False)
        raise SystemExit(2) from None
    except Exception as error:
        from cqlindex.exec.timeout import interrupted

        if not interrupted(error):
            raise
        stderr().print("cqlindex: interrupted")  # Ctrl-C while DuckDB ran a statement
        raise SystemExit(130) from None


def echo(text: str) -> None:
    """A line on standard output, flushed (as typer's echo writes it)."""
    sys.stdout.write(f"{text}\n")
    sys.stdout.flush()


def version(value: bool) -> None:
    if value:
        from cqlindex import __version__

        echo(f"cqlindex {__version__}")
        raise SystemExit()


def default_output(first: str) -> Path:
    """The index `cqlindex build FIRST` writes by default: the file's name without its PGN suffixes."""
    name = Path(first).name
    for suffix in (".gz", ".bz2", ".zst", ".pgn", ".PGN"):
        name = name.removesuffix(suffix)
    return Path(name.replace("*", "all") or "games").with_suffix(".duckdb")
