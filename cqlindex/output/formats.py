"""One query result in the shape its reader wants: a person, a chess GUI, a browser or a script.

``cqlindex query --format`` and ``-o FILE`` land here. The game numbers (``summary``) and a
``count`` need nothing but the result; ``pgn`` re-reads the games (:mod:`cqlindex.output.pgn`);
the table, the HTML page and the per-position records (``json``, ``ndjson``, ``csv``) come from
:func:`cqlindex.output.records.match_table`, one Arrow table that DuckDB (JSON) and pyarrow (CSV)
serialise as it is. Every shape keeps the result's game order.

A file whose suffix names no format gets PGN, as CQL's ``-o`` always writes PGN: a CQL user
who types ``-o found.txt`` expects the games, not a list of numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from pathlib import Path
from typing import TextIO

from cqlindex.cql.frozen import Frozen, frozen


class Format(str, Enum):
    summary = "summary"
    table = "table"
    pgn = "pgn"
    html = "html"
    json = "json"
    ndjson = "ndjson"
    csv = "csv"
    count = "count"


#: The shapes written a batch of games at a time, as a streamed run finds them (:func:`write`).
STREAMED = frozenset({Format.pgn, Format.json, Format.ndjson, Format.csv})

#: The format a file name asks for.
SUFFIXES = {".pgn": Format.pgn, ".html": Format.html, ".htm": Format.html, ".json": Format.json,
            ".ndjson": Format.ndjson, ".jsonl": Format.ndjson, ".csv": Format.csv}


def default_format(output: Path | None, terminal: bool) -> Format:
    """Without --format: what the output file's suffix names (PGN for any other file, as CQL writes),
    else a table for a person, game numbers for a pipe."""
    if output is not None:
        return SUFFIXES.get(output.suffix.lower(), Format.pgn)
    return Format.table if terminal else Format.summary


@frozen
class Options(Frozen):
    """How the shapes that have a choice are drawn."""

    matchstring: str = "CQL"  # pgn: the comment at each matching position
    silent: bool = False      # pgn: add nothing to the games
    header: bool = True       # pgn: the "Game number N" comment (CQL's -noheader leaves it out)
    boards: int | None = 12   # html: boards per game
    summary: str | None = None  # html: the run's closing line, under the query
    database: str | None = None  # html: the index the result came from
    limit: int | None = None  # html: the --limit that cut the games shown
    width: int | None = None  # table: None fits the terminal


def write(con, result, fmt: Format, out: TextIO, options: Options = Options()) -> list[int]:
    """Write ``result`` (from the index behind ``con``) to ``out`` as ``fmt``; returns the games
    the PGN writer had to rebuild from the index because their source file was gone or changed.

    PGN, JSON, NDJSON and CSV are written a batch of games at a time, as a streamed run
    (:mod:`cqlindex.exec.streamed`) finds them; the other shapes take the whole result first."""
    if fmt is Format.pgn:
        from cqlindex.output.pgn_workers import write_pgn_games

        return write_pgn_games(con, result, out, matchstring=options.matchstring, variations=result.variations,
                               silent=options.silent, with_header=options.header).rebuilt
    if fmt in STREAMED:
        from cqlindex.output.stream import write_records  # pyarrow: only when needed

        write_records(con, result.pairs(), fmt.value, out)
        return []
    result.hold()
    matches = result.matches
    if fmt is Format.summary:
        if matches:
            print(" ".join(str(g) for g in matches), file=out)
        return []
    if fmt is Format.count:
        print(f"{len(matches)} games {result.positions} positions", file=out)
        return []
    from cqlindex.output.records import game_rows, match_table

    table = match_table(con, matches)
    if fmt is Format.html:
        from cqlindex.output.html import write_html

        write_html(table.to_pylist(), out, query=result.query.text, summary=options.summary,
                   boards_per_game=options.boards, database=options.database, sources=_sources(con, matches),
                   limit=options.limit)
    else:
        from rich.console import Console  # here: only the table needs rich (start-up)
        from rich.table import Table

        rich_table = Table("game", "white", "black", "result", "year", "first match", "positions")
        for game in game_rows(table.to_pylist()):
            counted = str(game["positions"]) + (f" ({game['in_variations']} in variations)"
                                                if game["in_variations"] else "")
            rich_table.add_row(str(game["gamenumber"]), game["white"] or "", game["black"] or "", game["result"] or "",
                               "" if game["year"] is None else str(game["year"]), game["first_match"], counted)
        Console(file=out, highlight=False, width=options.width).print(rich_table)
    return []


def _sources(con, matches: Mapping[int, list[int]]) -> list[str]:
    """The PGN files the matching games came from, as the index names them."""
    if not matches:
        return []
    return [row[0] for row in con.execute(
        "SELECT DISTINCT source_file FROM games WHERE gamenumber IN (SELECT unnest(?::INTEGER[])) ORDER BY 1",
        [list(matches)]).fetchall()]
