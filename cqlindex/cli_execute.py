"""The work of ``cqlindex query`` (declared in :mod:`cqlindex.cli_query`), without typer.

The light entry point (:mod:`cqlindex.launch`) calls :func:`execute` straight from the command
line it has read, and typer's command calls it with what typer has read: one body for both, so
the two cannot behave apart. Nothing here imports typer, click or pydantic (issue 16: start-up).
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from enum import Enum
from functools import partial
from itertools import islice
from pathlib import Path

from cqlindex.cli_shell import default_output, echo, guard, stderr
from cqlindex.errors import DatabaseError, InputError
from cqlindex.output.formats import STREAMED, Format, Options, default_format


class Engine(str, Enum):
    sql = "sql"
    tree = "tree"
    python = "python"
    spark = "spark"


def execute(*, db, cql, input, file, append, fen, flipcolor, reversecolor, flip, shift, variations, gamenumber, matchcount, player, white, black, event, site, year, result_tag, engine, spark_master, explain, dialect, format, matchstring, silent, noheader, quiet, showmatches, nosettag, limit, unplayable, boards, output, version, timeout) -> None:
    """Run ``cqlindex query`` with its parameters as :func:`cqlindex.cli_query.query` declares them."""
    from cqlindex.cql_options import compose, fen_filter, game_filters, parse_range

    if input is not None:
        if cql is not None:
            stderr().print("cqlindex: with -i DB give only the query (or -f FILE.cql)")
            raise SystemExit(2)
        db, cql = input, None if db is None else str(db)
    files = list(file or ())  # -f may be given more than once: one count per file
    file = files[0] if len(files) == 1 else None
    if len(files) > 1 and cql is not None:
        stderr().print("cqlindex: give a query or -f FILE.cql, not both")
        raise SystemExit(2)
    if cql is None and file is None and not files and db is not None and db.suffix.lower() == ".cql" and db.is_file():
        db, file = None, db  # 'cqlindex query query.cql': the index comes from its cql(input ...)
    if cql is not None and file is None and cql.endswith(".cql") and Path(cql).is_file():
        cql, file = None, Path(cql)  # CQL's habit: the query is a file
    if cql is not None and file is not None:
        stderr().print("cqlindex: give a query or -f FILE.cql, not both")
        raise SystemExit(2)
    restricted = any(v is not None for v in (player, white, black, event, site, year, result_tag))
    if cql is None and file is None and len(files) < 2 and not append and fen is None and not restricted:
        stderr().print("cqlindex: give a query, -f FILE.cql, -cql FILTERS or -fen FEN")
        raise SystemExit(2)
    wrap = [name for name, on in (("flipcolor", flipcolor), ("reversecolor", reversecolor), ("flip", flip),
                                  ("shift", shift)) if on]

    def prepare(file: Path | None = file) -> tuple[Path, str, str, tuple | None, tuple | None]:
        if file is not None:
            text, source = _read_query(file), str(file)
        else:
            text, source = cql or "", "<query>"
        named = db
        if named is None:
            from cqlindex.cql.parser import parse  # here: a query run from a kept plan is not parsed

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

    if len(files) > 1:
        from cqlindex.exec.run import run

        if format is not Format.count or explain or output is not None or engine is Engine.spark or showmatches:
            stderr().print("cqlindex: several -f files run only with --format count (one row per file)")
            raise SystemExit(2)
        _count_each(files, prepare, partial(run, variations=variations, engine=engine.value, timeout=timeout,
                                            include_unplayable=unplayable, allow_files=True), quiet)
        return
    index, text, source, games, count = guard(prepare)
    on_spark = engine is Engine.spark
    if explain:
        from cqlindex.exec.run import plan_for

        planner = partial(plan_for, portable=dialect != "duckdb")  # another engine has no rowids
        if on_spark:
            from cqlindex.exec.spark import plan_exported as planner
        echo(guard(lambda: _explained(planner(index, text, variations=variations, source=source,
                                                      gamenumbers=games, include_unplayable=unplayable),
                                              dialect, format)))
        return
    if on_spark:
        if timeout is not None:
            stderr().print("cqlindex: --timeout is not supported with --engine spark (Spark has its own job limits)")
            raise SystemExit(2)
        from cqlindex.exec.spark import run_spark

        result = guard(lambda: run_spark(index, text, variations=variations, source=source, gamenumbers=games,
                                          matchcount=count, include_unplayable=unplayable, master=spark_master))
    elif engine is Engine.sql and not showmatches and not limit:
        # For output that streams the matches come a range of games at a time, written as they
        # come (issue 16); the other shapes, and a query that names its own output file, hold
        # them, as run() does. A plan kept from an earlier run of the same query is run without
        # parsing or planning (issue 34).
        from cqlindex.exec.cached import run_query

        held = (format or (default_format(output, False) if output else None)) not in STREAMED
        result = guard(lambda: run_query(index, text, variations=variations, source=source, gamenumbers=games,
                                         matchcount=count, timeout=timeout, include_unplayable=unplayable,
                                         allow_files=True, held=held))
    else:
        from cqlindex.exec.run import run

        result = guard(lambda: run(index, text, variations=variations, source=source, gamenumbers=games,
                                    matchcount=count, engine=engine.value, timeout=timeout,
                                    include_unplayable=unplayable, allow_files=True))  # files, as CQL's command line
    header = result.query.header
    if output is None and header.output:
        output = Path(header.output)
    # -showmatches into a pipe or terminal: its <N> lines are the game list, printed once.
    shown_only = showmatches and output is None and format is None
    if format is None:
        format = default_format(output, _terminal())
    if format not in STREAMED or shown_only:
        guard(result.hold)
    # CQL's closing line ('N matches of M games'), counted before --limit cuts the output.
    summary = _closing_line(result)
    cut = limit if limit and len(result.matches) > limit else None
    if cut:
        result.matches = dict(islice(result.matches.items(), cut))
    # What CQL prints (messages, the closing line) goes to stdout when the result goes to a
    # file, as CQL prints it and tools read it there, else to stderr beside the data.
    if result.messages:
        from rich.console import Console  # here: rich costs start-up, and only messages need it

        say = Console(highlight=False, soft_wrap=True) if output is not None else stderr()
        for message in result.messages:
            say.print(message, markup=False)
    if showmatches:
        for number in result.matches:
            echo(f"<{number}>")
    options = Options(matchstring=matchstring or header.matchstring or "CQL", silent=silent or header.silent,
                      header=not noheader, boards=boards, summary=summary, database=str(index), limit=cut)
    if not shown_only:
        guard(lambda: _write_matches(index, result, format, output, options, exported=on_spark))
        summary = _closing_line(result) if cut is None else summary  # a streamed run is counted as written
    if not quiet:
        _say(summary, output is not None)


def _count_each(files: list[Path], prepare, run, quiet: bool) -> None:
    """``-f a.cql -f b.cql --format count``: each file run with the same options, one row per file
    (``FILE: N games M positions``), as people classify a collection, one file per theme. A file
    that fails is said on stderr and its row says ``error``; the others still run, and the exit
    code is the worst error's."""
    from cqlindex.errors import CqlError, CqlindexError

    status = 0
    started = time.perf_counter()
    for file in files:
        try:
            index, text, source, games, count = prepare(file)
            result = run(index, text, source=source, gamenumbers=games, matchcount=count)
        except CqlError as error:
            stderr().print(error.render(), markup=False, highlight=False)
            echo(f"{file}: error")
            status = max(status, error.exit_code)
            continue
        except CqlindexError as error:
            stderr().print(f"cqlindex: {error}", markup=False, highlight=False)
            echo(f"{file}: error")
            status = max(status, error.exit_code)
            continue
        echo(f"{file}: {len(result.matches)} games {result.positions} positions")
    if not quiet:
        _say(f"{len(files)} query files in {time.perf_counter() - started:.2f} seconds", False)
    if status:
        raise SystemExit(status)


