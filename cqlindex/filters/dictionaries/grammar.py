"""The grammar of dictionaries: declarations, ``X[key]`` and ``X[key] = value``.

The reference parser's verdicts (acceptance/parse-cases.jsonl, groups ``filter_dictionary`` and
``filter_local``) fix the rules: a dictionary's keys and values are strings, sets or numbers
(positions too in a ``local`` dictionary), never filters without a value; the first key and
the first value stored fix their kinds for the rest of the query. ``X[a5]`` is a piece
designator written against a name (the lexer reads it so, as the reference does), while
``X[ a5 ]`` is a key.
"""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.cql.kinds import ANY, LOGICAL, NUMBER, POSITION, SET, STRING, kind_of
from cqlindex.cql.reader import Reader
from cqlindex.cql.tokens import Kind, Token

_PLAIN = (STRING, SET, NUMBER)


class DictionariesGrammar(Reader):
    """The dictionaries family's grammar."""

    def parse_dictionary(self, token: Token) -> ast.Node:
        """``[local] dictionary X``, maybe followed at once by ``[key] [= value]``."""
        local = token.text == "local"
        if local:
            if not self.at_word("dictionary"):
                raise self.error("'local' declares a dictionary: write 'local dictionary X'", self.peek())
            self.next()
        name = self.next()
        if name.kind is not Kind.WORD or name.text in self.KEYWORDS:
            raise self.error("expected the dictionary's name after 'dictionary'", name)
        if name.text in self.variables and name.text not in self.dictionaries:
            raise self.error(f"'{name.text}' is already a variable that is not a dictionary", name)
        entry = self.dictionaries.setdefault(name.text, [local, None, None])
        entry[0] = entry[0] or local
        self.variables[name.text] = ANY
        declared = ast.Dictionary(token.span.to(name.span), name.text, local)
        if not self.at_op("["):
            return declared
        return ast.Compound(declared.span, (declared, self.parse_subscript(name)))

    def parse_subscript(self, name: Token) -> ast.Node:
        """``X[key]`` or ``X[key] = value`` (the '[' is next)."""
        local, key_kind, value_kind = self.dictionaries[name.text]
        self.next()
        key = self.parse_filter()
        end = self.expect_op("]", f"to close '{name.text}['")
        key_kind = self._entry_kind(key, key_kind, local, "key")
        self.dictionaries[name.text][1] = key_kind
        if not self.at_op("="):
            return ast.Subscript(name.span.to(end.span), name.text, key, value_kind or ANY)
        self.next()
        value = self.parse_additive()
        value_kind = self._entry_kind(value, value_kind, local, "value")
        self.dictionaries[name.text][2] = value_kind
        return ast.SubscriptAssign(name.span.to(value.span), name.text, key, value)

    def _entry_kind(self, node: ast.Node, known: str | None, local: bool, what: str) -> str | None:
        """The kind of a key or value, checked against what the dictionary already holds."""
        kind = kind_of(node, self.variables)
        allowed = (*_PLAIN, POSITION) if local else _PLAIN
        if kind == LOGICAL or (kind != ANY and kind not in allowed):
            where = "" if local else " (positions only in a local dictionary)"
            raise self.error(f"a dictionary {what} is a string, a set or a number{where}", node.span)
        if kind == ANY:
            return known
        if known is not None and kind != known:
            raise self.error(f"this dictionary's {what}s are {known}s, not {kind}s", node.span)
        return kind
