"""The reference CQL engine's command-line habits, carried over to ``cqlindex query``.

People who search with CQL type ``cql -i games.pgn -o out.pgn -gamenumber 1 500 -flipcolor
query.cql``: options with one dash, ranges given as one or two numbers, a query that is a file,
extra filters from ``-cql`` and transforms from ``-flip``/``-flipcolor``/``-shift`` that wrap the
whole body. Click (under typer) knows none of that, so :func:`normalize` rewrites such an argument
list into cqlindex's own options before parsing, and :func:`compose` builds the query text the
options describe. Both are plain functions so the rules are tested without a terminal.
"""

from __future__ import annotations

from collections.abc import Iterable

from cqlindex.cql.parser import parse
from cqlindex.errors import InputError

#: CQL's one-dash spellings (matched case-insensitively, as CQLi does) and cqlindex's options.
_FLAGS = {
    "-variations": "--variations", "-mainline": "--mainline", "-silent": "--silent", "-quiet": "--quiet",
    "-showmatches": "--showmatches", "-flipcolor": "--flipcolor", "-flip": "--flip", "-shift": "--shift",
}
_VALUED = {
    "-input": "--input", "-output": "--output", "-matchstring": "--matchstring", "-cql": "--cql",
    "-limit": "--limit",
}
#: Options given as ``A [B]``: rewritten to cqlindex's one-value form ``A-B``.
_RANGES = {"-gamenumber": "--gamenumber", "--gamenumber": "--gamenumber", "-g": "--gamenumber",
           "-matchcount": "--matchcount", "--matchcount": "--matchcount"}
#: cqlindex's own options that take a value (their value is never rewritten).
_TAKES_VALUE = {"-i", "--input", "-o", "--output", "-f", "--file", "--format", "--matchstring", "--cql",
                "--limit", "--engine", *_VALUED.values()}

#: The body-wrapping options, in CQL's spelling, and the transform each one puts around the body.
WRAPPERS = {"flipcolor": "flipcolor", "flip": "flip", "shift": "shift"}


def normalize(args: Iterable[str]) -> list[str]:
    """``args`` with CQL's spellings replaced by cqlindex's; everything else kept as it is."""
    items = list(args)
    out: list[str] = []
    i = 0
    while i < len(items):
        arg = items[i]
        key = arg.lower() if arg.startswith("-") and not arg.startswith("--") else arg
        if key in _RANGES and not (arg.startswith("--") and i + 1 < len(items) and not items[i + 1].isdigit()):
            values = []
            i += 1
            while i < len(items) and len(values) < 2 and items[i].isdigit():
                values.append(items[i])
                i += 1
            if not values:
                raise InputError(f"{arg} needs a number, or two: {arg} A [B]")
            out += [_RANGES[key], "-".join(values)]
            continue
        if key in _FLAGS:
            out.append(_FLAGS[key])
        elif key in _VALUED:
            out.append(_VALUED[key])
            if i + 1 < len(items):
                out.append(items[i + 1])
                i += 1
        else:
            out.append(arg)
            if (arg in _TAKES_VALUE or arg in _RANGES) and i + 1 < len(items):
                out.append(items[i + 1])
                i += 1
        i += 1
    return out


def parse_range(text: str, option: str, *, open_ended: bool) -> tuple[int, int | None]:
    """``A`` or ``A-B`` as a range; a lone A means A..A, or A and more when ``open_ended`` (matchcount)."""
    parts = text.split("-")
    if not 1 <= len(parts) <= 2 or not all(p.isdigit() for p in parts):
        raise InputError(f"{option} takes A or A-B (whole numbers), not {text!r}")
    low = int(parts[0])
    high = int(parts[1]) if len(parts) == 2 else (None if open_ended else low)
    if high is not None and high < low:
        raise InputError(f"{option} {text}: the range is empty ({high} < {low})")
    return low, high


def compose(text: str, source: str, *, append: Iterable[str] = (), wrap: Iterable[str] = ()) -> str:
    """The query ``text`` with the ``-cql`` filters appended to its body, then the body wrapped in
    each transform of ``wrap`` (the first given innermost), as CQL's options do.

    A syntax error in ``text`` itself is reported against ``text``, before anything is added.
    """
    extra = [f for f in append if f.strip()]
    transforms = list(wrap)
    if not extra and not transforms:
        return text
    if text.strip():
        combined = "\n".join([text, *extra])
    else:
        combined = "\n".join(extra)
    if not transforms:
        return combined
    if text.strip():
        parse(text, source)  # report the user's own mistakes at their own line and column
    start = parse(combined, source).body.span.start
    head, body = combined[:start], combined[start:]
    for transform in transforms:
        body = f"{WRAPPERS[transform]} {{\n{body}\n}}"
    return head + body
