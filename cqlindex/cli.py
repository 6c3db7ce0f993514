"""The ``cqlindex`` command: a thin shell over the library.

Every command catches :class:`~cqlindex.errors.CqlindexError`, prints one line to stderr and
exits with the error's code, so input mistakes never show a traceback.

rich is imported where a command prints with it (the progress bar and summary of a build, the
text of ``info``, the table of ``sql``), not here: importing it costs ~0.1 s, and typer, whose
help and errors are click's plain ones here (``rich_markup_mode=None``), does not need it.
"""

from __future__ import annotations

import csv
import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from cqlindex.cli_inputs import sql_params, sql_text, typed_build_value
from cqlindex.cli_query import CQL_CONTEXT, CqlStyleCommand, query
from cqlindex.cli_shell import default_output, guard, stderr, version

app = typer.Typer(
    name="cqlindex",
    help="Index every position of a PGN collection in DuckDB and search it with CQL.\n\n"
         "Exit codes: 0 done (also when nothing matched), 2 a mistake in the command, the query or an input "
         "file, 3 no index (a missing or foreign database, a PGN file not built yet) or SQL that DuckDB refuses, "
         "130 interrupted.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # click's plain help: option names and their values' types, no <bool> after every flag
    rich_markup_mode=None,
)


class InfoFormat(str, Enum):
    text = "text"
    json = "json"


class Reader(str, Enum):
    auto = "auto"
    compiled = "compiled"
    python_chess = "python-chess"


class SqlFormat(str, Enum):
    table = "table"
    csv = "csv"
    json = "json"


@app.callback()
def main_options(
    version: Annotated[bool, typer.Option(
        "--version", callback=version, is_eager=True, help="Print cqlindex's version and stop.")] = False,
) -> None:
    """Options of cqlindex itself, before the command."""


@app.command()
def build(
    pgn: Annotated[list[str], typer.Argument(help="PGN files or globs (.pgn, .pgn.gz, .pgn.bz2, .pgn.zst).")],
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Database to write (default: NAME.duckdb).")] = None,
    workers: Annotated[int | None, typer.Option(help="Parse processes (default: one per core).", min=1)] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar, only the summary.")] = False,
    reader: Annotated[Reader, typer.Option(
        help="compiled: main-line games by the compiled reader, the rest by python-chess; python-chess: "
             "every game by python-chess; auto: compiled when its wheel is installed.")] = Reader.auto,
    wait: Annotated[bool, typer.Option(
        "--wait", help="If another build is writing the same index, wait for it (else exit with code 75).")] = False,
) -> None:
    """Replay every game and write every position of every line into a DuckDB index."""
    from cqlindex.ingest.pipeline import build as run_build

    target = output or default_output(pgn[0])

    def work(update, say):
        from cqlindex.api import absolute_inputs

        inputs = absolute_inputs(pgn)  # the index names its sources so that any directory finds them
        return run_build(inputs, target, workers=workers, reader=reader.value, on_progress=update, wait=wait,
                         on_wait=say)

    _ingest(target, work, quiet, "indexing")


@app.command()
def add(
    db: Annotated[Path, typer.Argument(help="An index written by cqlindex build.")],
    pgn: Annotated[list[str], typer.Argument(help="PGN files or globs whose games are appended.")],
    workers: Annotated[int | None, typer.Option(help="Parse processes (default: one per core).", min=1)] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar, only the summary.")] = False,
    reader: Annotated[Reader, typer.Option(help="As for cqlindex build.")] = Reader.auto,
    wait: Annotated[bool, typer.Option(
        "--wait", help="If a build or add is writing the same index, wait for it (else exit with code 75).")] = False,
) -> None:
    """Append games to an index: numbered after its last game, as one build of all the files would index them."""
    from cqlindex.ingest.append import add as run_add

    def work(update, say):
        from cqlindex.api import absolute_inputs

        return run_add(db, absolute_inputs(pgn), workers=workers, reader=reader.value, on_progress=update,
                       wait=wait, on_wait=say)

    _ingest(db, work, quiet, "adding", added=True)


