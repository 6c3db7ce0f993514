"""The grammar of transform filters (and the refused notransform, str)."""

from __future__ import annotations

import dataclasses

from cqlindex.cql import ast
from cqlindex.cql.reader import Reader
from cqlindex.cql.tokens import Kind, Token

_ALL = (1 << 64) - 1


def _lone(node: ast.Node) -> ast.Node:
    """The one filter inside braces (``{F}`` is F to the reference), else ``node``."""
    while isinstance(node, ast.Compound) and len(node.items) == 1:
        node = node.items[0]
    return node


class TransformsGrammar(Reader):
    """The transforms family's grammar."""

    def parse_transform(self, token: Token) -> ast.Node:
        """``T [count | low [high]] F``: a range after the name makes a count that must lie in it (seed 000).

        As the reference reads it: ``count`` is a range of its own (no other follows it), a
        bound is read by :meth:`Reader.range_constituent_width` (``flip 5 <= sort ...`` is flip
        of the comparison), and ``reversecolor`` takes neither. A transform without a range whose
        argument is a transform with one (``flipcolor rotate90 4 F``, braces around it too) is one
        orbit of the compositions, counted together, as the reference composes them.
        """
        count = False
        low = high = None
        if self.at_word("count"):
            if token.text == "reversecolor":
                raise self.error("'reversecolor' has one member: 'count' does not apply", self.peek())
            self.next()
            count = True
        elif token.text != "reversecolor" and self.range_constituent_width():
            low = high = self.range_constituent()
            if self.range_constituent_width():
                high = self.range_constituent()
        arg = self.parse_filter()
        if token.text == "rotate45":
            named = next((p for p in ast.walk(arg) if isinstance(p, ast.Pieces) and p.squares != _ALL), None)
            if named is not None:
                raise self.error("'rotate45' cannot be applied to particular squares", named.span)
        span = token.span.to(arg.span)
        inner = _lone(arg)
        if not count and low is None and isinstance(inner, ast.Transform) and inner.name != "notransform" \
                and (inner.count or inner.low is not None):
            return dataclasses.replace(inner, span=span, then=(*inner.then, token.text))
        return ast.Transform(span, token.text, count, arg, low, high)

    def parse_currenttransform(self, token: Token) -> ast.Node:
        """``currenttransform``: no argument; the rewrite of transforms fills in which ones apply."""
        return ast.CurrentTransform(token.span)

    def parse_unsupported_prefix(self, token: Token) -> ast.Node:
        """``notransform F`` and ``str F`` / ``str(F ...)``."""
        if token.text == "str":
            if self.at_op("("):
                self.next()
                args = []
                while not (self.at_op(")") or self.peek().kind is Kind.EOF):
                    args.append(self.parse_filter())
                end = self.expect_op(")", "to close 'str('")
                if not args:
                    raise self.error("'str()' needs a filter", end)
                return ast.Call(token.span.to(end.span), "str", tuple(args))
            arg = self.parse_primary()
            return ast.Call(token.span.to(arg.span), "str", (arg,))
        arg = self.parse_filter()
        return ast.Transform(token.span.to(arg.span), token.text, False, arg)
