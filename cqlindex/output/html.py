"""Matching positions as a page a coach can read on screen or print.

Someone looking at a query's results wants to see the positions, not identifiers: which game
(players, result, event, where and when), which move led to each match, and the board as it
stood, with that move highlighted. They also need to find a position again, in the index or in
an engine, so each board keeps its positionid and FEN in the caption. The query heads the page,
since the results mean nothing without it.

The page is one HTML file that renders with no network and no scripts: the style is inline, and
each board is an inline SVG drawn by ``chess.svg``, so it can be mailed, archived, or printed
as it is. It is filled in from a Jinja2 template (``templates/results.html``) with autoescape on,
because PGN tags are free text written by whoever made the file: every string that came from a
game or from the query is escaped unless the code marks it safe, and only the boards chess.svg
drew are.

The page says where its games came from (the index and the PGN files) and when ``--limit`` cut
the result. A match in a variation says so under its board, with its depth when nested. A run
of consecutive matches (one position after another along a line: a king walk, a series of
checks) shows its first board and says how many more follow, to which move. A game with
hundreds of matches would still bury the others, so each game shows at most
``boards_per_game`` boards and says how many positions it left out; the other output formats
list them all.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from functools import cache
from typing import TextIO
from xml.dom import minidom

import chess
import chess.svg
import jinja2
from markupsafe import Markup

from cqlindex.output.records import line_label, move_label

#: Board size in pixels as drawn; the style lets the grid scale it.
_BOARD_SIZE = 260

_STYLE = """
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       margin: 2rem auto; max-width: 72rem; padding: 0 1.5rem; color: #1f2328; background: #fff;
       line-height: 1.45; }
