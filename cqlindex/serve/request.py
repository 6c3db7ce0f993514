"""A query as the page and the HTTP API ask it: the CQL text and the usual options, read from a
request's parameters and turned into the text the command line would run.

The options mean what ``cqlindex query``'s do, built by the same functions
(:mod:`cqlindex.cql_options`): ``player=Anderssen&flipcolor=1`` here and ``-player Anderssen
-flipcolor`` there compose the same query, so the server's answers are the command line's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from cqlindex.cql.parser import parse
from cqlindex.cql_options import compose, game_filters, parse_range
from cqlindex.errors import InputError

#: Parameters that restrict the games, as the CLI's options of the same names.
GAME_OPTIONS = ("player", "white", "black", "event", "site", "year", "result")
#: Parameters that wrap the body in a transform, as ``-flipcolor`` and the rest.
WRAPS = ("flipcolor", "reversecolor", "flip", "shift")
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True)
class QuerySpec:
    """One query to run: the index (its position in the server's list) and what ``run`` takes.
    Equal specs share one run and one cached result."""

    db: int
    text: str
    variations: bool | None
    gamenumbers: tuple[int, int] | None
    matchcount: tuple[int, int | None] | None
    source: str = "<query>"


def flag(params: Mapping[str, str], name: str) -> bool | None:
    """A yes/no parameter: None when absent or empty; InputError for anything but 1/0, true/false."""
    value = params.get(name, "").strip().lower()
    if not value:
        return None
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise InputError(f"{name} takes 1 or 0, not {params[name]!r}")


def integer(params: Mapping[str, str], name: str, default: int, *, low: int = 0, high: int | None = None) -> int:
    """A whole-number parameter within [low, high]; InputError otherwise."""
    value = params.get(name, "").strip()
    if not value:
        return default
    if not value.isdigit():
        raise InputError(f"{name} takes a whole number, not {value!r}")
    number = int(value)
    if number < low or (high is not None and number > high):
        raise InputError(f"{name} must lie between {low} and {high}" if high is not None else
                         f"{name} must be at least {low}")
    return number


def database_index(params: Mapping[str, str], count: int) -> int:
    return integer(params, "db", 0, low=0, high=count - 1)


def query_spec(params: Mapping[str, str], databases: int) -> QuerySpec:
    """The query a request asks for; InputError (or the CQL error of a bad query) when it is wrong."""
    db = database_index(params, databases)
    text = params.get("cql", "")
    source = params.get("name", "").strip() or "<query>"
    wrap = [name for name in WRAPS if flag(params, name)]
    restrictions = game_filters(**{name: params.get(name) or None for name in GAME_OPTIONS})
    if not text.strip() and not restrictions:
        raise InputError("type a query (CQL filters, e.g. mate), or choose a player, year or result")
    text = compose(text, source, wrap=wrap, games=restrictions)
    if not text.strip():
        text = "true"  # only game restrictions: every position of the games that pass them, as the CLI does
    parse(text, source)  # a syntax error is answered at once, not after the queries queued before it
    gamenumber = params.get("gamenumber", "").strip()
    matchcount = params.get("matchcount", "").strip()
    return QuerySpec(db=db, text=text, variations=flag(params, "variations"), source=source,
                     gamenumbers=parse_range(gamenumber, "gamenumber", open_ended=False) if gamenumber else None,
                     matchcount=parse_range(matchcount, "matchcount", open_ended=True) if matchcount else None)
