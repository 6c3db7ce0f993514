"""The part of the parser that every grammar function shares: tokens, scope, errors.

Kept apart from the precedence levels (:mod:`cqlindex.cql.parser`) so that grammar written
elsewhere can name its argument's type without importing the module that dispatches to it.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod

from cqlindex.cql import ast
from cqlindex.cql.kinds import LOGICAL, NUMBER, compared_value_kind, kind_of
from cqlindex.cql.lexer import tokenize
from cqlindex.cql.tokens import Kind, Span, Token
from cqlindex.errors import CqlSyntaxError, CqlUnsupportedError

ANY_PIECE = frozenset("KQRBNPkqrbnp")
ASSIGN_OPS = ("=", "+=", "-=", "*=", "/=", "%=", "=?")
_RESULT_RE = re.compile(r"(1-0|0-1|1/2-1/2|\*)")
#: The text of the end mark a blank line makes at the top level of a path (see Reader.peek).
BLANK_LINE = "<blank line>"
_OPENING, _CLOSING = ("(", "{", "["), (")", "}", "]")
#: The operators a range constituent may stand before (the reference's brackets, line arrows and dashes).
_RANGE_FOLLOWERS = frozenset({"(", ")", "{", "}", "-->", "<--", "--", "[x]"})


class Reader(ABC):
    """The token cursor, the variables in scope and the error helpers of one query's parse.

    Each family's grammar (``cqlindex/filters/<family>/grammar.py``) is a class of ``parse_*``
    methods named by the catalogue's declarations, mixed into the parser; it and
    :mod:`cqlindex.filters.sequences.path_grammar` work on a ``Reader`` and call back into the
    precedence levels (and the other families' grammar) declared abstract below, which
    :class:`cqlindex.cql.parser.Parser` has. So they need not import the parser, which imports them.
    """

    def __init__(self, text: str, source: str = "<query>") -> None:
        self.text = text
        self.source = source
        self.tokens = tokenize(text, source)
        self.i = 0
        self.variables: dict[str, str] = {}
        self.in_line = 0
        self.line_backward = False
        # Piece variables (``piece x = S``): a plain '=' may not rebind them.
        self.piece_variables: set[str] = set()
        self.lasting_variables: dict[str, str] = {}  # persistent and atomic variables
        # CQL functions are macros: a call parses the body's tokens with the parameters standing
        # for the arguments, so the body's type errors show at the call, as in the reference.
        self.functions: dict[str, tuple[tuple[str, ...], list[Token]]] = {}
        self.bindings: list[dict[str, ast.Node]] = []
        self.dictionaries: dict[str, list] = {}  # name -> [local, key kind, value kind] (None: not yet known)
        self.fresh_names = 0  # variables made for the arguments of calls (see function_grammar)
        self.assigning: list[str] = []  # names whose assigned value is being read, innermost last
        # Names an iteration or an echo bound, once its body has ended: the reference still knows
        # them (so they parse), but reading one there finds no value, which its run refuses.
        self.ended: dict[str, str] = {}
        self.unbound_uses: list[Span] = []
        # Valid CQL that cqlindex does not run: reported only once the whole query has parsed, so
        # a syntax error anywhere still wins (as it does in the reference engine).
        self.deferred: list[CqlUnsupportedError] = []
        self.colon_barred = 0  # inside 'position N', whose ':' is the position's
        self.match_barred = 0  # inside the set argument of 'typename' & co, whose '~~' is outside
        self.in_dash_target = 0  # inside '--(...)', where o-o, o-o-o, castle and enpassant are filters
        # The reference lexer makes a blank line at the top level of a path (outside any bracket
        # opened after 'path') a mark that ends whatever is being read, as the end of the query
        # would: 'path -- if check <blank line> mate' is an 'if' without its consequent. The
        # bracket depth of each path being read, innermost last, and the depth now (see peek).
        self.path_depths: list[int] = []
        self.depth = 0
        # Likewise the depth in braces: outside braces opened since 'path', '+' and '*' are
        # repetitions ('path -- check + mate'), never arithmetic (see Parser.is_wildcard).
        self.path_braces: list[int] = []
        self.braces = 0

    def value_kind(self, node: ast.Node) -> str:
        """The kind of value ``node`` has where a value is wanted (an operand, an assignment): as
        :func:`kind_of`, but a comparison has its left side's value in CQL 6.2, which cqlindex
        does not run yet (noted, and refused once the query has parsed)."""
        kind = kind_of(node, self.variables)
        if kind == LOGICAL and (compared := compared_value_kind(node, self.variables)) != LOGICAL:
            self.defer_unsupported("the value of a comparison (its left side's)", node.span)
            return compared
        return kind

    def bind(self, name: str, kind: str) -> str | None:
        """Give ``name`` the ``kind`` of an iteration's or echo's variable for its body; returns the
        kind it had before (None: it was no variable), for :meth:`unbind_after`."""
        previous = self.variables.get(name)
        self.variables[name] = kind
        return previous

    def unbind_after(self, name: str, previous: str | None) -> None:
        """The body that :meth:`bind` bound ``name`` for has ended: back to its kind before, or
        remembered as a name that no longer holds a value (:attr:`ended`)."""
        if previous is not None:
            self.variables[name] = previous
        else:
            self.ended[name] = self.variables.pop(name, "any")

    # -- token helpers -------------------------------------------------------------------------
    def peek(self, k: int = 0) -> Token:
        j = min(self.i + k, len(self.tokens) - 1)
        if self.path_depths and self.path_depths[-1] == self.depth:
            for m in range(self.i, j + 1):
                if self.blank_line_before(m):
                    return Token(Kind.EOF, BLANK_LINE, self.tokens[m].span)
                if self.tokens[m].is_op(*_OPENING, *_CLOSING):
                    break  # a blank line past a bracket is inside it, or past the path
        return self.tokens[j]

    def next(self) -> Token:
        token = self.peek()
        if token.kind is Kind.EOF:  # the end, or a blank line that ends a path: nothing to step over
            return token
        self.i += 1
        if token.kind is Kind.OP:
            self.depth += token.text in _OPENING
            self.depth -= token.text in _CLOSING
            self.braces += (token.text == "{") - (token.text == "}")
        return token

    def blank_line_before(self, index: int) -> bool:
        """Whether the white space and comments before token ``index`` hold a blank line, as the
        reference lexer reads them: two line ends with only blanks between them; a ``//`` or ``;``
        comment ends its line (so ``x // note`` and then an empty line is blank), and a ``/* */``
        comment makes the line it ends on not blank."""
        if index == 0:
            return False
        text, start, end = self.text, self.tokens[index - 1].span.end, self.tokens[index].span.start
        pos, line_ended = start, False
        while pos < end:  # nothing when start > end: not the text's order (a token the parser made)
            if text.startswith("/*", pos):
                pos = text.find("*/", pos + 2) + 2
                line_ended = False
            elif text[pos] == ";" or text.startswith("//", pos):
                newline = text.find("\n", pos)
                pos = end if newline < 0 else newline + 1
                line_ended = True
            elif text[pos] == "\n":
                if line_ended:
                    return True
                line_ended = True
                pos += 1
            else:
                pos += 1
        return False

    def at_op(self, *texts: str) -> bool:
        return self.peek().is_op(*texts)

    def at_word(self, *texts: str) -> bool:
        return self.peek().is_word(*texts)

    def expect_op(self, text: str, context: str) -> Token:
        if not self.at_op(text):
            raise self.error(f"expected '{text}' {context}", self.peek())
        return self.next()

    def error(self, message: str, token: Token | Span) -> CqlSyntaxError:
        span = token.span if isinstance(token, Token) else token
        return CqlSyntaxError(message, self.text, span, self.source)

    def unsupported(self, what: str, token: Token | Span) -> CqlUnsupportedError:
        span = token.span if isinstance(token, Token) else token
        return CqlUnsupportedError(f"{what} is valid CQL that cqlindex does not evaluate yet", self.text, span,
                                   self.source)

    def defer_unsupported(self, what: str, token: Token | Span) -> None:
        """Note valid CQL that cqlindex does not run; :meth:`parse_query` raises it after parsing."""
        self.deferred.append(self.unsupported(what, token))

    def written(self, token: Token) -> str:
        """What the query wrote for ``token`` (its text may be the ASCII for a Unicode symbol)."""
        return self.text[token.span.start:token.span.end]

    def describe(self, token: Token) -> str:
        if token.kind is Kind.EOF:
            return "a blank line (which ends a path)" if token.text == BLANK_LINE else "the end of the query"
        return f"'{token.text}'"

    def read_arguments(self, name: str, commas: bool = False) -> tuple[list[ast.Node], Token]:
        """The filters after ``name(`` up to ``)`` (read too, and returned); ``commas``: skip ',' between them."""
        args: list[ast.Node] = []
        while not self.at_op(")"):
            if self.peek().kind is Kind.EOF:
                raise self.error(f"missing ')' after the arguments of '{name}'", self.peek())
            args.append(self.parse_filter())
            if commas and self.at_op(","):
                self.next()
        return args, self.next()

    def number(self, context: str) -> int:
        negative = self.at_op("-") and self.peek(1).kind is Kind.NUMBER
        if negative:
            self.next()
        token = self.next()
        if token.kind is not Kind.NUMBER:
            raise self.error(f"expected a number {context}", token)
        return -int(token.text) if negative else int(token.text)

    def at_number(self) -> bool:
        return self.peek().kind is Kind.NUMBER or (self.at_op("-") and self.peek(1).kind is Kind.NUMBER)

    def raw_word(self) -> str:
        """A file name in the header: the raw text up to white space or ')'."""
        start = self.peek().span.start
        end = start
        while end < len(self.text) and not self.text[end].isspace() and self.text[end] != ")":
            end += 1
        while self.peek().kind is not Kind.EOF and self.peek().span.start < end:
            self.next()
        return self.text[start:end]

    def result_text(self) -> str:
        token = self.peek()
        if token.kind is Kind.STRING:
            self.next()
            return token.text
        match = _RESULT_RE.match(self.text, token.span.start)
        if not match:
            raise self.error("expected a result: 1-0, 0-1, 1/2-1/2 or *", token)
        while self.peek().kind is not Kind.EOF and self.peek().span.start < match.end():
            self.next()
        return match.group(0)

    def at_repetition(self) -> bool:
        """At ``{n}``, ``{m,n}``, ``{,n}``, ``{m,}``, ``{*}`` or ``{+}``: a line constituent's repetition.

        Written without white space inside, as the reference lexes it: with a space (``{ 4}``,
        ``{5\n}``) the braces are a compound filter, whatever they hold.
        """
        if not self.at_op("{"):
            return False
        shapes = ((Kind.NUMBER, "}"), (Kind.NUMBER, ",", "}"), (Kind.NUMBER, ",", Kind.NUMBER, "}"),
                  (",", Kind.NUMBER, "}"), ("*", "}"), ("+", "}"))
        for shape in shapes:
            tokens = [self.peek(k) for k in range(len(shape) + 1)]
            if all(t.kind is part if isinstance(part, Kind) else t.is_op(part)
                   for t, part in zip(tokens[1:], shape)) and all(
                    a.span.end == b.span.start for a, b in zip(tokens, tokens[1:])):
                return True
        return False

    def at_range_bound(self) -> bool:
        """At a number, or a numeric variable that is not being assigned ('find all Sum += 1')."""
        return self.at_number() or (self.peek().kind is Kind.WORD and self.variables.get(self.peek().text) == NUMBER
                                    and not self.peek(1).is_op(*ASSIGN_OPS))

    def range_constituent_width(self, k: int = 0) -> int:
        """How many tokens a range constituent at ``peek(k)`` takes (0: none there), as the reference reads ranges.

        A constituent is a number (``-`` allowed before it) or a numeric variable already
        assigned, and only when the token after it is no operator, or is one of ``( ) { }
        --> <--`` or a dash (``rotate90 4 find Ra1``, ``shift 2 {...}``): ``flip 5 <= sort ...``
        and ``rotate90 2 #R`` start their filter with the number instead.
        """
        token = self.peek(k)
        if token.kind is Kind.NUMBER:
            width = 1
        elif token.is_op("-") and self.peek(k + 1).kind is Kind.NUMBER:
            width = 2
        elif token.kind is Kind.WORD and self.variables.get(token.text) == NUMBER:
            width = 1
        else:
            return 0
        after = self.peek(k + width)
        if after.text in _RANGE_FOLLOWERS and after.kind is Kind.OP:
            if after.text == "{" and self.peek(k + width + 1).is_op("*", "+") and self.peek(k + width + 2).is_op("}"):
                return 0  # '{*}' and '{+}' are one operator to the reference
            return width
        return 0 if after.kind is Kind.OP or after.text in (".", "[]") else width

    def range_constituent(self) -> int | ast.Node:
        """The range constituent :meth:`range_constituent_width` found: a number or a ``Variable``."""
        if self.peek().kind is Kind.WORD:
            token = self.next()
            return ast.Variable(token.span, token.text)
        return self.number("")

    def range_bound(self) -> int | ast.Node:
        """A number of a range, or a numeric variable ('v=2 find v check')."""
        if self.peek().kind is Kind.WORD:
            token = self.next()
            return ast.Variable(token.span, token.text)
        return self.number("")

    # -- precedence levels, defined by the parser; grammar of other families -----------------
    @abstractmethod
    def parse_filter(self) -> ast.Node: ...

    @abstractmethod
    def parse_union(self, allow_dash: bool = True) -> ast.Node: ...

    @abstractmethod
    def parse_primary(self) -> ast.Node: ...

    @abstractmethod
    def parse_repetition(self, node: ast.Node, path: bool = False) -> ast.Node: ...

    @abstractmethod
    def parse_promotion(self, dash: Token, value: ast.Node) -> tuple[frozenset[str] | None, Span]: ...

    @abstractmethod
    def parse_or(self) -> ast.Node: ...

    @abstractmethod
    def parse_macro(self, text: str, span: Span) -> ast.Node: ...

    @abstractmethod
    def parse_not(self) -> ast.Node: ...

    @abstractmethod
    def parse_compare(self) -> ast.Node: ...

    @abstractmethod
    def parse_additive(self) -> ast.Node: ...

    @abstractmethod
    def parse_unary(self) -> ast.Node: ...

    @abstractmethod
    def parse_items(self) -> list[ast.Node]: ...

    @abstractmethod
    def parse_dash(self, left: ast.Node | None) -> ast.Node: ...

    @abstractmethod
    def parse_output(self, token: Token) -> ast.Node: ...

    @abstractmethod
    def parse_variable(self, token: Token) -> ast.Node: ...

    @abstractmethod
    def parse_subscript(self, name: Token) -> ast.Node: ...

    @abstractmethod
    def parse_bound_name(self, token: Token) -> ast.Node: ...

    @abstractmethod
    def parse_iterate(self, token: Token | ast.Keyword, written_name: bool = False) -> ast.Node: ...
