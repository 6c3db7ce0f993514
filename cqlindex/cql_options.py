"""The reference CQL engine's command-line habits, carried over to ``cqlindex query``.

People who search with CQL type ``cql -i games.pgn -o out.pgn -gamenumber 1 500 -flipcolor
query.cql``: options with one dash (in any case), ranges given as one or two numbers, a query
that is a file, extra filters from ``-cql`` and ``-fen`` and transforms from ``-flip``/
``-flipcolor``/``-shift``/``-reversecolor`` that wrap the whole body, and game restrictions from
``-player``, ``-white``, ``-black``, ``-event``, ``-site``, ``-year`` and ``-result``.

The CLI declares every one-dash spelling as an option of its own (click reads ``-player`` as a
name, and lower-cases option names as CQLi does). Two things click cannot declare live here:

* :func:`join_ranges`: ``-gamenumber A [B]`` takes one number or two; the second, when there is
  one, is joined to the first as ``A-B``, the one-value form the option is declared with.
* :data:`REFUSED`: CQL options that make no sense for an index, or that cqlindex does not do,
  each with what to do instead; :func:`refusal` finds one in the arguments before click does, so
  the user reads that message rather than click's guess at a short option (``-t`` for ``-threads``).
  It also names an unknown one-dash option as typed (``-variation``, with the closest known
  spelling), where click would read it as a short option and its value (``No such option: -v``).

:func:`compose` builds the query text the options describe. All are plain functions, tested
without a terminal.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from cqlindex.errors import InputError

#: Options written as ``A [B]`` (any dash count, any case) and declared with one value ``A`` or ``A-B``.
RANGES = ("gamenumber", "g", "matchcount", "year")

#: CQL 6.2's options that cqlindex refuses: name -> (operands it takes, what to do instead).
REFUSED: dict[str, tuple[int, str]] = {
    "threads": (1, "the index is already built; queries use every core (cqlindex build --workers N sets the "
                   "parse processes)"),
    "singlethreaded": (0, "the index is already built; queries use every core (cqlindex build --workers 1 builds "
                          "in one process)"),
    "s": (0, "(CQL's -singlethreaded) the index is already built; queries use every core"),
    "lineincrement": (1, "queries read the index, not the PGN, so there is no per-game progress; the closing line "
                         "says how long the query took"),
    "parse": (0, "use --explain to see how the query is read and where each filter is decided"),
    "html": (0, "CQL's -html colours a .cql file; cqlindex writes the matching boards as HTML with -o FILE.html"),
    "a": (1, "no conversion needed: cqlindex reads CQL's Unicode symbols and their ASCII spellings alike"),
    "u": (1, "no conversion needed: cqlindex reads CQL's Unicode symbols and their ASCII spellings alike"),
    "alwayscomment": (0, "cqlindex writes smart comments only (a failed filter's comment is dropped); leave the "
                         "option out"),
    "assign": (2, "set the variable in the query instead, e.g. -cql 'X = 3'"),
    "similarposition": (0, "not an option here: write the filter in the query, -cql 'similarposition \"x.pgn\"'"),
    "hhdb": (0, "the HHdbVI study database is commercial and not bundled; give your own index with -i"),
    "vi": (0, "the HHdbVI study database is commercial and not bundled; give your own index with -i"),
    "virtualmainline": (0, "not supported; search the main line (-mainline) or every line (-variations)"),
    "gui": (0, "there is no GUI protocol; programs read --format ndjson or json (one record per match)"),
    "guipgnstdin": (0, "the games come from the index; build one with cqlindex build"),
    "guipgnstdout": (0, "write PGN to standard output with --format pgn"),
}

#: CQL 6.2's options that work, as ``cqlindex query`` declares them (one dash; two work as well).
ACCEPTED = ("i", "input", "o", "output", "cql", "fen", "flip", "flipcolor", "reversecolor", "shift", "gamenumber",
            "g", "matchcount", "matchstring", "mainline", "variations", "quiet", "silent", "showmatches", "noheader",
            "noremovecomment", "nosettag", "player", "white", "black", "event", "site", "year", "result", "version",
            "help", "h")

#: The body-wrapping options, in CQL's spelling, and the transform each one puts around the body.
WRAPPERS = {"flipcolor": "flipcolor", "reversecolor": "reversecolor", "flip": "flip", "shift": "shift"}
_RESULTS = ("1-0", "0-1", "1/2-1/2")


def _name(arg: str) -> str | None:
    """``threads`` for ``-threads``, ``--Threads``; None for what is not an option."""
    if not arg.startswith("-") or arg in ("-", "--") or arg.startswith("---"):
        return None
    return arg.lstrip("-").split("=", 1)[0].lower()


#: An argument click would split into a short option and its value: one dash, then a word.
_ONE_DASH_WORD = re.compile(r"-[A-Za-z][A-Za-z0-9]+(=.*)?", re.DOTALL)


def refusal(args: Sequence[str], takes_value: Iterable[str] = ()) -> str | None:
    """The message for the first refused CQL option in ``args``, or None.

    ``takes_value`` are cqlindex's own option spellings whose next argument is a value (never
    read as an option: ``-matchstring -s`` marks matches with ``-s``). A one-dash word that is
    none of those, nor a CQL option cqlindex takes (:data:`ACCEPTED`), is unknown, and named as
    typed with the closest spellings.
    """
    valued = {v.lower() for v in takes_value}
    known = set(ACCEPTED) | {v.lstrip("-") for v in valued}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return None
        name = _name(arg)
        if name in REFUSED:
            return f"-{name}: {REFUSED[name][1]}"
        if name is not None and _ONE_DASH_WORD.fullmatch(arg) and name not in known:
            import difflib  # here: only a mistyped option needs it

            close = difflib.get_close_matches(name, sorted(known | set(REFUSED)), n=3, cutoff=0.7)
            offer = f" (did you mean {' or '.join('-' + c for c in close)}?)" if close else ""
            return f"No such option: {arg.split('=', 1)[0]}{offer}"
        i += 2 if arg.lower() in valued and "=" not in arg else 1
    return None


def join_ranges(args: Sequence[str]) -> list[str]:
    """``args`` with ``-gamenumber A B`` (and the other :data:`RANGES`) joined into ``-gamenumber A-B``."""
    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        out.append(arg)
        if _name(arg) in RANGES and "=" not in arg:
            if i + 1 >= len(args) or not _is_range_value(args[i + 1]):
                raise InputError(f"{arg} needs a number, or two: {arg} A [B]")
            value = args[i + 1]
            i += 2
            if value.isdigit() and i < len(args) and args[i].isdigit():
                value = f"{value}-{args[i]}"
                i += 1
            out.append(value)
            continue
        i += 1
    return out


def _is_range_value(text: str) -> bool:
    return all(part.isdigit() for part in text.split("-", 1))


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


def _string(value: str, option: str) -> str:
    if '"' in value or "\n" in value:
        raise InputError(f"{option}: a CQL string cannot hold a double quote or a line break: {value!r}")
    return f'"{value}"'


def game_filters(*, player: str | None = None, white: str | None = None, black: str | None = None,
                 event: str | None = None, site: str | None = None, year: str | None = None,
                 result: str | None = None) -> list[str]:
    """The CQL filters ``-player``, ``-white``, ``-black``, ``-event``, ``-site``, ``-year A [B]`` and
    ``-result`` stand for (each matches a part of the tag, as CQL's ``player``/``event``/``site`` do)."""
    filters = []
    if player is not None:
        filters.append(f"player {_string(player, '-player')}")
    if white is not None:
        filters.append(f"player white {_string(white, '-white')}")
    if black is not None:
        filters.append(f"player black {_string(black, '-black')}")
    if event is not None:
        filters.append(f"event {_string(event, '-event')}")
    if site is not None:
        filters.append(f"site {_string(site, '-site')}")
    if year is not None:
        low, high = parse_range(year, "-year", open_ended=False)
        filters.append(f"year >= {low}" + (f" year <= {high}" if high is not None else ""))
    if result is not None:
        if result not in _RESULTS:
            raise InputError(f"-result takes 1-0, 0-1 or 1/2-1/2, not {result!r}")
        filters.append(f"result {result}")
    return filters


def fen_filter(fen: str) -> str:
    """``-fen FEN``: only positions with that board (the placement field; the rest is ignored, as in CQL)."""
    return f"fen {_string(fen.split()[0] if fen.strip() else fen, '-fen')}"


def compose(text: str, source: str, *, append: Iterable[str] = (), wrap: Iterable[str] = (),
            games: Iterable[str] = ()) -> str:
    """The query ``text`` with the ``-cql``/``-fen`` filters appended to its body, then the body
    wrapped in each transform of ``wrap`` (the first given innermost), as CQL's options do, then
    the game restrictions ``games`` (``-white`` and the rest) after it, outside every transform:
    ``-flipcolor -white Kasparov`` still means Kasparov had White.

    A syntax error in ``text`` itself is reported against ``text``, before anything is added.
    """
    extra = [f for f in append if f.strip()]
    transforms = list(wrap)
    after = [f for f in games if f.strip()]
    if not extra and not transforms and not after:
        return text
    if text.strip():
        combined = "\n".join([text, *extra])
    else:
        combined = "\n".join(extra)
    if transforms:
        from cqlindex.cql.parser import parse  # here: a query run from a kept plan is not parsed

        if text.strip():
            parse(text, source)  # report the user's own mistakes at their own line and column
        start = parse(combined, source).body.span.start
        head, body = combined[:start], combined[start:]
        for transform in transforms:
            body = f"{WRAPPERS[transform]} {{\n{body}\n}}"
        combined = head + body
    return "\n".join([combined, *after]) if combined.strip() else "\n".join(after)
