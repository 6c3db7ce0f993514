"""The grammar of the parenthesised helpers (between, max, ...), pin, ray, and iteration over squares and pieces."""

from __future__ import annotations

from cqlindex.board.directions import basic as basic_directions
from cqlindex.cql import ast
from cqlindex.cql.kinds import NUMBER, SET, STRING, kind_of
from cqlindex.cql.reader import ANY_PIECE, Reader
from cqlindex.cql.tokens import Kind, Token
from cqlindex.filters.sets import DIRECTIONS


class SetsGrammar(Reader):
    """The sets family's grammar."""

    def parse_call(self, token: Token) -> ast.Node:
        if not self.at_op("("):
            if token.text == "makesquare" and self.peek().kind is Kind.STRING:
                arg = self.parse_additive()  # 'makesquare "a" + "2"': the string may be built with '+'
                if kind_of(arg, self.variables) not in (STRING, "any"):
                    raise self.error("'makesquare' needs a string or '(file rank)'", arg.span)
                return ast.Call(token.span.to(arg.span), "makesquare", (arg,))
            raise self.error(f"expected '(' after '{token.text}'", self.peek())
        self.next()
        args, end = self.read_arguments(token.text, commas=True)
        expected = {"between": 2, "makesquare": 2, "ancestor": 2, "descendant": 2, "lca": 2, "distance": 2}
        if token.text in expected and len(args) != expected[token.text]:
            raise self.error(f"'{token.text}' takes {expected[token.text]} arguments", token.span.to(end.span))
        if token.text in ("max", "min") and len(args) < 2:
            raise self.error(f"'{token.text}' takes at least 2 arguments", token.span.to(end.span))
        wanted = {"max": (NUMBER, SET), "min": (NUMBER, SET), "makesquare": (NUMBER,),
                  "between": (SET,)}.get(token.text)
        if wanted:
            for arg in args:
                if kind_of(arg, self.variables) not in (*wanted, "any"):
                    raise self.error(f"wrong kind of argument for '{token.text}'", arg.span)
        return ast.Call(token.span.to(end.span), token.text, tuple(args))

    def parse_pin(self, token: Token) -> ast.Node:
        params: list[tuple[str, ast.Node]] = []
        end = token.span
        while self.at_word("from", "through", "to"):
            word = self.next()
            value = self.parse_union()
            if kind_of(value, self.variables) not in (SET, "any"):
                raise self.error(f"'pin {word.text}' takes a set", value.span)
            params.append((word.text, value))
            end = value.span
        return ast.Pin(token.span.to(end), tuple(params))

    def parse_ray(self, token: Token) -> ast.Node:
        directions: list[str] = []
        while self.at_word(*DIRECTIONS):
            directions.append(self.next().text)
        self.expect_op("(", f"after '{token.text}'")
        args: list[ast.Node] = []
        while not self.at_op(")"):
            if self.peek().kind is Kind.EOF:
                raise self.error(f"missing ')' in '{token.text}'", self.peek())
            args.append(self.parse_filter())
        end = self.next()
        if len(args) < 2:
            raise self.error(f"'{token.text}' needs at least two sets", token.span.to(end.span))
        basic = [d for name in directions for d in basic_directions(name)]
        if len(basic) != len(set(basic)):
            raise self.error(f"'{token.text}' lists a direction twice", token.span.to(end.span))
        for arg in args:
            if kind_of(arg, self.variables) not in (SET, "any"):
                raise self.error(f"the arguments of '{token.text}' must be sets", arg.span)
        return ast.Ray(token.span.to(end.span), token.text, tuple(directions), tuple(args))

    def parse_iterate(self, token: Token | ast.Keyword, written_name: bool = False) -> ast.Node:
        every = False
        if self.at_word("all") and not written_name:
            self.next()
            every = True
        kind = token.name if isinstance(token, ast.Keyword) else token.text
        name = self.next()
        if name.kind is not Kind.WORD or name.text == "in":
            raise self.error(f"expected a variable name after '{kind}'", name)
        if kind == "piece" and not every and not written_name and self.at_op("="):
            return self.parse_piece_assignment(token, name)
        if not self.at_word("in"):
            raise self.error(f"expected 'in' after '{kind} {name.text}'", self.peek())
        self.next()
        domain = self.parse_iteration_domain(kind, name)
        previous = self.bind(name.text, SET)
        if kind == "piece" and previous is None:
            self.piece_variables.add(name.text)  # which '=' may not rebind ('piece T in A T = a')
        body = self.parse_filter()
        if kind == "square":
            self.unbind_after(name.text, previous)
        elif previous is not None:  # a piece variable is still known after its iteration
            self.variables[name.text] = previous
        return ast.Iterate(token.span.to(body.span), kind, every, name.text, domain, body)

    def parse_iteration_domain(self, kind: str, name: Token) -> ast.Node:
        """The ``S`` of ``square x in S``: a set; ``x`` may not already name a non-set variable."""
        if self.variables.get(name.text, SET) not in (SET, "any"):
            raise self.error(f"'{name.text}' is already a {self.variables[name.text]} variable", name)
        domain = self.parse_union()
        if kind_of(domain, self.variables) not in (SET, "any"):
            raise self.error(f"'{kind}' iterates over a set", domain.span)
        return domain

    def parse_piece_assignment(self, token: Token | ast.Keyword, name: Token) -> ast.Node:
        """``piece x = S``: bind a piece variable to the one piece on S."""
        op = self.next()
        if name.text in self.variables and name.text not in self.piece_variables:
            raise self.error(f"'{name.text}' is already a variable that is not a piece variable", name)
        value = self.parse_union()
        if kind_of(value, self.variables) not in (SET, "any"):
            raise self.error("a piece variable is assigned a set", value.span)
        self.piece_variables.add(name.text)
        self.variables[name.text] = SET
        return ast.Assign(token.span.to(value.span), name.text, op.text, value, piece=True)

    def parse_square_iteration(self, token: Token, every: bool) -> ast.Node:
        """CQL 6.2's ``x ∊ S body`` and ``∀ x ∊ S body`` (``square [all] x in S body``)."""
        name = token if not every else self.next()
        if every and name.kind is Kind.PIECES and name.pieces == ANY_PIECE and self.peek().kind is Kind.WORD \
                and self.peek().span.start == name.span.end:
            # '∀◭x∊S body' is 'piece all x in S body'
            iterate = self.parse_iterate(ast.Keyword(name.span, "piece"), written_name=True)
            assert isinstance(iterate, ast.Iterate)
            return ast.Iterate(token.span.to(iterate.span), "piece", True, iterate.var, iterate.domain, iterate.body)
        if name.kind is not Kind.WORD or not self.at_word("in"):
            raise self.error("expected 'x ∊ S' after '∀'", name)
        self.next()
        domain = self.parse_iteration_domain("square", name)
        previous = self.bind(name.text, SET)
        body = self.parse_filter()
        self.unbind_after(name.text, previous)
        return ast.Iterate(token.span.to(body.span), "square", every, name.text, domain, body)

    def parse_all(self, token: Token) -> ast.Node:
        return self.parse_square_iteration(token, every=True)