def _ingest(target: Path, work, quiet: bool, verb: str, *, added: bool = False) -> None:
    """Run a build or an add with its progress bar on stderr (on a terminal), then print the summary."""
    from rich.markup import escape
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    console = stderr()
    show = not quiet and console.is_terminal

    def say(message: str) -> None:
        console.print(message, highlight=False, markup=False)

    def run():
        if not show:
            return work(None, say)
        with Progress(TextColumn(f"[bold]{verb}"), BarColumn(), DownloadColumn(), TimeRemainingColumn(),
                      TextColumn("{task.fields[games]:,} games, {task.fields[positions]:,} positions"),
                      console=console, transient=True) as bar:
            task = bar.add_task(verb, total=None, games=0, positions=0)

            def update(p):
                bar.update(task, total=p.bytes_total, completed=p.bytes_done, games=p.games, positions=p.positions)

            return work(update, say)

    summary = guard(run)
    for rejected in summary.rejected:
        console.print(f"[bold red]error:[/] {escape(rejected)}", highlight=False)
    for warning in summary.warnings:
        console.print(f"warning: {warning}", highlight=False)
    errors = f"{summary.errors:,} errors (see: cqlindex sql {target} 'FROM errors')" if summary.errors else "0 errors"
    console.print(
        f"{target}: {'added ' if added else ''}{summary.games:,} games, {summary.positions:,} positions "
        f"({summary.mainline_positions:,} main line), {errors}, {summary.seconds:.1f} s, "
        f"{summary.positions_per_second:,.0f} positions/s", highlight=False)


@app.command()
def info(
    db: Annotated[Path, typer.Argument(help="A database written by cqlindex build.")],
    format: Annotated[InfoFormat, typer.Option("--format", "-f", help="text or json.")] = InfoFormat.text,
    schema: Annotated[bool, typer.Option(
        "--schema", help="List every table and view with its columns, and the SQL macros, for ad-hoc SQL.")] = False,
) -> None:
    """Show counts, the schema and the build parameters of an index."""
    from cqlindex.store.database import connect, macros, summary

    def work() -> dict[str, Any]:
        con = connect(db)
        try:
            data = summary(con)
            data["macros"] = macros(con)
            return data
        finally:
            con.close()

    data = guard(work)
    if schema:
        if format is InfoFormat.json:
            typer.echo(json.dumps({"tables": data["tables"], "macros": data["macros"]}, indent=2))
            return
        from rich.console import Console  # here: the JSON shapes do without it

        console = Console(highlight=False)
        for table, columns in data["tables"].items():
            console.print(f"[bold]{table}[/]")
            for column in columns:
                console.print(f"  {column['name']:20s} {column['type']}")
        console.print("[bold]macros[/] (see schema/views.sql)")
        for macro in data["macros"]:
            console.print(f"  {macro['name']}({', '.join(macro['parameters'])})")
        return
    if format is InfoFormat.json:
        build = {key: typed_build_value(key, value) for key, value in data["build"].items()}
        typer.echo(json.dumps({**data, "build": build}, indent=2))
        return
    from rich.console import Console

    console = Console(highlight=False)
    console.print(f"[bold]{db}[/]")
    console.print(f"  games               {data['games']:>12,}")
    console.print(f"  positions           {data['positions']:>12,}")
    console.print(f"  main-line positions {data['mainline_positions']:>12,}")
    console.print(f"  errors              {data['errors']:>12,}  ({data['games_with_errors']:,} games)")
    console.print("[bold]build[/]")
    for key, value in data["build"].items():
        console.print(f"  {key:20s} {value.replace(chr(10), ', ')}")
    console.print("[bold]tables and views[/] (columns: cqlindex info DB --format json, or schema/tables.sql)")
    for table, columns in data["tables"].items():
        console.print(f"  {table:20s} {len(columns):>3} columns")


