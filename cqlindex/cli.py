"""The ``cqlindex`` command: a thin shell over the library.

Every command catches :class:`~cqlindex.errors.CqlindexError`, prints one line to stderr and
exits with the error's code, so input mistakes never show a traceback.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from cqlindex.errors import CqlError, CqlindexError

app = typer.Typer(
    name="cqlindex",
    help="Index every position of a PGN collection in DuckDB and search it with CQL.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
_T = TypeVar("_T")


class InfoFormat(str, Enum):
    text = "text"
    json = "json"


class Engine(str, Enum):
    sql = "sql"
    python = "python"


class SqlFormat(str, Enum):
    table = "table"
    csv = "csv"
    json = "json"


def _stderr() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True)


def _guard(fn: Callable[[], _T]) -> _T:
    """Run ``fn``; turn an input error into a message and an exit code."""
    try:
        return fn()
    except CqlError as error:
        _stderr().print(error.render(), markup=False)
        raise typer.Exit(error.exit_code) from None
    except CqlindexError as error:
        _stderr().print(f"[bold red]cqlindex:[/] {error}", markup=True)
        raise typer.Exit(error.exit_code) from None
    except KeyboardInterrupt:
        _stderr().print("cqlindex: interrupted")
        raise typer.Exit(130) from None


def _default_output(first: str) -> Path:
    name = Path(first).name
    for suffix in (".gz", ".bz2", ".zst", ".pgn", ".PGN"):
        name = name.removesuffix(suffix)
    return Path(name.replace("*", "all") or "games").with_suffix(".duckdb")


@app.command()
def build(
    pgn: Annotated[list[str], typer.Argument(help="PGN files or globs (.pgn, .pgn.gz, .pgn.bz2, .pgn.zst).")],
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Database to write (default: NAME.duckdb).")] = None,
    workers: Annotated[int | None, typer.Option(help="Parse processes (default: one per core).", min=1)] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar, only the summary.")] = False,
) -> None:
    """Replay every game and write every position of every line into a DuckDB index."""
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from cqlindex.ingest.pipeline import build as run_build

    target = output or _default_output(pgn[0])
    console = _stderr()
    show = not quiet and console.is_terminal

    def work():
        if not show:
            return run_build(pgn, target, workers=workers)
        with Progress(TextColumn("[bold]indexing"), BarColumn(), DownloadColumn(), TimeRemainingColumn(),
                      TextColumn("{task.fields[games]:,} games, {task.fields[positions]:,} positions"),
                      console=console, transient=True) as bar:
            task = bar.add_task("build", total=None, games=0, positions=0)

            def update(p):
                bar.update(task, total=p.bytes_total, completed=p.bytes_done, games=p.games, positions=p.positions)

            return run_build(pgn, target, workers=workers, on_progress=update)

    summary = _guard(work)
    for warning in summary.warnings:
        console.print(f"warning: {warning}", highlight=False)
    errors = f"{summary.errors:,} errors (see: cqlindex sql {target} 'FROM errors')" if summary.errors else "0 errors"
    console.print(
        f"{target}: {summary.games:,} games, {summary.positions:,} positions "
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

    data = _guard(work)
    if schema:
        if format is InfoFormat.json:
            typer.echo(json.dumps({"tables": data["tables"], "macros": data["macros"]}, indent=2))
            return
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
        typer.echo(json.dumps(data, indent=2))
        return
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
    query: Annotated[str, typer.Argument(help="SQL to run (read-only), e.g. \"SELECT count(*) FROM positions\".")],
    format: Annotated[SqlFormat, typer.Option("--format", "-f", help="table, csv or json.")] = SqlFormat.table,
) -> None:
    """Run ad-hoc SQL on an index (read-only) and print the result."""
    from cqlindex.store.database import connect, run_sql

    def work():
        con = connect(db)
        try:
            return run_sql(con, query)
        finally:
            con.close()

    columns, rows = _guard(work)
    if format is SqlFormat.csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)
    elif format is SqlFormat.json:
        typer.echo(json.dumps([dict(zip(columns, row)) for row in rows], default=str, indent=1))
    else:
        table = Table(*columns, show_lines=False)
        for row in rows:
            table.add_row(*("NULL" if v is None else str(v) for v in row))
        Console().print(table)
        _stderr().print(f"{len(rows):,} rows", highlight=False)


class QueryFormat(str, Enum):
    summary = "summary"
    pgn = "pgn"
    table = "table"
    json = "json"
    ndjson = "ndjson"
    csv = "csv"
    count = "count"


@app.command()
def query(
    db: Annotated[Path, typer.Argument(help="A database written by cqlindex build.")],
    cql: Annotated[str | None, typer.Argument(help="CQL filters, e.g. 'flip {Ka1 kh8}'.")] = None,
    file: Annotated[Path | None, typer.Option("-f", "--file", help="Read the query from a .cql file.")] = None,
    variations: Annotated[bool | None, typer.Option(
        "--variations/--mainline", help="Search variations too (CQL's default: the main line only).")] = None,
    engine: Annotated[Engine, typer.Option(
        help="sql: SQL decides what it can, Python the rest; python: the reference evaluator on every game.")
    ] = Engine.sql,
    explain: Annotated[bool, typer.Option(
        "--explain", help="Print the SQL and which filters SQL decides, instead of running the query.")] = False,
    format: Annotated[QueryFormat | None, typer.Option(
        "--format", help="summary (game numbers; the default), pgn (the matching games, matches marked with a "
                         "comment as CQL does; the default for -o FILE.pgn), table (one row per game), json, "
                         "ndjson or csv (one record per matching position: ids, ply, move, SAN, FEN, game tags), "
                         "count.")
    ] = None,
    matchstring: Annotated[str, typer.Option(
        "--matchstring", help="The comment that marks a matching position in PGN output.")] = "CQL",
    quiet: Annotated[bool, typer.Option(
        "--quiet", help="PGN output without the 'Game number N' comment.")] = False,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="At most this many matching games.")] = None,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write the result to this file.")] = None,
) -> None:
    """Find the positions that match a CQL query."""
    from cqlindex.errors import InputError
    from cqlindex.exec.run import plan_for, run
    from cqlindex.plan.planner import explain as explain_plan

    if (cql is None) == (file is None):
        _stderr().print("cqlindex: give a query or -f FILE.cql (one of them)")
        raise typer.Exit(2)

    def read() -> tuple[str, str]:
        if file is None:
            return cql, "<query>"
        try:
            return file.read_text(encoding="utf-8"), str(file)
        except OSError as error:
            raise InputError(f"{file}: cannot read ({error.strerror})") from None
        except UnicodeDecodeError as error:
            raise InputError(f"{file}: not UTF-8 text (byte {error.start}); save the query as UTF-8") from None

    if explain:
        def describe() -> str:
            text, source = read()
            return explain_plan(plan_for(db, text, variations=variations, source=source))

        typer.echo(_guard(describe))
        return

    def work():
        text, source = read()
        return run(db, text, variations=variations, source=source, engine=engine.value)

    result = _guard(work)
    # CQL's closing line ('N matches of M games'), counted before --limit cuts the output.
    summary = (f"{len(result.matches)} matches of {result.games_examined} games in {result.seconds:.2f} seconds "
               f"({result.positions} matching positions)")
    if limit:
        result.matches = dict(list(result.matches.items())[:limit])
    if format is None:
        format = QueryFormat.pgn if output is not None and output.suffix.lower() == ".pgn" else QueryFormat.summary
    _guard(lambda: _write_matches(db, result, format, output, matchstring, quiet))
    _stderr().print(summary, highlight=False)


def _write_matches(db: Path, result, format: QueryFormat, output: Path | None, matchstring: str,
                   quiet: bool) -> None:
    from cqlindex.errors import OutputError
    from cqlindex.output.records import FIELDS, game_rows, match_records
    from cqlindex.store.database import connect

    matches = result.matches
    if format in (QueryFormat.summary, QueryFormat.count, QueryFormat.pgn):
        records: list[dict] = []
    else:
        con = connect(db)
        try:
            records = match_records(con, matches)
        finally:
            con.close()
    try:
        handle = output.open("w", encoding="utf-8", newline="") if output else None
    except OSError as error:
        raise OutputError(f"{output}: cannot write ({error.strerror})") from None
    stream = handle or sys.stdout
    try:
        if format is QueryFormat.pgn:
            from cqlindex.output.pgn import write_pgn

            con = connect(db)
            try:
                written = write_pgn(con, result, stream, matchstring=matchstring, variations=result.variations,
                                    quiet=quiet)
            finally:
                con.close()
            if written.rebuilt:
                _stderr().print(f"cqlindex: {len(written.rebuilt)} games were rebuilt from the index (their PGN "
                                "source is missing or changed)")
        elif format is QueryFormat.summary:
            if matches:
                print(" ".join(str(g) for g in matches), file=stream)
        elif format is QueryFormat.count:
            print(f"{len(matches)} games {sum(len(ids) for ids in matches.values())} positions", file=stream)
        elif format is QueryFormat.ndjson:
            for record in records:
                print(json.dumps(record, ensure_ascii=False), file=stream)
        elif format is QueryFormat.json:
            json.dump(records, stream, ensure_ascii=False, indent=1)
            print(file=stream)
        elif format is QueryFormat.csv:
            writer = csv.DictWriter(stream, fieldnames=FIELDS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(records)
        else:
            table = Table("game", "white", "black", "result", "date", "first match", "positions")
            for game in game_rows(records):
                table.add_row(str(game["gamenumber"]), game["white"] or "", game["black"] or "", game["result"] or "",
                              game["date"] or "", game["first_match"], str(game["positions"]))
            Console(file=stream, highlight=False, width=None if handle is None else 200).print(table)
    finally:
        if handle:
            handle.close()
        sys.stdout.flush()  # before the summary line on stderr


def main() -> None:
    """Entry point of the console script."""
    app()