header { border-bottom: 2px solid #d0d7de; margin-bottom: 1.5rem; padding-bottom: 1rem; }
h1 { font-size: 1.6rem; margin: 0 0 .5rem; }
h2 { font-size: 1.2rem; margin: 0; }
pre.query { background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 6px; padding: .6rem .8rem;
            margin: .5rem 0; white-space: pre-wrap; font-size: .95rem; }
p.summary { margin: .5rem 0 0; color: #57606a; }
section.game { margin: 0 0 2rem; }
.game-head { display: flex; flex-wrap: wrap; align-items: baseline; gap: .25rem 1rem;
             border-bottom: 1px solid #d0d7de; padding-bottom: .3rem; margin-bottom: .75rem; }
.number { color: #57606a; font-weight: normal; }
.result { font-weight: 600; font-size: .95rem; margin-left: .4rem; padding: 0 .4rem;
          border: 1px solid #d0d7de; border-radius: 4px; }
.meta { color: #57606a; font-size: .9rem; margin: 0; }
.boards { display: grid; grid-template-columns: repeat(auto-fill, minmax(14rem, 1fr)); gap: 1.25rem; }
figure.board { margin: 0; break-inside: avoid; }
figure.board svg { display: block; width: 100%; height: auto; }
figcaption { font-size: .9rem; margin-top: .3rem; }
figcaption .move { font-weight: 600; }
figcaption .id { color: #57606a; }
figcaption code { display: block; font-size: .75rem; color: #57606a; overflow-wrap: anywhere; }
p.more, p.empty, p.limit { color: #57606a; font-style: italic; }
p.source { margin: .5rem 0 0; color: #57606a; }
figure.variation svg { outline: 3px dashed #9a6700; outline-offset: -3px; }
figcaption .line { color: #9a6700; font-style: italic; }
figcaption .run { color: #57606a; }
@media print {
  body { margin: 0; max-width: none; }
  .boards { grid-template-columns: repeat(3, 1fr); }
  .game-head { break-after: avoid; }
}
"""

#: PGN's placeholders for an unknown tag value.
_UNKNOWN = re.compile(r"[?.\s-]*")
#: chess.svg's piece, gradient and marker definitions, and the coordinate letters it draws inline.
_DEFS = re.compile(r"<defs>(.*?)</defs>", re.DOTALL)
_GLYPH = re.compile(r'<path d="([^"]+)" />')


class _SharedDrawings:
    """What every board would repeat, drawn once for the page.

    chess.svg gives each board its own copy of the piece drawings (8 KB) and draws the 32
    coordinate letters inline (14 KB): three quarters of a board. Moved into one hidden SVG
    that every board refers to (``<use href="#...">`` works across the inline SVGs of a page),
    a board drops from about 28 KB to about 13 KB, which decides whether a page of a thousand
    boards opens at all. It also keeps element ids unique in the page, as HTML requires.
    """

    def __init__(self) -> None:
        self.definitions: dict[str, str] = {}
        self.glyphs: dict[str, str] = {}

    def board(self, svg: str) -> str:
        defs = _DEFS.search(svg)
        if defs:
            # the drawings nest <g> in <g>: read them as XML, not with a pattern
            for element in minidom.parseString(f"<defs>{defs.group(1)}</defs>").documentElement.childNodes:
                if element.nodeType == element.ELEMENT_NODE:
                    self.definitions.setdefault(element.getAttribute("id"), element.toxml())
            svg = svg[:defs.start()] + svg[defs.end():]
        return _GLYPH.sub(self._glyph, svg)

    def _glyph(self, match: re.Match) -> str:
        name = self.glyphs.setdefault(match.group(1), f"glyph-{len(self.glyphs)}")
        return f'<use href="#{name}" xlink:href="#{name}" />'

    def svg(self) -> str:
        glyphs = "".join(f'<path id="{name}" d="{d}" />' for d, name in self.glyphs.items())
        return ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="0" '
                'height="0" style="position:absolute" aria-hidden="true" focusable="false">'
                f'<defs>{"".join(self.definitions.values())}{glyphs}</defs></svg>\n')


@cache
def _template() -> jinja2.Template:
    environment = jinja2.Environment(loader=jinja2.PackageLoader("cqlindex.output", "templates"), autoescape=True,
                                     undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    return environment.get_template("results.html")


def _known(value: str | None) -> bool:
    return value is not None and not _UNKNOWN.fullmatch(value)


def _board_svg(record: dict, shared: _SharedDrawings) -> Markup:
    """The position as chess.svg draws it, last move and check marked, its common drawings shared."""
    board = chess.Board(record["fen"])
    lastmove = None
    if record["move_from"] and record["move_to"]:
        lastmove = chess.Move(chess.parse_square(record["move_from"]), chess.parse_square(record["move_to"]))
    check = board.king(board.turn) if board.is_check() else None
    # chess.svg draws from the FEN and the squares alone: no text of the game reaches it.
    return Markup(shared.board(chess.svg.board(board, lastmove=lastmove, check=check, size=_BOARD_SIZE)))


def _runs(game: list[dict]) -> list[list[dict]]:
    """The game's matches cut into runs: each next position the child of the one before (ids and
    plies both one further on; in positionid order a step to a variation goes back in ply)."""
    runs: list[list[dict]] = []
    for record in game:
        last = runs[-1][-1] if runs else None
        if (last is not None and record["positionid"] == last["positionid"] + 1
                and record.get("ply", 0) == last.get("ply", 0) + 1):
            runs[-1].append(record)
        else:
            runs.append([record])
    return runs


def _board(run: list[dict], shared: _SharedDrawings) -> dict:
    first = run[0]
    return {"positionid": first["positionid"], "fen": first["fen"], "svg": _board_svg(first, shared),
            "label": move_label(first) or "start position", "variation": line_label(first),
            "more": len(run) - 1, "last": move_label(run[-1])}


def _game(game: list[dict], shared: _SharedDrawings, boards_per_game: int | None) -> dict:
    first = game[0]
    runs = _runs(game)
    shown = runs if boards_per_game is None else runs[:boards_per_game]
    meta = [first[key] for key in ("event", "site", "date") if _known(first[key])]
    if _known(first["eco"]):
        meta.append(f'ECO {first["eco"]}')
    meta.append(f'{len(game)} matching position{"" if len(game) == 1 else "s"}')
    return {"number": first["gamenumber"], "white": first["white"] or "?", "black": first["black"] or "?",
            "result": first["result"], "meta": meta, "boards": [_board(run, shared) for run in shown],
            "hidden": len(game) - sum(len(run) for run in shown)}


def _games(records: Iterable[dict]) -> Iterable[list[dict]]:
    return (list(group) for _, group in itertools.groupby(records, key=lambda r: r["gamenumber"]))


def write_html(records: list[dict], out: TextIO, *, query: str, summary: str | None = None,
               boards_per_game: int | None = 12, database: str | None = None, sources: Sequence[str] = (),
               limit: int | None = None) -> int:
    """Write one HTML page of the matching positions, grouped by game; returns how many boards it drew.

    ``records`` are :func:`cqlindex.output.records.match_records`'s, in their order. A run of
    consecutive matches is one board; at most ``boards_per_game`` boards per game (``None``: all
    of them), and the page says how many positions it left out. ``database`` and ``sources`` name
    where the games came from; ``limit`` is the ``--limit`` that cut the result, if any.
    """
    shared = _SharedDrawings()
    games = [_game(game, shared, boards_per_game) for game in _games(records)]
    out.write(_template().render(
        title=" ".join(query.split()), style=Markup(_STYLE), query=query, summary=summary, database=database,
        sources=list(sources), limit=limit, games=games, drawings=Markup(shared.svg())))
    return sum(len(game["boards"]) for game in games)
