"""``cqlindex query``: the command that runs CQL, with the reference engine's options.

Kept apart from :mod:`cqlindex.cli` because its options are half of the command line; the
work itself is :func:`cqlindex.exec.run.run` (or the Spark engine) and :mod:`cqlindex.output`.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from typer.core import TyperCommand

from cqlindex.cli_shell import default_output, guard, stderr, version
from cqlindex.errors import CqlindexError, DatabaseError, InputError
from cqlindex.output.formats import Format, Options, default_format


class Engine(str, Enum):
    sql = "sql"
    python = "python"
    spark = "spark"



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
            stderr().print(f"cqlindex: {error}", highlight=False)
            raise typer.Exit(error.exit_code) from None
        return super().parse_args(ctx, args)


#: Click's settings for the query command: CQL's -h/-help, and option names in any case, as CQLi reads them.
CQL_CONTEXT = {"help_option_names": ["-h", "-help", "--help"], "token_normalize_func": str.lower}


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
        help="sql: SQL decides what it can, Python the rest; python: the reference evaluator on every game; "
             "spark: the sql engine's plan on Spark over a directory written by cqlindex export (given in place "
             "of the index), the rest by the evaluator on Spark's executors (pip install 'cqlindex[spark]').")
    ] = Engine.sql,
    spark_master: Annotated[str, typer.Option(
        "--spark-master", help="With --engine spark: the Spark master URL (local[N], spark://HOST:PORT, yarn, ...).")
    ] = "local[*]",
    explain: Annotated[bool, typer.Option(
        "--explain", help="Print the SQL and which filters SQL decides, instead of running the query: a script "
                           "that runs as it is (the explanation in -- comments), or JSON with --format json.")] = False,
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
        "-version", "--version", callback=version, is_eager=True, help="Print cqlindex's version and stop.")
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

    if input is not None:
        if cql is not None:
            stderr().print("cqlindex: with -i DB give only the query (or -f FILE.cql)")
            raise typer.Exit(2)
        db, cql = input, None if db is None else str(db)
    if cql is None and file is None and db is not None and db.suffix.lower() == ".cql" and db.is_file():
        db, file = None, db  # 'cqlindex query query.cql': the index comes from its cql(input ...)
    if cql is not None and file is None and cql.endswith(".cql") and Path(cql).is_file():
        cql, file = None, Path(cql)  # CQL's habit: the query is a file
    if cql is not None and file is not None:
        stderr().print("cqlindex: give a query or -f FILE.cql, not both")
        raise typer.Exit(2)
    restricted = any(v is not None for v in (player, white, black, event, site, year, result_tag))
    if cql is None and file is None and not append and fen is None and not restricted:
        stderr().print("cqlindex: give a query, -f FILE.cql, -cql FILTERS or -fen FEN")
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

    index, text, source, games, count = guard(prepare)
    on_spark = engine is Engine.spark
    if explain:
        planner = plan_for
        if on_spark:
            from cqlindex.exec.spark import plan_exported as planner
        typer.echo(guard(lambda: _explained(planner(index, text, variations=variations, source=source,
                                                      gamenumbers=games, include_unplayable=unplayable),
                                              dialect, format)))
        return
    if on_spark:
        if timeout is not None:
            stderr().print("cqlindex: --timeout is not supported with --engine spark (Spark has its own job limits)")
            raise typer.Exit(2)
        from cqlindex.exec.spark import run_spark

        result = guard(lambda: run_spark(index, text, variations=variations, source=source, gamenumbers=games,
                                          matchcount=count, include_unplayable=unplayable, master=spark_master))
    else:
        result = guard(lambda: run(index, text, variations=variations, source=source, gamenumbers=games,
                                    matchcount=count, engine=engine.value, timeout=timeout,
                                    include_unplayable=unplayable, allow_files=True))  # files, as CQL's command line
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
    say = Console(highlight=False, soft_wrap=True) if output is not None else stderr()
    for message in result.messages:
        say.print(message, markup=False)
    if showmatches:
        for number in result.matches:
            typer.echo(f"<{number}>")
    options = Options(matchstring=matchstring or header.matchstring or "CQL", silent=silent or header.silent,
                      header=not noheader, boards=boards, summary=summary, database=str(index), limit=cut)
    if not shown_only:
        guard(lambda: _write_matches(index, result, format, output, options, exported=on_spark))
    if not quiet:
        say.print(summary, markup=False)


def _explained(plan, dialect: str, format: Format | None) -> str:
    """``--explain``: SQL that runs as it is (the explanation in comments), or JSON for programs."""
    from cqlindex.plan.planner import explain, explain_data

    if format is Format.json:
        return json.dumps(explain_data(plan, dialect), indent=2)
    if format is not None:
        raise InputError("with --explain, --format is json (or left out for the SQL script)")
    return explain(plan, dialect)


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
    name = default_output(str(db))
    for candidate in (name, db.parent / name):
        if candidate.is_file():
            return candidate
    raise DatabaseError(f"{db} is a PGN file and has no index yet; build one with: cqlindex build {db} "
                     f"(it writes {name})")


def _write_matches(db: Path, result, fmt: Format, output: Path | None, options: Options, *,
                   exported: bool = False) -> None:
    from cqlindex.errors import OutputError
    from cqlindex.output.formats import write
    from cqlindex.store.database import connect
    from cqlindex.store.exported import open_exported

    con = open_exported(db) if exported else connect(db)
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
        stderr().print(f"cqlindex: {len(rebuilt)} games were rebuilt from the index (their PGN source is missing "
                        "or changed)")
