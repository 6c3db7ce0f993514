"""Find the PGN sources and cut them into one byte string per game (:mod:`.streams` opens them).

cqlindex decides where a game begins itself instead of leaving it to ``chess.pgn.read_game``,
because the game number is an identity shared with the reference CQL engine, and
python-chess ends a game at any blank line in the movetext (a comment followed by a blank line
would split one game into two) and merges header-only games. The rules here:

* a tag line after movetext starts a new game;
* a tag line whose name the current header already has starts a new game (header-only
  games, e.g. round lists, separated only by blank lines), while a new name after a blank line
  continues the header (ChessBase writes a blank line inside headers);
* movetext after a result token and a blank line starts a new game (files without tags).

Brace comments are tracked so that a comment line starting with ``[`` is not taken for a tag.
A ``{`` that is never closed would otherwise swallow every later game of the file, so a comment
ends where a tag section plainly starts: a whole tag-pair line right after a blank line (a common
way for a reader to find its feet again). The broken game keeps what was
read before the ``{`` and carries a note that becomes an error row.
"""

from __future__ import annotations

import glob
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from cqlindex.errors import InputError
from cqlindex.ingest.streams import open_binary

__all__ = ["TAG_LINE", "RawGame", "expand_inputs", "open_binary", "split_games"]

_RESULTS = (b"1-0", b"0-1", b"1/2-1/2", b"*")
# A whole tag pair on its own line: what ends an unclosed comment after a blank line.
TAG_LINE = re.compile(rb'\[[A-Za-z0-9][A-Za-z0-9_+#=:-]*\s+"(?:[^"\\]|\\.)*"\]\Z')


@dataclass(frozen=True, slots=True)
class RawGame:
    """The bytes of one game and where they came from (``line`` is 1-based).

    ``notes`` are problems the splitter saw, as (line within ``data``, 1-based; message).
    """

    file: str
    offset: int
    line: int
    data: bytes
    notes: tuple[tuple[int, str], ...] = ()


def expand_inputs(patterns: list[str]) -> list[Path]:
    """Paths for the given files and globs, in the order given; every one must exist."""
    paths: list[Path] = []
    for pattern in patterns:
        if glob.has_magic(pattern):
            matches = sorted(glob.glob(pattern, recursive=True))
            if not matches:
                raise InputError(f"{pattern}: no file matches this pattern")
            paths.extend(Path(m) for m in matches if Path(m).is_file())
        else:
            path = Path(pattern)
            if not path.exists():
                raise InputError(f"{pattern}: no such file")
            if path.is_dir():
                raise InputError(f"{pattern}: is a directory (give the PGN files or a glob)")
            paths.append(path)
    if not paths:
        raise InputError("no input files")
    return paths


def split_games(stream: BinaryIO, file: str, *, offset: int = 0, first_line: int = 1,
                end: str = "file") -> Iterator[RawGame]:
    """Yield the games of ``stream`` in order (see the module docstring for the rules).

    ``stream`` may be a piece of a file cut by :mod:`cqlindex.ingest.chunks` at a place where
    a new game certainly starts: ``offset`` and ``line`` are then where the piece starts in the
    file, and ``end`` says what follows it: ``file`` (the end of the file), ``cut`` (the
    next piece: a tag line after a blank line, which ends an open comment) or ``truncated``
    (a compressed file cut short: the game in progress is not yielded, as reading stopped inside it).
    """
    lines: list[bytes] = []
    start_offset = start_line = 0
    lineno = first_line - 1
    state = "none"  # none | tags | gap (blank line after tags) | moves
    tag_names: set[bytes] = set()
    in_comment = after_result = blank_since = False
    content = False  # has the game a tag or movetext line (not only % escapes)?
    comment_line = 0  # where the open comment started
    previous_blank = False
    notes: list[tuple[int, str]] = []
    for line in stream:
        lineno += 1
        if lineno == 1 and line.startswith(b"\xef\xbb\xbf"):
            offset, line = 3, line[3:]
        stripped = line.strip()
        name = b""
        if in_comment and previous_blank and TAG_LINE.match(stripped):
            in_comment = False
            notes.append((comment_line - start_line + 1, f"comment '{{' on line {comment_line} is never closed; "
                                                         f"the game is read up to it, the next game starts on line {lineno}"))
        if in_comment:
            kind = "moves"
        elif stripped.startswith(b"["):
            kind = "tag"
            name = stripped[1:].split(None, 1)[0] if len(stripped) > 1 else b""
        elif not stripped:
            kind = "blank"
        elif stripped.startswith((b"%", b";")):
            kind = "escape"
        else:
            kind = "moves"
        previous_blank = not stripped

        if kind == "tag":
            new_game = state == "moves" or (state in ("tags", "gap") and name in tag_names)
        else:
            new_game = kind == "moves" and not in_comment and state == "moves" and after_result and blank_since
        if new_game and content:
            yield RawGame(file, start_offset, start_line, b"".join(lines), tuple(notes))
            lines, state, tag_names, notes = [], "none", set(), []
            after_result = blank_since = content = False

        if stripped and not lines:
            start_offset, start_line = offset, lineno
        if lines or stripped:
            lines.append(line)
        offset += len(line)

        if kind in ("tag", "moves"):
            content = True
        if kind == "tag":
            state = "tags"
            tag_names.add(name)
        elif kind == "blank":
            if state == "tags":
                state = "gap"
            elif state == "moves":
                blank_since = True
        elif kind == "moves":
            state = "moves"
            was_open = in_comment
            in_comment = _comment_state(stripped, in_comment)
            if in_comment and (not was_open or b"}" in stripped):
                comment_line = lineno
            if not in_comment and stripped:
                after_result, blank_since = _ends_with_result(stripped), False
    if content and end != "truncated":
        if in_comment and end == "cut":
            notes.append((comment_line - start_line + 1, f"comment '{{' on line {comment_line} is never closed; "
                                                         f"the game is read up to it, the next game starts on line {lineno + 1}"))
        elif in_comment:
            notes.append((comment_line - start_line + 1,
                          f"comment '{{' on line {comment_line} is never closed before the end of the file"))
        yield RawGame(file, start_offset, start_line, b"".join(lines), tuple(notes))


def _comment_state(line: bytes, in_comment: bool) -> bool:
    """Whether a brace comment is still open at the end of ``line``."""
    if not in_comment and b"{" not in line:
        return False
    for ch in line:
        if in_comment:
            if ch == 0x7D:  # }
                in_comment = False
        elif ch == 0x7B:  # {
            in_comment = True
        elif ch == 0x3B:  # ; comment to end of line
            break
    return in_comment


def _ends_with_result(line: bytes) -> bool:
    return line.rsplit(None, 1)[-1].endswith(_RESULTS) if line else False
