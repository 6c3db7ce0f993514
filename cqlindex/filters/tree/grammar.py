"""The grammar of child, position and find: other positions of the game."""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.cql.kinds import NUMBER, kind_of
from cqlindex.cql.reader import Reader
from cqlindex.cql.tokens import Token

#: The reference's 'count' range: any count of positions a game can have.
COUNT_ALL = 100000


class TreeGrammar(Reader):
    """The tree family's grammar."""

    def parse_child(self, token: Token) -> ast.Node:
        if self.at_op("(") and self.peek().span.start == token.span.end:
            self.next()
            index = self.parse_filter()
            end = self.expect_op(")", "to close 'child('")
            return ast.ChildN(token.span.to(end.span), "child", index)
        return ast.Keyword(token.span, "child")

    def parse_position(self, token: Token) -> ast.Node:
        # The number binds like unary minus ('position positionid+inc'), but a ':' after it
        # belongs to the position: 'position 0 : F'.
        self.colon_barred += 1
        try:
            index = self.parse_additive()
        finally:
            self.colon_barred -= 1
        if kind_of(index, self.variables) not in (NUMBER, "any"):
            raise self.error("'position' takes a position id (a number)", index.span)
        return ast.ChildN(token.span.to(index.span), "position", index)

    def parse_find(self, token: Token) -> ast.Node:
        quiet = backward = find_all = False
        low = high = None
        while True:
            if self.at_word("quiet"):
                self.next()
                quiet = True
            elif self.at_op("<--"):
                self.next()
                backward = True
            elif self.at_word("all"):
                self.next()
                find_all = True
            elif self.at_word("count") and "count" not in self.variables and low is None:
                # 'find count F' (snake-old.cql): to the reference 'count' is a range holding every
                # count, so this is how many positions F holds at, and it matches at 0 too
                self.next()
                low, high = -COUNT_ALL, COUNT_ALL
            elif self.at_range_bound() and low is None:
                low = high = self.range_bound()
                if self.at_range_bound():
                    high = self.range_bound()
            else:
                break
        if find_all and low is not None:
            raise self.error("'find' takes 'all' or a range, not both", token)
        body = self.parse_filter()
        return ast.Find(token.span.to(body.span), find_all, backward, quiet, low, high, body)