def _say(line: str, to_stdout: bool) -> None:
    """Print a line of plain text (no markup, no ``:emoji:`` codes) as rich's console prints it."""
    stream = sys.stdout if to_stdout else sys.stderr
    stream.write(f"{line}\n")
    stream.flush()


def _closing_line(result) -> str:
    return (f"{result.matching_games} matches of {result.games_examined} games in {result.seconds:.2f} seconds "
            f"({result.positions} matching positions)")


def _explained(plan, dialect: str, format: Format | None) -> str:
    """``--explain``: SQL that runs as it is (the explanation in comments), or JSON for programs."""
    from cqlindex.exec.run import postfilter
    from cqlindex.plan.planner import explain, explain_data

    if format is Format.json:
        import json  # here: a query's run does without it

        return json.dumps(explain_data(plan, dialect, postfilter(plan)), indent=2)
    if format is not None:
        raise InputError("with --explain, --format is json (or left out for the SQL script)")
    return explain(plan, dialect, postfilter(plan))


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

    con = None  # the game numbers and the counts need nothing from the index (start-up: no second open)
    if fmt not in (Format.summary, Format.count):
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
        if con is not None:
            con.close()
    if rebuilt:
        stderr().print(f"cqlindex: {len(rebuilt)} games were rebuilt from the index (their PGN source is missing "
                        "or changed)")
