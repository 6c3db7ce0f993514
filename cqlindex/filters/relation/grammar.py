"""The grammar of CQL 5's ``relation`` (reference/relation.md, section 1.1).

``relation`` reads target filters until its first parameter, then parameters as long as one
follows: ``(`` opening a parameter word, or an echo keyword. So ``relation (check) (mismatch 0)``
has the target filter ``check``, and whatever follows the last parameter belongs to the
enclosing filter again. Every error points at the parameter it is about.
"""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.cql.kinds import SET, kind_of

from cqlindex.cql.reader import ANY_PIECE, ASSIGN_OPS, Reader
from cqlindex.cql.tokens import Kind, Token
from cqlindex.filters.relation import ECHO_KEYWORDS, TREE_PARAMS

_ECHOES = frozenset(word for word, _ in ECHO_KEYWORDS)
_SQUARE_ITEMS = ("sourcesquares", "targetsquares", "match", "mismatch")
_TREE = {word: ranged for word, ranged, _ in TREE_PARAMS}
_PARAM_WORDS = frozenset(("tomove", *_SQUARE_ITEMS, *_TREE))
DEFAULT_RANGE = (0, 64)
ANY_SQUARE_CONTENT = ANY_PIECE | {"_"}
_LIGHT, _DARK = 0x55AA55AA55AA55AA, 0xAA55AA55AA55AA55  # python-chess's BB_LIGHT_SQUARES, BB_DARK_SQUARES


class RelationGrammar(Reader):
    """The relation family's grammar."""

    def parse_relation(self, token: Token) -> ast.Node:
        if token.text in self.variables or self.at_op(*ASSIGN_OPS):
            return self.parse_variable(token)  # CQL 6 has no 'relation': there it can name a variable
        targets: list[ast.Node] = []
        while not self._at_relation_param():
            if self.peek().kind is Kind.EOF or self.at_op(")", "}"):
                raise self.error("expected a relation parameter such as '(mismatch 0)' or "
                                 "'echoflip (mismatch 0)' after 'relation'", self.peek())
            targets.append(self.parse_filter())
        params: list[ast.RelationParam] = []
        while self._at_relation_param():
            params.append(self._relation_param())
        return ast.Relation(token.span.to(params[-1].span), tuple(targets), tuple(params))

    def _at_relation_param(self) -> bool:
        token = self.peek()
        if token.kind is Kind.WORD and token.text in _ECHOES:
            return True
        following = self.peek(1)
        return token.is_op("(") and (following.is_op(")") or (following.kind is Kind.WORD
                                                               and following.text in _PARAM_WORDS))

    def _relation_param(self) -> ast.RelationParam:
        echo = None
        if self.peek().kind is Kind.WORD:
            keyword = self.next()
            echo = keyword.text
            if not (self.at_op("(") and self.peek(1).is_word(*_SQUARE_ITEMS)):
                raise self.error(f"'{echo}' takes a square parameter such as '(mismatch 0)' "
                                 "(sourcesquares, targetsquares, match, mismatch)", self.peek())
        start = self.expect_op("(", "to open a relation parameter")
        word = self.peek()
        if word.is_op(")"):
            raise self.error("empty relation parameter '()': write e.g. '(mismatch 0)' or '(tomove match)'",
                             start.span.to(word.span))
        if word.is_word("tomove"):
            self.next()
            value = self.next()
            if not value.is_word("match", "mismatch"):
                raise self.error("expected 'match' or 'mismatch' after 'tomove'", value)
            end = self.expect_op(")", "to close '(tomove ...'")
            return ast.RelationParam(start.span.to(end.span), None, value.text, None, None, DEFAULT_RANGE,
                                     DEFAULT_RANGE)
        if word.kind is Kind.WORD and word.text in _TREE:
            self.next()
            bounds = self._relation_range(word) if _TREE[word.text] else (0, 0)
            if word.text == "lcasubstring" and bounds[0] < 1:
                raise self.error("'lcasubstring' takes a range whose minimum is at least 1 (a common run of moves)",
                                 word)
            end = self.expect_op(")", f"to close '({word.text} ...'")
            return ast.RelationParam(start.span.to(end.span), echo, None, None, None, DEFAULT_RANGE, DEFAULT_RANGE,
                                     word.text, bounds)
        items: dict[str, object] = {}
        while not self.at_op(")"):
            item = self.peek()
            if not item.is_word(*_SQUARE_ITEMS):
                raise self.error("expected sourcesquares, targetsquares, match or mismatch in a square parameter"
                                 + (" (tomove is a parameter of its own: '(tomove match)')"
                                    if item.is_word("tomove") else ""), item)
            self.next()
            if item.text in items:
                raise self.error(f"'{item.text}' is given twice in one square parameter", item)
            if item.text.endswith("squares"):
                squares = self.parse_union()
                if kind_of(squares, self.variables) not in (SET, "any"):
                    raise self.error(f"'{item.text}' takes a set of squares", squares.span)
                items[item.text] = squares
            else:
                items[item.text] = self._relation_range(item)
        end = self.next()
        return ast.RelationParam(start.span.to(end.span), echo, None, items.get("sourcesquares"),
                                 items.get("targetsquares"), items.get("match", DEFAULT_RANGE),
                                 items.get("mismatch", DEFAULT_RANGE))

    def _relation_range(self, word: Token) -> tuple[int, int]:
        """``N`` (N..N) or ``M N`` (M <= N), non-negative."""
        first = self.peek()
        if first.kind is not Kind.NUMBER:
            raise self.error(f"expected a number or a range 'M N' after '{word.text}'", first)
        low = high = int(self.next().text)
        if self.peek().kind is Kind.NUMBER:
            second = self.next()
            high = int(second.text)
            if high < low:
                raise self.error(f"'{word.text} {low} {high}': the range's low end is above its high end",
                                 first.span.to(second.span))
        return low, high

    # -- the CQL 5 set words of seed 001's chameleon-echo query --------------------------------
    def at_cql5_on(self) -> bool:
        """At CQL 5's infix ``on`` (``K on darksquares``: the intersection), unless 'on' names a variable."""
        following = self.peek(1)
        return self.at_word("on") and "on" not in self.variables and (
            following.kind in (Kind.WORD, Kind.PIECES) or following.is_op("(", "~"))

    def parse_cql5_squares(self, token: Token) -> ast.Node:
        """CQL 5's ``lightsquares`` / ``darksquares``: the constant set of light (dark) squares."""
        if token.text in self.variables or self.at_op(*ASSIGN_OPS):
            return self.parse_variable(token)
        return ast.Pieces(token.span, ANY_SQUARE_CONTENT, _LIGHT if token.text == "lightsquares" else _DARK,
                          token.text)
