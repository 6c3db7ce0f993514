"""The grammar of line and its constituents (path's own small language is in path_grammar.py beside this file)."""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.cql.kinds import NUMBER, kind_of
from cqlindex.cql.reader import Reader
from cqlindex.cql.tokens import Kind, Token
from cqlindex.filters import catalogue
from cqlindex.filters.sequences.path_grammar import parse_path as read_path, written_number


class SequencesGrammar(Reader):
    """The sequences family's grammar."""

    def parse_path(self, token: Token) -> ast.Node:
        return read_path(self, token)

    def parse_line(self, token: Token) -> ast.Node:
        params: set[str] = set()
        low = high = None
        while True:
            if self.peek().kind is Kind.WORD and catalogue.lookup(self.peek().text, "line"):
                if self.peek().text in params:
                    raise self.error(f"'{self.peek().text}' twice in one 'line'", self.peek())
                params.add(self.next().text)
            elif self.at_number() and low is None:
                low = high = self.number("")
                if self.at_number():
                    high = self.number("")
            else:
                break
        if {"primary", "secondary"} <= params:
            raise self.error("'primary' and 'secondary' exclude each other", token)
        if not self.at_op("-->", "<--"):
            raise self.error("expected '-->' or '<--' after 'line'", self.peek())
        backward = self.peek().text == "<--"
        items: list[ast.Node] = []
        outer_direction, self.line_backward = self.line_backward, backward
        self.in_line += 1
        try:
            while self.at_op("-->", "<--"):
                arrow = self.next()
                if (arrow.text == "<--") != backward:
                    raise self.error("a line cannot mix '-->' and '<--'", arrow)
                items.append(self.parse_constituent())
        finally:
            self.in_line -= 1
            self.line_backward = outer_direction
        return ast.Line(token.span.to(items[-1].span), backward, frozenset(params), low, high, tuple(items))

    def parse_constituent(self) -> ast.Node:
        start = self.peek()
        if start.is_op("("):
            self.next()
            inner: list[ast.Node] = [self.parse_constituent_body()]
            while self.at_op("-->", "<--"):
                arrow = self.next()
                if (arrow.text == "<--") != self.line_backward:
                    raise self.error("a line cannot mix '-->' and '<--'", arrow)
                inner.append(self.parse_constituent())
            end = self.expect_op(")", "to close the '(' group of the line")
            node: ast.Node = inner[0] if len(inner) == 1 else ast.Sequence(start.span.to(end.span), tuple(inner))
        else:
            node = self.parse_constituent_body()
        return self.parse_repetition(node)

    def parse_constituent_body(self) -> ast.Node:
        node = self.parse_filter()
        if written_number(node, self.variables):
            raise self.error("a line constituent cannot be a number", node.span)
        return self.parse_repetition(node)

    def parse_repetition(self, node: ast.Node, path: bool = False) -> ast.Node:
        """The repetitions written after a line constituent, each applying to what precedes it.

        As the reference reads them: ``*``, ``+`` and ``?`` cannot apply to what may match no
        position at all (``k**``, ``k*+``, ``k?*`` are errors), nor ``+`` or ``{m,n}`` to a ``+``
        (``k{3}++``), while ``k{3}+*`` is ``((k{3})+)*``. In a ``path`` (``path=True``) one
        repetition is read, the one path_grammar.py found: a path has rules of its own.
        """
        plus = False
        while True:
            token = self.peek()
            if path and token.is_op("*", "+", "?"):
                low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}[token.text]
                return ast.Repeat(node.span.to(self.next().span), node, low, high)
            if path and token.is_op("{") and self.peek(1).is_op("+", "*") and self.peek(2).is_op("}"):
                self.next()
                low = 1 if self.next().text == "+" else 0
                return ast.Repeat(node.span.to(self.next().span), node, low, None)
            if path and token.is_op("{"):
                return self._counted_repetition(node, check=False)
            if token.is_op("*", "+", "?") and (token.text == "?" or self.is_wildcard()):
                low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}[token.text]
                written = f"'{token.text}'"
            elif self.at_repetition() and self.peek(1).is_op("+", "*"):
                low, high = (1, None) if self.peek(1).text == "+" else (0, None)
                written = f"'{{{self.peek(1).text}}}'"
            elif self.at_repetition():
                node = self._counted_repetition(node, plus=plus)
                plus = False
                continue
            else:
                return node
            if _may_match_nothing(node) or (plus and low == 1):
                raise self.error(f"{written} cannot repeat a constituent that "
                                 + ("is already repeated with '+'" if plus and low == 1 else "may match no position"),
                                 token)
            if token.is_op("{"):
                self.next()
                self.next()
            end = self.next()
            plus = (low, high) == (1, None)
            node = ast.Repeat(node.span.to(end.span), node, low, high)

    def _counted_repetition(self, node: ast.Node, plus: bool = False, check: bool = True) -> ast.Node:
        """``{n}``, ``{m,n}``, ``{,n}``, ``{m,}`` after ``node`` (:meth:`at_repetition` found it); ``check``:
        refuse it after a ``+`` or a constituent that may match no position, as a line does."""
        token = self.peek()
        if check and (plus or _may_match_nothing(node)):
            raise self.error("'{m,n}' cannot repeat a '+' nor a constituent that may match no position", token)
        if self.peek(1).is_op(",") and self.peek(2).is_op("}"):
            raise self.error("an empty repetition '{,}': write '*'", token)
        self.next()
        low = self.number("in '{m,n}'") if self.peek().kind is Kind.NUMBER else 0
        high: int | None = low
        if self.at_op(","):
            self.next()
            high = self.number("in '{m,n}'") if self.peek().kind is Kind.NUMBER else None
        end = self.expect_op("}", "to close '{m,n}'")
        return ast.Repeat(node.span.to(end.span), node, low, high)


def _may_match_nothing(node: ast.Node) -> bool:
    """Whether a constituent can match an empty run of positions (a ``*``, a ``?``, a ``{0,n}``,
    or a group of such): the reference refuses to repeat it."""
    if isinstance(node, ast.Repeat):
        return node.low == 0 or _may_match_nothing(node.arg)
    if isinstance(node, ast.Sequence):
        return all(_may_match_nothing(item) for item in node.items)
    return False
