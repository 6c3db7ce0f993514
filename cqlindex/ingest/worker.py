"""What one parse worker does with a batch of games: decode, replay, return Arrow tables.

Runs in a child process, so it takes and returns only picklable values. Text is decoded per
game (UTF-8, else Windows-1252), because real collections mix encodings from game to game.
"""

from __future__ import annotations

import codecs
import re

import pyarrow as pa

from cqlindex.ingest.replay import replay
from cqlindex.ingest.rows import RowBatch
from cqlindex.ingest.source import RawGame

#: The errors of a block of text from which neither a tag pair nor a move could be read: one that
#: shows something of PGN (a line starting with '[', a result, a numbered move) and one that
#: shows nothing of it (the pipeline rejects a file made only of the latter).
NOT_A_GAME = "not a PGN game: no tag pair could be read and no move played"
NOT_PGN = "not PGN: text without a tag pair, a numbered move or a result"
_PGN_MARK = re.compile(r"^\s*\[|(?:^|\s)(?:1-0|0-1|1/2-1/2|\*)(?:\s|$)|\d\.\s*[a-hKQRBNO]", re.MULTILINE)


def decode(data: bytes) -> str:
    """A game's text: UTF-8 where it is valid, else Windows-1252, which is what PGN files written on
    Windows use (Latin-1 would turn its quotes, dashes, ellipsis and euro sign into control codes).

    The five bytes Windows-1252 leaves undefined become the code points Latin-1 gives them, so
    decoding never fails and never loses a byte.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", _LATIN1_FALLBACK)


def _undefined_as_latin1(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeDecodeError):
        raise error
    return "".join(map(chr, error.object[error.start:error.end])), error.end


_LATIN1_FALLBACK = "cqlindex-cp1252-undefined-as-latin1"
codecs.register_error(_LATIN1_FALLBACK, _undefined_as_latin1)


def prepare(text: str) -> tuple[str, list[int]]:
    """The text python-chess should read, and the original line of each of its lines.

    python-chess ends a game at a blank line inside the movetext; the splitter has already
    decided where the game ends, so blank lines after the header are dropped here.
    """
    kept: list[str] = []
    origin: list[int] = []
    in_header = True
    # Split on line feeds only: str.splitlines() would also break at U+0085 (NEL), U+2028 and
    # others that a tag or a comment may hold.
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        stripped = line.strip()
        if not stripped:
            continue
        if in_header and not stripped.startswith("["):
            in_header = False
            if kept:
                kept.append("")
                origin.append(number)
        kept.append(line)
        origin.append(number)
    return "\n".join(kept) + "\n", origin


def parse_batch(batch: list[tuple[int, RawGame]]) -> tuple[pa.Table, pa.Table, pa.Table]:
    """Replay ``(gamenumber, raw game)`` pairs into (games, positions, errors) tables."""
    rows = RowBatch()
    for gamenumber, raw in batch:
        text, origin = prepare(decode(raw.data))
        game = replay(text)
        if game.errors:
            game.errors = [(origin[min(line, len(origin)) - 1] if origin else 1, message)
                           for line, message in game.errors]
        if raw.notes:
            game.errors = [*raw.notes, *game.errors]
        if not game.headers and len(game.rows) == 1:
            game.errors.insert(0, (1, NOT_A_GAME if _PGN_MARK.search(text) else NOT_PGN))
            game.playable = False
        rows.add(gamenumber, raw, game)
    return rows.to_arrow()
