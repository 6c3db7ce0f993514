"""Evaluating CQL's strings: ``~~`` and its captures, ``x[i]`` and ``x[i:j]``, the string
functions, and files.

Regular expressions are CQL's ECMAScript patterns run with Python's :mod:`re`, which reads the
same syntax for everything but a few rare forms (named groups, ``\\\\cX``); ``~~`` searches (the
pattern may match anywhere in the text) and has the text it matched as its value. The groups of
the last match are kept for ``\\\\0`` .. ``\\\\9`` (the game's memo: a capture refers to the match
evaluated last, as in the reference engine).

A ``while (x ~~ R)`` loop finds each match in turn: its condition is tested under
:func:`resuming`, which makes that ``~~`` search after where its previous match ended.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from cqlindex.cql import ast
from cqlindex.errors import CqlError
from cqlindex.evaluate.context import Evaluator, evaluates
from cqlindex.evaluate.values import MATCH, count
from cqlindex.filters.output.edits import EDIT_CALLS
from cqlindex.filters.strings.pieces import PIECE_CALLS
from cqlindex.store.trees import Position

_LAST_MATCH = "~~ last match"
_RESUME = "~~ resume"
_INTEGER = re.compile(r"-?[0-9]+")


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def compiled(ev: Evaluator, pattern: str, node: ast.Node) -> re.Pattern[str]:
    """The pattern compiled once, or a clear error pointing at the filter that uses it."""
    try:
        return _compiled(pattern)
    except re.error as error:
        raise CqlError(f"not a regular expression: {pattern!r} ({error})", ev.query.text, node.span,
                       ev.query.source) from None


@contextmanager
def resuming(ev: Evaluator, condition: ast.Node) -> Iterator[None]:
    """While it lasts, each test of the ``~~`` that is ``condition`` searches after its last match
    (``while ("RBNQ" ~~ ".")`` sees R, then B, N and Q, then fails)."""
    key = (_RESUME, id(condition))  # by identity: a node's hash walks its whole subtree
    ev.memo[key] = 0
    try:
        yield
    finally:
        ev.memo.pop(key, None)


def resume_point(ev: Evaluator, condition: ast.Node | None) -> int | None:
    """Where the next test of ``condition`` (a ``~~`` under :func:`resuming`) will search from."""
    return ev.memo.get((_RESUME, id(condition))) if condition is not None else None


def regex_match(ev: Evaluator, node: ast.Binary, pos: Position) -> object:
    pattern = ev.eval(node.right, pos)
    if not isinstance(pattern, str):
        return None
    regex = compiled(ev, pattern, node.right)
    left = node.left
    if isinstance(left, ast.GameFilter) and left.name == "player" and not left.args:
        texts = [ev.tree.white, ev.tree.black]  # 'player ~~ R': either player's name
    else:
        texts = [ev.eval(left, pos)]
    key = (_RESUME, id(node))
    start = ev.memo.get(key, 0)
    for text in texts:
        if not isinstance(text, str) or start > len(text):
            continue
        found = regex.search(text, start)
        if found is None:
            continue
        ev.memo[_LAST_MATCH] = found
        if key in ev.memo:
            ev.memo[key] = found.end() + (found.end() == found.start())  # an empty match moves on by one
        return found.group(0)
    return None


@evaluates(ast.Capture)
def capture(ev: Evaluator, node: ast.Capture, pos: Position) -> object:
    """``\\\\n``: group n of the last match (no match if it caught nothing); ``\\\\-n``: where it starts."""
    found = ev.memo.get(_LAST_MATCH)
    if found is None or node.group > found.re.groups or found.group(node.group) is None:
        return None
    return found.start(node.group) if node.index else found.group(node.group)


@evaluates(ast.Index)
def index(ev: Evaluator, node: ast.Index, pos: Position) -> object:
    """``x[i]`` is the character at i (from 0; no match outside the string); ``x[i:j]`` the
    characters from i up to j, the bounds kept within the string."""
    text = ev.eval(node.target, pos)
    if not isinstance(text, str):
        return None
    bounds = []
    for bound in (node.start, node.end):
        if bound is None:
            bounds.append(None)
            continue
        value = count(ev.eval(bound, pos))
        if value is None:
            return None
        bounds.append(value)
    start, end = bounds
    if not node.is_slice:
        return text[start] if 0 <= start < len(text) else None
    low = 0 if start is None else min(max(start, 0), len(text))
    high = len(text) if end is None else min(max(end, 0), len(text))
    return text[low:high] if low <= high else ""


def text(ev: Evaluator, arg: ast.Node, pos: Position) -> str | None:
    """An argument as ``str`` writes it (as ``comment`` does), None if it does not match."""
    from cqlindex.filters.output.python import written

    value = arg.value if isinstance(arg, ast.String) else ev.eval(arg, pos)
    return None if value is None else written(value, pos)


def _strings(ev: Evaluator, node: ast.Call, pos: Position) -> list[str] | None:
    values = []
    for arg in node.args:
        value = ev.eval(arg, pos)
        if not isinstance(value, str):
            return None
        values.append(value)
    return values


def _str(ev: Evaluator, node: ast.Call, pos: Position) -> object:
    parts = []
    for arg in node.args:
        part = text(ev, arg, pos)
        if part is None:
            return None
        parts.append(part)
    return "".join(parts)


def _int(ev: Evaluator, node: ast.Call, pos: Position) -> object:
    values = _strings(ev, node, pos)
    if values is None or not _INTEGER.fullmatch(values[0]):
        return None
    return int(values[0])


def _ascii(ev: Evaluator, node: ast.Call, pos: Position) -> object:
    value = ev.eval(node.args[0], pos)
    if isinstance(value, str):
        return ord(value) if len(value) == 1 and ord(value) < 128 else None
    number = count(value)
    return chr(number) if number is not None and 0 < number < 128 else None


def _case(convert: Callable[[str], str]) -> Callable[[Evaluator, ast.Call, Position], object]:
    def change(ev: Evaluator, node: ast.Call, pos: Position) -> object:
        values = _strings(ev, node, pos)
        return None if values is None else convert(values[0])

    return change


def _indexof(ev: Evaluator, node: ast.Call, pos: Position) -> object:
    values = _strings(ev, node, pos)
    return None if values is None else values[1].find(values[0])


def _file(ev: Evaluator, node: ast.Call, name: str) -> Path:
    if not ev.allow_files:
        raise CqlError(f"'{node.name}' reads or writes files, which is off here: allow it with allow_files=True "
                       "(the command line allows it)", ev.query.text, node.span, ev.query.source)
    return Path(name)


def _readfile(ev: Evaluator, node: ast.Call, pos: Position) -> object:
    values = _strings(ev, node, pos)
    if values is None:
        return None
    with _reporting(ev, node, values[0]):
        return _file(ev, node, values[0]).read_text(encoding="utf-8", errors="replace")


def _writefile(ev: Evaluator, node: ast.Call, pos: Position) -> object:
    values = _strings(ev, node, pos)
    if values is None:
        return None
    with _reporting(ev, node, values[0]), _file(ev, node, values[0]).open("a", encoding="utf-8") as out:
        out.write(values[1])
    return MATCH


@contextmanager
def _reporting(ev: Evaluator, node: ast.Call, name: str) -> Iterator[None]:
    """A file that cannot be read or written stops the run with a clear error at the filter."""
    try:
        yield
    except OSError as error:
        doing = "read" if node.name == "readfile" else "write"
        raise CqlError(f"'{node.name}' cannot {doing} {name!r}: {error.strerror}", ev.query.text, node.span,
                       ev.query.source) from None


def _tag(ev: Evaluator, node: ast.Call, pos: Position) -> object:
    values = _strings(ev, node, pos)
    return None if values is None else ev.tree.headers.get(values[0])


#: The string functions, by name (:func:`cqlindex.filters.logic.python.call` asks here).
CALLS: dict[str, Callable[[Evaluator, ast.Call, Position], object]] = {
    "str": _str, "int": _int, "ascii": _ascii, "lowercase": _case(str.lower), "uppercase": _case(str.upper),
    "indexof": _indexof, "readfile": _readfile, "writefile": _writefile, "tag": _tag, **PIECE_CALLS, **EDIT_CALLS,
}
