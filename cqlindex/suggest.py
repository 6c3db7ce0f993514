"""A "did you mean ...?" for a misspelt filter name.

A CQL user who types ``mat``, ``chek``, ``flipcolr`` or ``A attaks k`` wants to hear the filter
they meant, not only that this one is unknown. :func:`did_you_mean` picks the closest known
names with :mod:`difflib` (the standard library's similarity ratio, which favours shared runs
of letters, so a dropped or swapped letter still ranks first).

Every name comes from :func:`known_names`, the one place that says which words are filters:
it reads the filter catalogue (:func:`cqlindex.filters.catalogue.names`).
"""

from __future__ import annotations

import difflib
from functools import cache

#: How alike a name must be to be offered (difflib's ratio, 0..1).
_CUTOFF = 0.7
#: At most this many names are offered.
_MOST = 3


@cache
def known_names() -> frozenset[str]:
    """Every word that stands as a filter, from the filter catalogue (a parameter such as relation's
    'match' is no answer to a misspelt filter)."""
    from cqlindex.filters import catalogue
    from cqlindex.filters.spec import FILTER

    return frozenset(catalogue.names(FILTER))


def did_you_mean(name: str, names: frozenset[str] | None = None) -> list[str]:
    """The known names closest to ``name``, best first (none when nothing is close)."""
    pool = known_names() if names is None else names
    if name in pool:
        return []
    return difflib.get_close_matches(name.lower(), sorted(pool), n=_MOST, cutoff=_CUTOFF)


def hint(name: str) -> str:
    """``"; did you mean 'mate'?"`` (or ``'a' or 'b'``), or nothing."""
    close = did_you_mean(name)
    if not close:
        return ""
    return "; did you mean " + " or ".join(f"'{c}'" for c in close) + "?"
