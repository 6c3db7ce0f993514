"""The grammar of line and its constituents (path's own small language is in path_grammar.py beside this file)."""

from __future__ import annotations

import itertools

from cqlindex.cql import ast
from cqlindex.cql.kinds import NUMBER, kind_of
from cqlindex.cql.reader import Reader
from cqlindex.cql.tokens import Kind, Token
from cqlindex.filters import catalogue
from cqlindex.filters.sequences.path_grammar import parse_path as read_path


class SequencesGrammar(Reader):
    """The sequences family's grammar."""

    def parse_path(self, token: Token) -> ast.Node:
        return read_path(self, token)

    def parse_line(self, token: Token) -> ast.Node:
        params: set[str] = set()
        low = high = None
        while True:
            if self.peek().kind is Kind.WORD and catalogue.lookup(self.peek().text, "line"):
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
        if _written_number(node, self.variables):
            raise self.error("a line constituent cannot be a number", node.span)
        return self.parse_repetition(node)

    def parse_repetition(self, node: ast.Node) -> ast.Node:
        token = self.peek()
        if token.is_op("*", "+", "?"):
            self.next()
            low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}[token.text]
            return ast.Repeat(node.span.to(token.span), node, low, high)
        if token.is_op("{") and self.peek(1).is_op("+", "*") and self.peek(2).is_op("}"):
            self.next()
            low = 1 if self.next().text == "+" else 0
            end = self.next()
            return ast.Repeat(node.span.to(end.span), node, low, None)
        if token.is_op("{") and (self.peek(1).kind is Kind.NUMBER or self.peek(1).is_op(",")):
            closing = next((k for k in range(1, 5) if self.peek(k).is_op("}") or self.peek(k).kind is Kind.EOF), 4)
            parts = [self.peek(k) for k in range(closing + 1)]
            if any(p.is_op(",") for p in parts) and any(
                    a.span.end != b.span.start for a, b in itertools.pairwise(parts)):
                raise self.error("no spaces inside a repetition '{m,n}'", token)
            self.next()
            low = self.number("in '{m,n}'") if self.peek().kind is Kind.NUMBER else 0
            high: int | None = low
            if self.at_op(","):
                self.next()
                high = self.number("in '{m,n}'") if self.peek().kind is Kind.NUMBER else None
            end = self.expect_op("}", "to close '{m,n}'")
            return ast.Repeat(node.span.to(end.span), node, low, high)
        return node


_ARITHMETIC = frozenset("+-*/%")


def _written_number(node: ast.Node, variables: dict) -> bool:
    """Whether a line constituent is refused as a number, as the reference refuses it.

    The reference refuses three kinds of constituent only: a number written as such ('3', '-3',
    '{3}', '(3)'), a numeric variable alone ('v', but not '{v}': braces around a lone variable
    make a compound), and numeric arithmetic ('{3+4}', '-v'); it says the number was likely meant
    as a range. Every other numeric filter is a constituent that matches where it has a value:
    '#R', 'rotate90 2 Ra1', a nested 'line', 'sort line ...', '{3 4}'.
    """
    while isinstance(node, ast.Compound) and len(node.items) == 1 and not isinstance(node.items[0], ast.Variable):
        node = node.items[0]  # braces around one filter are that filter (the reference drops them)
    if isinstance(node, ast.Number):
        return True
    if isinstance(node, ast.Variable):
        return variables.get(node.name) == NUMBER
    if isinstance(node, (ast.Binary, ast.Unary)) and node.op in _ARITHMETIC:
        return kind_of(node, variables) == NUMBER
    return False
