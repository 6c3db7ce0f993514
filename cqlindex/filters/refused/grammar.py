"""The grammar of the filters cqlindex parses in full and then refuses (none has syntax of its own now)."""

from __future__ import annotations

from cqlindex.cql.reader import Reader


class RefusedGrammar(Reader):
    """The refused family's grammar."""