@app.command()
def sql(
    db: Annotated[Path, typer.Argument(help="A database written by cqlindex build.")],
    query: Annotated[str | None, typer.Argument(
        help="SQL to run (read-only), e.g. \"SELECT count(*) FROM positions\"; '-' or nothing: read it from "
             "standard input.", show_default=False)] = None,
    file: Annotated[Path | None, typer.Option(
        "--file", help="Read the SQL from this file.", show_default=False)] = None,
    param: Annotated[list[str] | None, typer.Option(
        "--param", "-p", help="A value for the SQL's next ? (or NAME=VALUE for $NAME); may be repeated. Numbers are "
                              "bound as numbers, anything else as text.", show_default=False)] = None,
    format: Annotated[SqlFormat, typer.Option("--format", "-f", help="table, csv or json.")] = SqlFormat.table,
    allow_files: Annotated[bool, typer.Option(
        "--allow-files", help="Let the SQL read and write files on this machine (read_csv, COPY ... TO, EXPORT); "
                              "off by default: the SQL sees the index and nothing else.")] = False,
    timeout: Annotated[float | None, typer.Option(
        "--timeout", min=0.001, help="Stop the SQL after this many seconds (exit code 4).", show_default=False)] = None,
) -> None:
    """Run ad-hoc SQL on an index (read-only, sandboxed) and print the result."""
    from cqlindex.store.sandbox import run_rows

    def work():
        text = sql_text(query, file)
        values = sql_params(param or [])
        return run_rows(db, text, values, allow_files=allow_files, timeout=timeout)

    columns, rows = guard(work)
    if format is SqlFormat.csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)
    elif format is SqlFormat.json:
        typer.echo(json.dumps([dict(zip(columns, row)) for row in rows], default=str, indent=1))
    else:
        from rich.console import Console  # here: only the sql command's table needs them (start-up, issue 16)
        from rich.table import Table

        table = Table(*columns, show_lines=False)
        for row in rows:
            table.add_row(*("NULL" if v is None else str(v) for v in row))
        Console().print(table)
        stderr().print(f"{len(rows):,} rows", highlight=False)


@app.command()
def export(
    db: Annotated[Path, typer.Argument(help="A database written by cqlindex build.")],
    directory: Annotated[Path, typer.Argument(
        help="An empty or new directory: a folder of Parquet files per table (cut by game-number range), "
             "schema.sql and load.sql for DuckDB, spark.sql and trino.sql to register the tables.")],
    base_path: Annotated[str | None, typer.Option(
        "--base-path", help="Where the files will be read from in spark.sql and trino.sql (e.g. "
                            "s3://bucket/chess after copying the directory there); default: its absolute path.",
        show_default=False)] = None,
) -> None:
    """Write the index as Parquet for Spark, Trino or DuckDB anywhere (see query --engine spark, --explain --dialect)."""
    from cqlindex.store.database import connect
    from cqlindex.store.export import export_parquet

    def work() -> dict[str, int]:
        con = connect(db)
        try:
            return export_parquet(con, directory, base_path=base_path)
        finally:
            con.close()

    counts = guard(work)
    stderr().print(f"{directory}: " + ", ".join(f"{table} {rows:,} rows" for table, rows in counts.items()))


@app.command()
def filters(
    family: Annotated[str | None, typer.Option("--family", help="Only this family (position, sets, moves, ...).",
                                               show_default=False)] = None,
) -> None:
    """List every CQL filter, parameter and cql() word: supported or refused, how SQL treats it, what it does."""
    from cqlindex.errors import InputError
    from cqlindex.filters.catalogue import listing

    def work() -> str:
        try:
            return listing(family)
        except KeyError as error:
            raise InputError(error.args[0]) from None

    typer.echo(guard(work))


@app.command()
def serve(
    db: Annotated[list[Path], typer.Argument(help="One or more indexes written by cqlindex build.")],
    host: Annotated[str, typer.Option(
        "--host", help="The address to listen on; 127.0.0.1 (this machine only) unless told otherwise, "
                       "e.g. 0.0.0.0 for every network of this machine.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="The port (0: any free one).")] = 8765,
    workers: Annotated[int | None, typer.Option(
        "--workers", min=1, help="Query worker processes (default: 2 to 4, by cores).", show_default=False)] = None,
    timeout: Annotated[float, typer.Option(
        "--timeout", min=0.001, help="Stop any query after this many seconds.")] = 60.0,
) -> None:
    """Search indexes in the browser: a local web app and HTTP API, read-only (pip install 'cqlindex[serve]')."""
    from cqlindex.api import serve as run_serve

    guard(lambda: run_serve(db, host=host, port=port, workers=workers, timeout=timeout))


# Registered here, between filters and the end, so that --help lists the commands in this order.
app.command(cls=CqlStyleCommand, context_settings=CQL_CONTEXT)(query)


def main() -> None:
    """Entry point of the console script."""
    app()
