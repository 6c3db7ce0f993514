"""The ``cql(...)`` header's parameters: how a run goes (input, output, lines searched, ranges)."""

from cqlindex.filters.spec import HEADER, LOGICAL, declare

d = declare("header")

DECLS = tuple(d(name, None, LOGICAL, what, where=HEADER, example=f"cql({name}{arg}) check") for name, what, arg in (
    ("variations", "search variations too", ""),
    ("mainline", "search the main line only (the default)", ""),
    ("quiet", "no closing line", ""),
    ("silent", "the games as they were, no comments added", ""),
    ("input", "the PGN file (its index is beside it)", " games.pgn"),
    ("output", "the file the matching games go to", " out.pgn"),
    ("result", "only games with this result", " 1-0"),
    ("gamenumber", "only games numbered in this range", " 1 10"),
    ("matchcount", "games with this many matching positions", " 2 5"),
    ("sort", "'sort matchcount': games with more matches first", " matchcount"),
    ("matchstring", "the comment marking a match", " \"M\""),
))
