"""The grammar of sort, comment, message and ///."""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.cql.kinds import ANY, NUMBER, SET, STRING, kind_of
from cqlindex.cql.reader import Reader
from cqlindex.cql.tokens import Kind, Span, Token


class OutputGrammar(Reader):
    """The output family's grammar."""

    def parse_sort(self, token: Token) -> ast.Node:
        """``sort [quiet] [min | max "doc"] ["doc"] F``, in that order, as the reference reads it.

        After ``min`` or ``max`` a nonempty documentation string is required (so that the word is
        not taken for the min/max function). The reference sorts ``sort max "doc" F`` as it sorts
        ``min``, smallest value first (its direction for both keywords): so does cqlindex.
        ``quiet`` only silences the sort's comment, which cqlindex does not write.
        """
        if self.at_word("quiet"):
            self.next()
        minimum = False
        if self.at_word("min", "max"):
            word = self.next()
            minimum = True
            if self.at_word("quiet"):
                raise self.error("'quiet' must come first after 'sort'", self.peek())
            if self.peek().kind is not Kind.STRING or self.peek().text in ('""', ""):
                raise self.error(f"'sort {word.text}' needs a documentation string next, as in "
                                 f"'sort {word.text} \"pieces\" #A'", self.peek())
        doc = self.next().text if self.peek().kind is Kind.STRING else None
        if self.at_word("matchcount"):
            raise self.error("'sort matchcount' belongs in the cql(...) header", self.peek())
        body = self.parse_filter()
        if isinstance(body, ast.Number):
            raise self.error("'sort' needs a filter, not a constant", body.span)
        if not self.sortable(body):
            raise self.error("'sort' needs a filter with a number, a set or a string to sort by", body.span)
        if isinstance(body, ast.Sort) and isinstance(body.body, ast.Echo):
            raise self.error("an 'echo' can be sorted only once", token)  # the reference: "echo already sort"
        return ast.Sort(token.span.to(body.span), doc, minimum, body)

    def sortable(self, node: ast.Node) -> bool:
        """Whether ``node`` has a value the reference sorts by: a number, a set or a string (a
        comparison's is its left side's, a list's its last filter's, an echo's its body's; a
        transform of a string has none)."""
        while isinstance(node, (ast.Compare, ast.Compound, ast.Echo, ast.Sort)):
            node = node.operands[0] if isinstance(node, ast.Compare) else \
                node.items[-1] if isinstance(node, ast.Compound) else node.body  # an echo or a sort
        if isinstance(node, ast.Control) and node.name == "try":
            return True  # the reference writes 'try' as a path, which counts
        if isinstance(node, ast.Transform) and not node.count and node.low is None:
            return kind_of(node.arg, self.variables) in (NUMBER, SET, ANY)
        return kind_of(node, self.variables) in (NUMBER, SET, STRING, ANY)

    def parse_output(self, token: Token) -> ast.Node:
        """``comment (args)``, ``comment "text"``, ``message [quiet] (args)``: they always match."""
        quiet = False
        if token.text == "message" and self.at_word("quiet"):
            self.next()
            quiet = True
        if self.at_op("("):
            self.next()
            args, closing = self.read_arguments(token.text)
            end = closing.span
        else:
            args = [self.parse_compare()]  # 'comment "q" == "w"' comments on the comparison
            end = args[0].span
        return ast.Output(token.span.to(end), token.text, quiet, tuple(args))

    def parse_slash_comment(self, token: Token) -> ast.Node:
        """``/// text``: the rest of the line is a comment for the output."""
        end = self.text.find("\n", token.span.end)
        end = len(self.text) if end < 0 else end
        text = self.text[token.span.end:end].strip()
        if not text:
            raise self.error("'///' needs the text of the comment after it on the same line", token)
        while self.peek().kind is not Kind.EOF and self.peek().span.start < end:
            self.next()
        span = Span(token.span.line, token.span.col, token.span.start, end)
        return ast.Output(span, "comment", False, (ast.String(span, text),))
