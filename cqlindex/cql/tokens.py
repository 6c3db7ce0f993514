"""Token kinds and the source span every token and AST node carries."""

from __future__ import annotations

import enum

from cqlindex.cql.frozen import Frozen, frozen


@frozen
class Span(Frozen):
    """Where a token or node is in the query text: 1-based line/column, and offsets."""

    line: int
    col: int
    start: int
    end: int

    def to(self, other: Span) -> Span:
        """The span from the start of ``self`` to the end of ``other``."""
        return Span(self.line, self.col, self.start, max(self.end, other.end))


class Kind(enum.Enum):
    """Token kinds. Keywords are WORD tokens; the parser decides what a word means."""

    WORD = "word"            # keyword or identifier
    PIECES = "pieces"        # piece designator: K, [RQ]a-h8, _e4, a1, [a1,b3], ., []
    NUMBER = "number"
    STRING = "string"
    OP = "operator"          # punctuation and operators, text in Token.text
    EOF = "end of query"


@frozen
class Token(Frozen):
    kind: Kind
    text: str
    span: Span
    # For PIECES: the piece letters (subset of "KQRBNPkqrbnp_") and the square mask.
    pieces: frozenset[str] = frozenset()
    squares: int = 0

    def is_op(self, *texts: str) -> bool:
        return self.kind is Kind.OP and self.text in texts

    def is_word(self, *texts: str) -> bool:
        return self.kind is Kind.WORD and self.text in texts
