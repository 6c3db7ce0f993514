"""The grammar of the Tier 3 filters cqlindex parses in full and then refuses."""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.cql.kinds import SET, STRING, kind_of
from cqlindex.cql.reader import Reader
from cqlindex.cql.tokens import Kind, Token

#: One-argument Tier 3 filters and the kinds their argument may have.
_TIER3_UNARY = {"int": (STRING,), "lowercase": (STRING,), "uppercase": (STRING,), "readfile": (STRING,),
                "tag": (STRING,), "typename": (SET,), "piecename": (SET,), "pieceid": (SET,)}


class RefusedGrammar(Reader):
    """The refused family's grammar."""

    def parse_tier3(self, token: Token) -> ast.Node:
        """String, file and control filters of Tier 3: parsed in full, then refused."""
        name = token.text
        if name in _TIER3_UNARY:
            wanted = _TIER3_UNARY[name]
            arg = self.parse_additive()
            if kind_of(arg, self.variables) not in (*wanted, "any"):
                raise self.error(f"'{name}' takes a {' or '.join(wanted)}", arg.span)
            return ast.Call(token.span.to(arg.span), name, (arg,))
        if name == "assert":
            arg = self.parse_compare()
            return ast.Call(token.span.to(arg.span), name, (arg,))
        if name in ("settag", "writefile"):
            self.expect_op("(", f"after '{name}'")
            args = []
            while not (self.at_op(")") or self.peek().kind is Kind.EOF):
                args.append(self.parse_filter())
            end = self.expect_op(")", f"to close '{name}('")
            if len(args) != 2 or any(kind_of(a, self.variables) not in (STRING, "any") for a in args):
                raise self.error(f"'{name}' takes two strings", token.span.to(end.span))
            return ast.Call(token.span.to(end.span), name, tuple(args))
        if name == "while":
            self.expect_op("(", "after 'while'")
            if self.at_op(")"):
                raise self.error("'while ()' needs a condition", self.peek())
            cond = self.parse_filter()
            self.expect_op(")", "to close 'while ('")
            body = self.parse_filter()
            return ast.Call(token.span.to(body.span), name, (cond, body))
        # currentmove: the move being examined, a move filter follows
        if not self.at_op("--", "[x]"):
            raise self.error("'currentmove' is followed by a move filter such as '--'", self.peek())
        move = self.parse_dash(None)
        return ast.Call(token.span.to(move.span), name, (move,))
