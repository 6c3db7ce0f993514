"""One error hierarchy for everything a user can get wrong.

The CLI catches :class:`CqlindexError` and prints its message without a traceback; anything
else is a bug and is allowed to surface as one. ``exit_code`` lets scripts tell a bad input
(2) from a bad database (3).
"""

from __future__ import annotations


class CqlindexError(Exception):
    """Base of every error caused by input rather than by a bug."""

    exit_code = 1


class InputError(CqlindexError):
    """A file that is missing, unreadable, empty or of an unknown kind."""

    exit_code = 2


class OutputError(CqlindexError):
    """A target that cannot be written."""

    exit_code = 2


class DatabaseError(CqlindexError):
    """A path that is not a cqlindex database, or SQL that DuckDB rejects."""

    exit_code = 3
