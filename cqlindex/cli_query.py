"""``cqlindex query``: the command that runs CQL, with the reference engine's options.

Kept apart from :mod:`cqlindex.cli` because its options are half of the command line. This
module declares them (typer reads the signature: the options, their types and the help); the
work is :func:`cqlindex.cli_execute.execute`, which the light entry point
(:mod:`cqlindex.launch`) also calls without loading typer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from typer.core import TyperCommand

from cqlindex.cli_execute import Engine
from cqlindex.cli_shell import stderr, version
from cqlindex.errors import CqlindexError, InputError
from cqlindex.output.formats import Format


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
    file: Annotated[list[Path] | None, typer.Option(
        "-f", "--file", help="Read the query from a .cql file; several -f files with --format count: one row "
                             "per file.", show_default=False)] = None,
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
        help="sql: SQL decides what it can, the columnar engine the rest; tree: SQL, then the tree-walking "
             "evaluator; python: the tree-walking evaluator (the reference) on every game; "
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
    params = dict(locals())  # every parameter, by name, as declared above
    from cqlindex.cli_execute import execute  # the work, shared with the light entry point (cqlindex.launch)

    execute(**params)
