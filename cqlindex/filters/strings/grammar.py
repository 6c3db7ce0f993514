"""The grammar of CQL 6.1's string filters: the functions (``str``, ``int``, ``indexof`` ...), the
piece names, game tags by name, files, and the postfix ``x[i]``, ``x[i:j]`` and ``\\n`` forms.

Each function's argument is read at the level the reference engine reads it (the parse cases
in acceptance/parse-cases.jsonl and the reference's own parse trees fix them): ``tag`` takes its
name as a quoted string and nothing else (``tag "Termination" ~~ "Normal"`` matches the tag's
value); ``int``, ``ascii``, ``lowercase``, ``uppercase`` and ``readfile`` bind like ``#``, a
``~~`` included (``lowercase event ~~ "a"`` lowercases the match); the piece names take a set
of squares, the ``~~`` after it applying to the name (``typename K ~~ "King"``); ``removetag``
takes an arithmetic expression; ``str`` takes one filter or a parenthesised list.
"""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.cql.kinds import NUMBER, SET, STRING, kind_of
from cqlindex.cql.reader import Reader
from cqlindex.cql.tokens import Kind, Token

#: One-argument functions read up to '+ -', and the kinds their argument may have.
_ADDITIVE = {"removetag": (STRING,)}
#: One-argument functions that bind like '#'.
_TIGHT = {"int": (STRING,), "ascii": (STRING, NUMBER), "lowercase": (STRING,), "uppercase": (STRING,),
          "readfile": (STRING,)}
#: One-argument functions of a set: a '~~' after the set is the name's, not the set's.
_SQUARES = {"typename": (SET,), "piecename": (SET,), "pieceid": (SET,)}
#: Functions of a parenthesised pair of strings.
_PAIRS = ("indexof", "settag", "writefile")


class StringsGrammar(Reader):
    """The strings family's grammar."""

    def parse_string_function(self, token: Token) -> ast.Node:
        name = token.text
        if name == "tag":  # the reference's TagNode: a name, never a computed string
            if self.peek().kind is not Kind.STRING:
                raise self.error("'tag' takes the tag's name as a quoted string: tag \"Termination\"", self.peek())
            value = self.next()
            return ast.Call(token.span.to(value.span), name, (ast.String(value.span, value.text),))
        if name in _ADDITIVE or name in _TIGHT or name in _SQUARES:
            if name in _SQUARES:
                self.match_barred += 1
                try:
                    arg = self.parse_union()
                finally:
                    self.match_barred -= 1
            else:
                arg = self.parse_additive() if name in _ADDITIVE else self.parse_unary()
            wanted = _ADDITIVE.get(name) or _TIGHT.get(name) or _SQUARES[name]
            if kind_of(arg, self.variables) not in (*wanted, "any"):
                raise self.error(f"'{name}' takes a {' or a '.join(wanted)}", arg.span)
            return ast.Call(token.span.to(arg.span), name, (arg,))
        if name in _PAIRS:
            self.expect_op("(", f"after '{name}'")
            args, end = self.read_arguments(name)
            if len(args) != 2 or any(kind_of(a, self.variables) not in (STRING, "any") for a in args):
                raise self.error(f"'{name}' takes two strings: {name}(\"...\" \"...\")", token.span.to(end.span))
            return ast.Call(token.span.to(end.span), name, tuple(args))
        if name == "removecomment":
            return ast.Call(token.span, name, ())
        # str: one filter, or a parenthesised list whose texts are joined ('str("x is " x)')
        if self.at_op("("):
            self.next()
            if self.at_op(")"):
                raise self.error("'str()' needs something to write", self.peek())
            args, end = self.read_arguments(name)
            return ast.Call(token.span.to(end.span), name, tuple(args))
        arg = self.parse_unary()
        return ast.Call(token.span.to(arg.span), name, (arg,))

    def parse_capture(self, token: Token) -> ast.Node:
        """``\\1``: what group 1 of the last ``~~`` match caught; ``\\-1``: where it starts."""
        text = token.text[1:]
        return ast.Capture(token.span, int(text.lstrip("-")), text.startswith("-"))

    def parse_indexing(self, target: ast.Node) -> ast.Node:
        """``x[i]`` and ``x[i:j]`` (either bound may be left out) after a string."""
        if kind_of(target, self.variables) not in (STRING, "any"):
            raise self.error("only a string can be indexed with '[...]'", target.span)
        self.next()
        self.colon_barred += 1  # the ':' of a slice, not the position operator
        try:
            start = None if self.at_op(":") else self._index_bound()
            is_slice = self.at_op(":")
            end = None
            if is_slice:
                self.next()
                end = None if self.at_op("]") else self._index_bound()
        finally:
            self.colon_barred -= 1
        if start is None and not is_slice:
            raise self.error("'[]' after a string needs an index", self.peek())
        closing = self.expect_op("]", "to close the index '['")
        return ast.Index(target.span.to(closing.span), target, start, end, is_slice)

    def _index_bound(self) -> ast.Node:
        if self.peek().kind is Kind.EOF:
            raise self.error(f"expected an index, found {self.describe(self.peek())}", self.peek())
        bound = self.parse_additive()
        if kind_of(bound, self.variables) not in (NUMBER, "any"):
            raise self.error("an index is a number", bound.span)
        return bound
