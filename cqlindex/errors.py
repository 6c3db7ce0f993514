"""One error hierarchy for everything a user can get wrong.

The CLI catches :class:`CqlindexError` and prints its message without a traceback; anything
else is a bug and is allowed to surface as one. ``exit_code`` lets scripts tell a bad input
(2) from a bad database (3), from a query stopped at its time limit (4) and from a target
another build is writing (75, the "try again later" code of sysexits.h).
"""

from __future__ import annotations


#: What a user is told if a query still exhausts Python's recursion limit (cql/limits.py is
#: meant to refuse such queries first, with the spot located).
TOO_DEEP = "the query is nested too deeply for cqlindex to run it; write it with fewer levels of nesting"


class CqlindexError(Exception):
    """Base of every error caused by input rather than by a bug."""

    exit_code = 1


class InputError(CqlindexError):
    """A file that is missing, unreadable, empty or of an unknown kind."""

    exit_code = 2


class OutputError(CqlindexError):
    """A target that cannot be written."""

    exit_code = 2


class BusyError(OutputError):
    """Another build is writing the same target: nothing is wrong, try again when it is done."""

    exit_code = 75


class DatabaseError(CqlindexError):
    """A path that is not a cqlindex database, or SQL that DuckDB rejects."""

    exit_code = 3


class CqlError(CqlindexError):
    """A problem with a CQL query, located in its text.

    ``str()`` gives the one-line form; :meth:`render` the compiler-style report with the
    offending line and a caret under the column, which the CLI prints.
    """

    exit_code = 2
    label = "error"

    def __init__(self, message: str, text: str, span, source: str = "<query>") -> None:
        super().__init__(message)
        self.message = message
        self.text = text
        self.span = span
        self.source = source

    def __str__(self) -> str:
        return f"{self.source}:{self.span.line}:{self.span.col}: {self.label}: {self.message}"

    def render(self) -> str:
        """``file:line:col: error: message``, the source line, and a caret under the spot."""
        lines = self.text.split("\n")
        line = lines[self.span.line - 1] if 0 < self.span.line <= len(lines) else ""
        width = max(1, min(self.span.end - self.span.start, len(line) - self.span.col + 1))
        return f"{self}\n    {line}\n    {' ' * (self.span.col - 1)}{'^' * width}"


class CqlSyntaxError(CqlError):
    """The query is not valid CQL."""

    label = "syntax error"


class CqlUnsupportedError(CqlError):
    """Valid CQL that cqlindex does not evaluate yet: named, never silently answered wrong."""

    label = "unsupported"


class QueryTimeout(CqlindexError):
    """A query stopped at its time limit (``--timeout``, ``timeout=``)."""

    exit_code = 4
