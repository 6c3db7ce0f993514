"""cqlindex: every position of a PGN collection in DuckDB, searchable with CQL.

The build (:mod:`cqlindex.ingest`) does the expensive replay once; queries then read
columnar tables instead of re-reading the PGN.
"""

__version__ = "0.1.0"

from cqlindex.api import Database, Match, Matches, build, open

__all__ = ["Database", "Match", "Matches", "__version__", "build", "open"]
