"""One query result in the shape its reader wants: a person, a chess GUI, a browser or a script.

``cqlindex query --format`` and ``-o FILE`` land here. The game numbers (``summary``) and a
``count`` need nothing but the result; ``pgn`` re-reads the games (:mod:`cqlindex.output.pgn`);
the table, the HTML page and the per-position records (``json``, ``ndjson``, ``csv``) come from
:func:`cqlindex.output.records.match_records`. Every shape keeps the result's game order.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TextIO

from rich.console import Console
from rich.table import Table


class Format(str, Enum):
    summary = "summary"
    table = "table"
    pgn = "pgn"
    html = "html"
    json = "json"
    ndjson = "ndjson"
    csv = "csv"
    count = "count"


#: The format a file name asks for.
SUFFIXES = {".pgn": Format.pgn, ".html": Format.html, ".htm": Format.html, ".json": Format.json,
            ".ndjson": Format.ndjson, ".jsonl": Format.ndjson, ".csv": Format.csv}


def default_format(output: Path | None, terminal: bool) -> Format:
    """Without --format: what the output file's suffix names, else a table for a person, game numbers for a pipe."""
    if output is not None:
        return SUFFIXES.get(output.suffix.lower(), Format.summary)
    return Format.table if terminal else Format.summary


@dataclass(frozen=True, slots=True)
class Options:
    """How the shapes that have a choice are drawn."""

    matchstring: str = "CQL"  # pgn: the comment at each matching position
    silent: bool = False      # pgn: add nothing to the games
    boards: int | None = 12   # html: boards per game
    summary: str | None = None  # html: the run's closing line, under the query
    width: int | None = None  # table: None fits the terminal


def write(con, result, fmt: Format, out: TextIO, options: Options = Options()) -> list[int]:
    """Write ``result`` (from the index behind ``con``) to ``out`` as ``fmt``; returns the games
    the PGN writer had to rebuild from the index because their source file was gone or changed."""
    matches = result.matches
    if fmt is Format.pgn:
        from cqlindex.output.pgn import write_pgn

        return write_pgn(con, result, out, matchstring=options.matchstring, variations=result.variations,
                         silent=options.silent).rebuilt
    if fmt is Format.summary:
        if matches:
            print(" ".join(str(g) for g in matches), file=out)
        return []
    if fmt is Format.count:
        print(f"{len(matches)} games {result.positions} positions", file=out)
        return []
    from cqlindex.output.records import FIELDS, game_rows, match_records  # pyarrow: only when needed

    records = match_records(con, matches)
    if fmt is Format.html:
        from cqlindex.output.html import write_html

        write_html(records, out, query=result.query.text, summary=options.summary, boards_per_game=options.boards)
    elif fmt is Format.ndjson:
        for record in records:
            print(json.dumps(record, ensure_ascii=False), file=out)
    elif fmt is Format.json:
        json.dump(records, out, ensure_ascii=False, indent=1)
        print(file=out)
    elif fmt is Format.csv:
        writer = csv.DictWriter(out, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(records)
    else:
        table = Table("game", "white", "black", "result", "year", "first match", "positions")
        for game in game_rows(records):
            table.add_row(str(game["gamenumber"]), game["white"] or "", game["black"] or "", game["result"] or "",
                          game["year"] or "", game["first_match"], str(game["positions"]))
        Console(file=out, highlight=False, width=options.width).print(table)
    return []
