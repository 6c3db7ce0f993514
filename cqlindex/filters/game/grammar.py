"""The grammar of game tags and fen."""

from __future__ import annotations

import re

from cqlindex.cql import ast
from cqlindex.cql.reader import Reader
from cqlindex.cql.tokens import Kind, Token
from cqlindex.filters import catalogue
from cqlindex.filters.game.hhdb import read_hhdb
from cqlindex.filters.position.similar import read_similarposition

_FEN_RANK_RE = re.compile(r"[KQRBNPkqrbnpAa._1-8]+")


class GameGrammar(Reader):
    """The game family's grammar."""

    def parse_hhdb(self, token: Token) -> ast.Node:
        return read_hhdb(self, token)

    def parse_similarposition(self, token: Token) -> ast.Node:
        return read_similarposition(self, token)

    def parse_game_filter(self, token: Token) -> ast.Node:
        name = token.text
        if name == "result":
            start = self.peek()
            text = self.result_text()
            return ast.GameFilter(token.span.to(start.span), name, (ast.String(start.span, text),))
        args: list[ast.Node] = []
        if name in ("player", "elo") and self.at_word("white", "black"):
            side = self.next()
            args.append(ast.Keyword(side.span, side.text))
        if name in ("player", "event", "site", "date", "eco", "eventdate", "hascomment", "originalcomment") \
                and self.peek().kind is Kind.STRING:
            # 'event "Lon"' searches the text; without the string it is the text ('event ~~ "Lon"')
            value = self.next()
            args.append(ast.String(value.span, value.text))
        return ast.GameFilter(token.span.to(args[-1].span if args else token.span), name, tuple(args))

    def parse_fen(self, token: Token) -> ast.Node:
        if self.peek().kind is not Kind.STRING:
            return ast.GameFilter(token.span, "fen", ())  # the current position's FEN, a string
        value = self.next()
        ranks = value.text.split(" ")[0].split("/")
        if len(ranks) < 8 or any(not _FEN_RANK_RE.fullmatch(rank) or sum(
                int(c) if c.isdigit() else 1 for c in rank) != 8 for rank in ranks[:8]):
            raise self.error("not a FEN board: eight ranks of eight squares, separated by '/'", value)
        return ast.GameFilter(token.span.to(value.span), "fen", (ast.String(value.span, value.text),))
