"""Matching positions as a page a coach can read on screen or print.

Someone looking at a query's results wants to see the positions, not identifiers: which game
(players, result, event, where and when), which move led to each match, and the board as it
stood, with that move highlighted. They also need to find a position again, in the index or in
an engine, so each board keeps its positionid and FEN in the caption. The query heads the page,
since the results mean nothing without it.

The page is one HTML file that renders with no network and no scripts: the style is inline, and
each board is an inline SVG drawn by ``chess.svg``, so it can be mailed, archived, or printed
as it is. Every string that came from a game or from the query is escaped, because PGN tags are
free text written by whoever made the file.

A game with hundreds of matches would bury the others, so each game shows at most
``boards_per_game`` boards and says how many it left out; the other output formats list them all.
"""

from __future__ import annotations

import html
import itertools
import re
from collections.abc import Iterable
from typing import TextIO
from xml.dom import minidom

import chess
import chess.svg

from cqlindex.output.records import move_label

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
p.more, p.empty { color: #57606a; font-style: italic; }
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


def _text(value: object) -> str:
    return html.escape(str(value), quote=True)


def _known(value: str | None) -> bool:
    return value is not None and not _UNKNOWN.fullmatch(value)


def _board_svg(record: dict, shared: _SharedDrawings) -> str:
    """The position as chess.svg draws it, last move and check marked, its common drawings shared."""
    board = chess.Board(record["fen"])
    lastmove = None
    if record["move_from"] and record["move_to"]:
        lastmove = chess.Move(chess.parse_square(record["move_from"]), chess.parse_square(record["move_to"]))
    check = board.king(board.turn) if board.is_check() else None
    return shared.board(chess.svg.board(board, lastmove=lastmove, check=check, size=_BOARD_SIZE))


def _figure(record: dict, shared: _SharedDrawings) -> str:
    label = move_label(record) or "start position"
    return (f'<figure class="board" data-gamenumber="{record["gamenumber"]}" '
            f'data-positionid="{record["positionid"]}">\n'
            f'{_board_svg(record, shared)}\n'
            f'<figcaption><span class="move">{_text(label)}</span> '
            f'<span class="id">position {record["positionid"]}</span> '
            f'<code>{_text(record["fen"])}</code></figcaption>\n'
            "</figure>\n")


def _game_head(first: dict, matched: int) -> str:
    players = f'{_text(first["white"] or "?")} – {_text(first["black"] or "?")}'
    result = f' <span class="result">{_text(first["result"])}</span>' if first["result"] else ""
    where = [_text(first[key]) for key in ("event", "site", "date") if _known(first[key])]
    if _known(first["eco"]):
        where.append(f'ECO {_text(first["eco"])}')
    where.append(f'{matched} matching position{"" if matched == 1 else "s"}')
    return (f'<div class="game-head"><h2><span class="number">Game {first["gamenumber"]}</span> '
            f"{players}{result}</h2>\n"
            f'<p class="meta">{" · ".join(where)}</p></div>\n')


def _games(records: Iterable[dict]) -> Iterable[tuple[int, list[dict]]]:
    return ((number, list(group)) for number, group in itertools.groupby(records, key=lambda r: r["gamenumber"]))


def write_html(records: list[dict], out: TextIO, *, query: str, summary: str | None = None,
               boards_per_game: int | None = 12) -> int:
    """Write one HTML page of the matching positions, grouped by game; returns how many boards it drew.

    ``records`` are :func:`cqlindex.output.records.match_records`'s, in their order. At most
    ``boards_per_game`` boards per game (``None``: all of them); the page says how many it left out.
    """
    out.write("<!DOCTYPE html>\n"
              '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
              '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
              f"<title>CQL: {_text(' '.join(query.split()))}</title>\n"
              f"<style>{_STYLE}</style>\n</head>\n<body>\n"
              "<header>\n<h1>Chess Query Language results</h1>\n"
              f'<pre class="query"><code>{_text(query)}</code></pre>\n')
    if summary:
        out.write(f'<p class="summary">{_text(summary)}</p>\n')
    out.write("</header>\n<main>\n")
    boards = 0
    shared = _SharedDrawings()
    for number, game in _games(records):
        shown = game if boards_per_game is None else game[:boards_per_game]
        out.write(f'<section class="game" id="game-{number}">\n{_game_head(game[0], len(game))}'
                  '<div class="boards">\n')
        for record in shown:
            out.write(_figure(record, shared))
            boards += 1
        out.write("</div>\n")
        if len(shown) < len(game):
            hidden = len(game) - len(shown)
            out.write(f'<p class="more">{hidden} more position{"" if hidden == 1 else "s"} not shown</p>\n')
        out.write("</section>\n")
    if not records:
        out.write('<p class="empty">No games matched.</p>\n')
    out.write(f"</main>\n{shared.svg()}</body>\n</html>\n")
    return boards
