"""cqlindex: every position of a PGN collection in DuckDB, searchable with CQL.

The build (:mod:`cqlindex.ingest`) does the expensive replay once; queries then read
columnar tables instead of re-reading the PGN.

The public names come from :mod:`cqlindex.api` on first use, not at import: the command line
imports this package on every run, and ``cqlindex --help`` should not pay for pyarrow, numpy
and python-chess.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["Database", "Match", "Matches", "__version__", "build", "open", "serve"]

if TYPE_CHECKING:
    from cqlindex.api import Database, Match, Matches, build, open, serve


def __getattr__(name: str) -> Any:
    if name in __all__:
        from cqlindex import api

        return getattr(api, name)
    raise AttributeError(f"module 'cqlindex' has no attribute {name!r}")
