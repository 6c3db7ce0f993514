"""The ``cqlindex`` command: a thin shell over the library.

Every command catches :class:`~cqlindex.errors.CqlindexError`, prints one line to stderr and
exits with the error's code, so input mistakes never show a traceback.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Callable
from dataclasses import replace
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from typer.core import TyperCommand

from cqlindex.cli_inputs import sql_params, sql_text, typed_build_value
from cqlindex.errors import CqlError, CqlindexError, DatabaseError, InputError
from cqlindex.output.formats import Format, Options, default_format

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
_T = TypeVar("_T")


class InfoFormat(str, Enum):
    text = "text"
    json = "json"


class Reader(str, Enum):
    auto = "auto"
    compiled = "compiled"
    python_chess = "python-chess"


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
        _stderr().print(f"[bold red]cqlindex:[/] {escape(str(error))}", markup=True)
        raise typer.Exit(error.exit_code) from None
    except KeyboardInterrupt:
        _stderr().print("cqlindex: interrupted")
        raise typer.Exit(130) from None
    except RecursionError:  # the limits of cql/limits.py are meant to make this unreachable
        from cqlindex.errors import TOO_DEEP

        _stderr().print(f"cqlindex: {TOO_DEEP}", highlight=False)
        raise typer.Exit(2) from None
    except Exception as error:
        from cqlindex.exec.timeout import interrupted

        if not interrupted(error):
            raise
        _stderr().print("cqlindex: interrupted")  # Ctrl-C while DuckDB ran a statement
        raise typer.Exit(130) from None


def _version(value: bool) -> None:
    if value:
        from cqlindex import __version__

        typer.echo(f"cqlindex {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print cqlindex's version and stop.")] = False,
) -> None:
    """Options of cqlindex itself, before the command."""


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
    reader: Annotated[Reader, typer.Option(
        help="compiled: main-line games by the compiled reader, the rest by python-chess; python-chess: "
             "every game by python-chess; auto: compiled when its wheel is installed.")] = Reader.auto,
    wait: Annotated[bool, typer.Option(
        "--wait", help="If another build is writing the same index, wait for it (else exit with code 75).")] = False,
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

    def say(message: str) -> None:
        console.print(message, highlight=False, markup=False)

    def work():
        from cqlindex.api import absolute_inputs

        inputs = absolute_inputs(pgn)  # the index names its sources so that any directory finds them
        if not show:
            return run_build(inputs, target, workers=workers, reader=reader.value, wait=wait, on_wait=say)
        with Progress(TextColumn("[bold]indexing"), BarColumn(), DownloadColumn(), TimeRemainingColumn(),
                      TextColumn("{task.fields[games]:,} games, {task.fields[positions]:,} positions"),
                      console=console, transient=True) as bar:
            task = bar.add_task("build", total=None, games=0, positions=0)

            def update(p):
                bar.update(task, total=p.bytes_total, completed=p.bytes_done, games=p.games, positions=p.positions)

            return run_build(inputs, target, workers=workers, reader=reader.value, on_progress=update, wait=wait,
                             on_wait=say)

    summary = _guard(work)
    for rejected in summary.rejected:
        console.print(f"[bold red]error:[/] {escape(rejected)}", highlight=False)
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
        build = {key: typed_build_value(key, value) for key, value in data["build"].items()}
        typer.echo(json.dumps({**data, "build": build}, indent=2))
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


@app.command()
def export(
    db: Annotated[Path, typer.Argument(help="A database written by cqlindex build.")],
    directory: Annotated[Path, typer.Argument(
        help="An empty or new directory: one Parquet file per table, schema.sql and load.sql.")],
) -> None:
    """Write the index as Parquet, for Spark, Trino or any engine that reads it (see query --explain --dialect)."""
    from cqlindex.store.database import connect
    from cqlindex.store.export import export_parquet

    def work() -> dict[str, int]:
        con = connect(db)
        try:
            return export_parquet(con, directory)
        finally:
            con.close()

    counts = _guard(work)
    _stderr().print(f"{directory}: " + ", ".join(f"{table} {rows:,} rows" for table, rows in counts.items()))


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

    typer.echo(_guard(work))


class CqlStyleCommand(TyperCommand):
    """``cqlindex query``: takes the reference CQL engine's options too (see :mod:`cqlindex.cql_options`).

    Every option is declared with its one-dash CQL spelling; this class only refuses, by name,
    the CQL options cqlindex does not take, and joins ``-gamenumber A B`` into ``A-B``.
    """

    def parse_args(self, ctx, args: list[str]) -> list[str]:
        from cqlindex.cql_options import join_ranges, refusal

        valued = [opt for p in self.params if getattr(p, "param_type_name", "") == "option"
                  and not getattr(p, "is_flag", False) for opt in p.opts]
        try:
            message = refusal(args, valued)
            if message:
                raise InputError(message)
            args = join_ranges(args)
        except CqlindexError as error:
            _stderr().print(f"cqlindex: {error}", highlight=False)
            raise typer.Exit(error.exit_code) from None
        return super().parse_args(ctx, args)


#: Click's settings for the query command: CQL's -h/-help, and option names in any case, as CQLi reads them.
_CQL_CONTEXT = {"help_option_names": ["-h", "-help", "--help"], "token_normalize_func": str.lower}


@app.command(cls=CqlStyleCommand, context_settings=_CQL_CONTEXT)
def query(
    db: Annotated[Path | None, typer.Argument(
        help="The index (cqlindex build), or a PGN file whose index was built beside it or here.",
        show_default=False)] = None,
    cql: Annotated[str | None, typer.Argument(
        help="CQL filters, e.g. 'flip {Ka1 kh8}', or a .cql file.", show_default=False)] = None,
    input: Annotated[Path | None, typer.Option(
        "-i", "-input", "--input", help="The index or PGN file, as CQL's -i (then the only argument is the query).",
        show_default=False)] = None,
    file: Annotated[Path | None, typer.Option("-f", "--file", help="Read the query from a .cql file.")] = None,
    append: Annotated[list[str] | None, typer.Option(
        "-cql", "--cql", help="Filters appended to the query's body; may be repeated.", show_default=False)] = None,
    fen: Annotated[str | None, typer.Option(
        "-fen", "--fen", help="Only positions with this board (a FEN's first field; the rest is ignored).",
        show_default=False)] = None,
    flipcolor: Annotated[bool, typer.Option("-flipcolor", "--flipcolor", help="Wrap the body in flipcolor { }.")
                         ] = False,
    reversecolor: Annotated[bool, typer.Option(
        "-reversecolor", "--reversecolor", help="Wrap the body in reversecolor { } (colours swapped, not both).")
    ] = False,
    flip: Annotated[bool, typer.Option("-flip", "--flip", help="Wrap the body in flip { }.")] = False,
    shift: Annotated[bool, typer.Option("-shift", "--shift", help="Wrap the body in shift { }.")] = False,
    variations: Annotated[bool | None, typer.Option(
        "-variations/-mainline", "--variations/--mainline",
        help="Search variations too (CQL's default: the main line only).", show_default=False)] = None,
    gamenumber: Annotated[str | None, typer.Option(
        "-g", "-gamenumber", "--gamenumber", help="Only games A to B: -gamenumber A [B] (or A-B).",
        show_default=False)] = None,
    matchcount: Annotated[str | None, typer.Option(
        "-matchcount", "--matchcount", help="A game matches when its number of matching positions is at least A, or "
                                            "between A and B: -matchcount A [B].", show_default=False)] = None,
    player: Annotated[str | None, typer.Option(
        "-player", "--player", help="Only games where White or Black contains this name.", show_default=False)
    ] = None,
    white: Annotated[str | None, typer.Option(
        "-white", "--white", help="Only games where White contains this name.", show_default=False)] = None,
    black: Annotated[str | None, typer.Option(
        "-black", "--black", help="Only games where Black contains this name.", show_default=False)] = None,
    event: Annotated[str | None, typer.Option(
        "-event", "--event", help="Only games whose Event contains this text.", show_default=False)] = None,
    site: Annotated[str | None, typer.Option(
        "-site", "--site", help="Only games whose Site contains this text.", show_default=False)] = None,
    year: Annotated[str | None, typer.Option(
        "-year", "--year", help="Only games of year A, or A to B: -year A [B].", show_default=False)] = None,
    result_tag: Annotated[str | None, typer.Option(
        "-result", "--result", help="Only games with this result: 1-0, 0-1 or 1/2-1/2.", show_default=False)
    ] = None,
    engine: Annotated[Engine, typer.Option(
        help="sql: SQL decides what it can, Python the rest; python: the reference evaluator on every game.")
    ] = Engine.sql,
    explain: Annotated[bool, typer.Option(
        "--explain", help="Print the SQL and which filters SQL decides, instead of running the query.")] = False,
    dialect: Annotated[str, typer.Option(
        "--dialect", help="With --explain: the SQL for this engine (any sqlglot dialect: spark, trino, bigquery, "
                          "...), to run on the tables cqlindex export writes.")] = "duckdb",
    format: Annotated[Format | None, typer.Option(
        "--format", help="table (one row per game; the default on a terminal), summary (the game numbers), pgn "
                         "(the matching games, matches marked with a comment as CQL does), html (a page of "
                         "board diagrams), json, ndjson or csv (one record per matching position: ids, ply, move, "
                         "SAN, FEN, game tags), count. With -o, the file's suffix chooses (.html, .json, .ndjson, "
                         ".csv; PGN for any other, as CQL writes).", show_default=False)
    ] = None,
    matchstring: Annotated[str | None, typer.Option(
        "-matchstring", "--matchstring", help="The comment that marks a matching position in PGN output (default: "
                                              "the query's matchstring, else CQL).", show_default=False)] = None,
    silent: Annotated[bool, typer.Option(
        "-silent", "--silent", help="PGN output adds nothing to the games: no header, match string or comments.")
    ] = False,
    noheader: Annotated[bool, typer.Option(
        "-noheader", "--noheader", help="PGN output leaves out the 'Game number N' header comment.")] = False,
    quiet: Annotated[bool, typer.Option(
        "-q", "-quiet", "--quiet", help="CQL's quiet: no generated comments but the header and the match string "
                                        "(cqlindex generates no others); the closing line is left out too.")] = False,
    showmatches: Annotated[bool, typer.Option(
        "-showmatches", "--showmatches", help="Print <N> for each matching game, as CQL does.")] = False,
    nosettag: Annotated[bool, typer.Option(
        "-nosettag", "--nosettag", "-noremovecomment", "--noremovecomment",
        help="Accepted for CQL's sake: cqlindex never sets tags or removes comments.")] = False,
    limit: Annotated[int | None, typer.Option(
        "-limit", "--limit", min=1, help="At most this many matching games.")] = None,
    unplayable: Annotated[bool, typer.Option(
        "--include-unplayable", help="Search the games the build marked unplayable too (unsupported variants, "
        "text that is not a game; see the errors table).")] = False,
    boards: Annotated[int, typer.Option(
        "--boards", min=1, help="HTML output: at most this many boards per game.")] = 12,
    output: Annotated[Path | None, typer.Option(
        "-o", "-output", "--output", help="Write the result to this file (the query's output parameter otherwise).",
        show_default=False)] = None,
    version: Annotated[bool, typer.Option(
        "-version", "--version", callback=_version, is_eager=True, help="Print cqlindex's version and stop.")
    ] = False,
    timeout: Annotated[float | None, typer.Option(
        "--timeout", min=0.001, help="Stop the query after this many seconds (exit code 4).", show_default=False)
    ] = None,
) -> None:
    """Find the positions that match a CQL query.

    Takes the reference CQL engine's options, one dash or two, in any case: -i, -o, -cql, -fen,
    -flip, -flipcolor, -reversecolor, -shift, -gamenumber A [B], -matchcount A [B], -matchstring,
    -mainline, -variations, -player, -white, -black, -event, -site, -year A [B], -result, -quiet,
    -silent, -noheader, -showmatches, -version. The others (-threads, -html, -parse, ...) are
    refused with what to do instead.
    """
    from cqlindex.cql_options import compose, fen_filter, game_filters, parse_range
    from cqlindex.exec.run import plan_for, run
    from cqlindex.plan.planner import explain as explain_plan

    if input is not None:
        if cql is not None:
            _stderr().print("cqlindex: with -i DB give only the query (or -f FILE.cql)")
            raise typer.Exit(2)
        db, cql = input, None if db is None else str(db)
    if cql is None and file is None and db is not None and db.suffix.lower() == ".cql" and db.is_file():
        db, file = None, db  # 'cqlindex query query.cql': the index comes from its cql(input ...)
    if cql is not None and file is None and cql.endswith(".cql") and Path(cql).is_file():
        cql, file = None, Path(cql)  # CQL's habit: the query is a file
    if cql is not None and file is not None:
        _stderr().print("cqlindex: give a query or -f FILE.cql, not both")
        raise typer.Exit(2)
    restricted = any(v is not None for v in (player, white, black, event, site, year, result_tag))
    if cql is None and file is None and not append and fen is None and not restricted:
        _stderr().print("cqlindex: give a query, -f FILE.cql, -cql FILTERS or -fen FEN")
        raise typer.Exit(2)
    wrap = [name for name, on in (("flipcolor", flipcolor), ("reversecolor", reversecolor), ("flip", flip),
                                  ("shift", shift)) if on]

    def prepare() -> tuple[Path, str, str, tuple | None, tuple | None]:
        from cqlindex.cql.parser import parse

        if file is not None:
            text, source = _read_query(file), str(file)
        else:
            text, source = cql or "", "<query>"
        named = db
        if named is None:
            named = Path(parse(text, source).header.input or "") if text.strip() else None
            if not named or not named.name:
                raise InputError("which index? cqlindex query DB QUERY, -i DB, or cql(input FILE) in the query")
        index = _find_index(named)
        extra = [*(append or ()), *([fen_filter(fen)] if fen is not None else [])]
        restrictions = game_filters(player=player, white=white, black=black, event=event, site=site, year=year,
                                    result=result_tag)
        text = compose(text, source, append=extra, wrap=wrap, games=restrictions)
        if not text.strip():
            text = "true"  # only game restrictions: every position of the games that pass them, as CQL does
        games = parse_range(gamenumber, "-gamenumber", open_ended=False) if gamenumber else None
        count = parse_range(matchcount, "-matchcount", open_ended=True) if matchcount else None
        return index, text, source, games, count

    index, text, source, games, count = _guard(prepare)
    if explain:
        typer.echo(_guard(lambda: explain_plan(plan_for(index, text, variations=variations, source=source,
                                                          gamenumbers=games, include_unplayable=unplayable),
                                               dialect=dialect)))
        return
    result = _guard(lambda: run(index, text, variations=variations, source=source, gamenumbers=games,
                                matchcount=count, engine=engine.value, timeout=timeout,
                                include_unplayable=unplayable))
    header = result.query.header
    # CQL's closing line ('N matches of M games'), counted before --limit cuts the output.
    summary = (f"{len(result.matches)} matches of {result.games_examined} games in {result.seconds:.2f} seconds "
               f"({result.positions} matching positions)")
    cut = limit if limit and len(result.matches) > limit else None
    if cut:
        result.matches = dict(list(result.matches.items())[:cut])
    if output is None and header.output:
        output = Path(header.output)
    # -showmatches into a pipe or terminal: its <N> lines are the game list, printed once.
    shown_only = showmatches and output is None and format is None
    if format is None:
        format = default_format(output, _terminal())
    # What CQL prints (messages, the closing line) goes to stdout when the result goes to a
    # file, as CQL prints it and tools read it there, else to stderr beside the data.
    say = Console(highlight=False, soft_wrap=True) if output is not None else _stderr()
    for message in result.messages:
        say.print(message, markup=False)
    if showmatches:
        for number in result.matches:
            typer.echo(f"<{number}>")
    options = Options(matchstring=matchstring or header.matchstring or "CQL", silent=silent or header.silent,
                      header=not noheader, boards=boards, summary=summary, database=str(index), limit=cut)
    if not shown_only:
        _guard(lambda: _write_matches(index, result, format, output, options))
    if not quiet:
        say.print(summary, markup=False)


def _terminal() -> bool:
    """Whether a person reads standard output (a table for them; game numbers for a pipe)."""
    return sys.stdout.isatty()


def _read_query(file: Path) -> str:
    try:
        return file.read_text(encoding="utf-8")
    except OSError as error:
        raise InputError(f"{file}: cannot read ({error.strerror})") from None
    except UnicodeDecodeError as error:
        raise InputError(f"{file}: not UTF-8 text (byte {error.start}); save the query as UTF-8") from None


_PGN_SUFFIXES = (".pgn", ".pgn.gz", ".pgn.bz2", ".pgn.zst")


def _find_index(db: Path) -> Path:
    """``db`` itself, or for a PGN file the index ``cqlindex build`` writes for it (here or beside it).

    No index is exit code 3 whichever way it was named (a missing .duckdb, or a PGN file never built).
    """
    if not db.name.lower().endswith(_PGN_SUFFIXES):
        return db
    name = _default_output(str(db))
    for candidate in (name, db.parent / name):
        if candidate.is_file():
            return candidate
    raise DatabaseError(f"{db} is a PGN file and has no index yet; build one with: cqlindex build {db} "
                     f"(it writes {name})")


def _write_matches(db: Path, result, fmt: Format, output: Path | None, options: Options) -> None:
    from cqlindex.errors import OutputError
    from cqlindex.output.formats import write
    from cqlindex.store.database import connect

    con = connect(db)
    try:
        try:
            handle = output.open("w", encoding="utf-8", newline="") if output else None
        except OSError as error:
            raise OutputError(f"{output}: cannot write ({error.strerror})") from None
        try:
            rebuilt = write(con, result, fmt, handle or sys.stdout, replace(options, width=200) if handle else options)
        except BaseException:  # Ctrl-C or an error halfway: no half-written file is left behind
            if handle:
                handle.close()
                output.unlink(missing_ok=True)
            raise
        finally:
            if handle:
                handle.close()
            sys.stdout.flush()  # before the summary line on stderr
    finally:
        con.close()
    if rebuilt:
        _stderr().print(f"cqlindex: {len(rebuilt)} games were rebuilt from the index (their PGN source is missing "
                        "or changed)")


def main() -> None:
    """Entry point of the console script."""
    app()
