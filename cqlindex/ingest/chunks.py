"""Cut a PGN text stream into pieces at places where a new game certainly starts.

The build's parent process reads the input and hands pieces of about ``size`` bytes to the
workers, which split them into games (:func:`cqlindex.ingest.source.split_games`) and read them.
Splitting the whole file line by line in the parent was its bottleneck; finding a cut is a
regular-expression search near each piece's end. The pieces' games, taken in order, must be the
games of the whole file, so a cut is made only where the splitter would start a new game
whatever came before it:

* the line after the cut is a whole tag-pair line (``[Name "value"]``) and the line before it is
  blank (after a blank line a tag line also ends an unclosed ``{`` comment), and
* going back from that blank line over blank lines and ``%`` / ``;`` escape lines, the first
  other line does not start with ``[``: it is movetext (or comment text), so the splitter is
  reading moves, and a tag line then always starts a new game. After a tag line it might
  continue a header (ChessBase writes blank lines inside headers): no cut there.

A piece that ends at a cut knows it (``end="cut"``), so an unclosed comment gets the same note
as in one pass; the last piece of a compressed file that is cut short is marked ``truncated``
and loses the game in progress, as reading the file line by line would.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from cqlindex.ingest.source import TAG_LINE, RawGame, split_games

_READ = 1 << 20
# A newline, a blank line, and a line whose first non-blank character is '['.
_BLANK_THEN_BRACKET = re.compile(rb"\n[ \t\r\x0b\x0c]*\n(?=[ \t\x0b\x0c]*\[)")


@dataclass(frozen=True, slots=True)
class Chunk:
    """A piece of one input's text: whole lines from ``line`` (1-based) at byte ``offset``.

    ``end`` is what follows it: ``file`` (the input's end), ``cut`` (the next piece) or
    ``truncated`` (a compressed input cut short). ``source`` is the input's index among the build's inputs.
    """

    source: int
    file: str
    data: bytes
    offset: int
    line: int
    end: str


def chunks(stream: BinaryIO, file: str, source: int, size: int) -> Iterator[Chunk]:
    """The pieces of ``stream`` (at least ``size`` bytes each but the last; the last always comes,
    empty if need be). zlib/zstd/OS errors propagate; a cut-short compressed file ends the pieces
    with a ``truncated`` one."""
    pending = b""
    offset, line, searched = 0, 1, size
    while True:
        try:
            block = stream.read1(_READ)  # one read: nothing read before an EOFError is lost
        except EOFError:
            complete = pending[:pending.rfind(b"\n") + 1]  # a partial last line was never read as a line
            yield Chunk(source, file, complete, offset, line, "truncated")
            return
        if not block:
            yield Chunk(source, file, pending, offset, line, "file")
            return
        pending += block
        while len(pending) >= size:
            cut = find_cut(pending, searched)
            if cut is None:
                # Search again from the last lines: a candidate may lack its end yet.
                back = len(pending)
                for _ in range(3):
                    back = max(pending.rfind(b"\n", 0, back), 0)
                searched = max(searched, back)
                break
            piece, pending = pending[:cut], pending[cut:]
            yield Chunk(source, file, piece, offset, line, "cut")
            offset += len(piece)
            line += piece.count(b"\n")
            searched = size


def find_cut(data: bytes, start: int) -> int | None:
    """The first place at or after ``start`` where a piece may end (see the module docstring)."""
    return next(_cut_places(data, start), None)


def _cut_places(data: bytes, start: int = 0) -> Iterator[int]:
    """Every place from ``start`` on where a game certainly starts (whole lines only)."""
    for match in _BLANK_THEN_BRACKET.finditer(data, start):
        tag_start = match.end()
        tag_end = data.find(b"\n", tag_start)
        if tag_end < 0:
            return
        if TAG_LINE.match(data[tag_start:tag_end].strip()) and _reading_moves(data, match.start()):
            yield tag_start


def _reading_moves(data: bytes, end: int) -> bool:
    """Whether the last line before ``end`` that is neither blank nor an escape is not a tag line.
    False when there is none in ``data`` (undecided: no cut)."""
    while end > 0:
        start = data.rfind(b"\n", 0, end) + 1
        if start == 0:
            return False  # the piece's first line: what came before it is unknown here
        stripped = data[start:end].strip()
        if stripped and not stripped.startswith((b"%", b";")):
            return not stripped.startswith(b"[")
        end = start - 1
    return False


# One game as the splitter would read it: tag lines (stripped, each starts with '['), blank
# lines, movetext lines (none starts with '['), blank lines; with no '{', '%' or ';' anywhere
# (checked apart), so no comment, escape or tagless-game rule can apply inside it. Group 1: the tag lines.
_SIMPLE_GAME = re.compile(rb"((?:[ \t\r\x0b\x0c]*\[[^\n]*\n)+)(?:[ \t\r\x0b\x0c]*\n)*"
                          rb"(?:[ \t\r\x0b\x0c]*[^\s\[][^\n]*\n)+(?:[ \t\r\x0b\x0c]*\n)*\Z")

# The name of each tag line (a line whose first non-blank character is '['), as the splitter
# reads it: the first word after the '[', empty if none.
_TAG_NAMES = re.compile(rb"^[ \t\r\x0b\x0c]*\[[ \t\r\x0b\x0c]*([^ \t\n\r\x0b\x0c]*)", re.MULTILINE)


def chunk_games(chunk: Chunk) -> Iterator[RawGame]:
    """The games of ``chunk``, as :func:`split_games` would cut the whole file.

    The places where a game certainly starts (see the module docstring) cut the piece into
    segments; a segment that is one plain game (a header whose tag names differ, then movetext
    without comments or escapes: most of any collection) is taken as it is, and any other is
    split line by line. Either way a segment starts with a fresh splitter, as at a cut.
    """
    data, start, line = chunk.data, 0, chunk.line
    for end in [*_cut_places(data), len(data)]:
        segment = data[start:end]
        last = end == len(data)
        if _one_plain_game(segment) and (start or chunk.line > 1) and not (last and chunk.end == "truncated"):
            yield RawGame(chunk.file, chunk.offset + start, line, segment)
        elif segment:
            yield from split_games(io.BytesIO(segment), chunk.file, offset=chunk.offset + start, first_line=line,
                                   end=chunk.end if last else "cut")
        line += segment.count(b"\n")
        start = end


def _one_plain_game(segment: bytes) -> bool:
    if b"{" in segment or b"%" in segment or b";" in segment:
        return False
    match = _SIMPLE_GAME.match(segment)
    if match is None:
        return False
    names = _TAG_NAMES.findall(segment, 0, match.end(1))
    return len(names) == len(set(names))
