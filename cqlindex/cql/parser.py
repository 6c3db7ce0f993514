"""Parse CQL 6.1 (with 6.2's Unicode spellings) into the AST of :mod:`cqlindex.cql.ast`.

Precedence climbing, one method per level, lowest first:
greedy prefix filters (transforms, find, if, sort, echo, square, piece: their argument runs
as far as it can, ``or`` included) < ``or`` < ``and`` < ``not`` < ``in`` < comparisons
(chained) < ``+ -`` < ``* / %`` < unary and numeric prefixes < ``|`` < ``&`` < ``~`` <
``attacks``/``attackedby`` < directions, ``light``/``dark`` < ``:``. Keyword filters are
parsed by the methods named in :data:`Parser.KEYWORDS`, so a new filter touches one table.

Valid CQL that cqlindex does not run yet raises :class:`CqlUnsupportedError` naming the
construct, so a query is never answered with a silently wrong result. Where such a construct's
syntax is known it is parsed in full and refused only once the whole query has parsed
(:meth:`Parser.defer_unsupported`), so a syntax error is reported as one, wherever it is.

The type rules the reference engine checks while parsing live here and in :mod:`kinds`:
arithmetic takes numbers, a variable keeps the type of its first assignment, a filter without
a value cannot be assigned or compared, line constituents are not numbers, and so on; the
tables in tests/test_cql_parser.py show each rule with the reference's verdicts.
"""

from __future__ import annotations

import itertools
import re

from cqlindex.board.directions import basic as basic_directions
from cqlindex.cql import ast
from cqlindex.cql.kinds import LOGICAL, NUMBER, POSITION, SET, STRING, kind_of
from cqlindex.cql.lexer import tokenize
from cqlindex.cql.limits import enforce, nested
from cqlindex.cql.path_syntax import parse_path
from cqlindex.cql.tokens import Kind, Span, Token
from cqlindex.errors import CqlSyntaxError, CqlUnsupportedError

TRANSFORMS = ("flipcolor", "reversecolor", "flip", "fliphorizontal", "flipvertical", "rotate90", "shift",
              "shifthorizontal", "shiftvertical")
DIRECTIONS = ("up", "down", "left", "right", "northeast", "northwest", "southeast", "southwest", "vertical",
              "horizontal", "orthogonal", "diagonal", "anydirection", "maindiagonal", "offdiagonal")
NULLARY = ("check", "mate", "stalemate", "wtm", "btm", "initial", "terminal", "mainline", "variation", "ply",
           "movenumber", "depth", "true", "false", "positionid", "gamenumber", "sidetomove", "white", "black",
           "passedpawns", "isolatedpawns", "doubledpawns", "connectedpawns", "parent", "currentposition",
           "initialposition", "lastgamenumber")
LINE_PARAMS = ("firstmatch", "lastposition", "singlecolor", "nestban", "primary", "secondary", "quiet")
UNSUPPORTED = ("focus", "piecepath", "pathcount", "pathcountunfocused", "pathstart", "pathlastposition",
               "function", "loop", "while", "dictionary", "persistent", "atomic", "local", "unbind", "isbound",
               "isunbound", "str", "int", "ascii", "lowercase", "uppercase", "indexof", "settag", "removetag",
               "tag", "originalcomment", "removecomment", "readfile", "writefile", "assert", "try", "cql_abort",
               "rotate45", "currenttransform", "notransform", "virtualmainline", "hhdb", "countmoves",
               "currentmove", "nullmove", "consecutivemoves", "pieceid", "typename", "piecename",
               "eventdate", "enpassantsquare", "castle", "legal", "pseudolegal", "hascomment", "similarposition",
               "idealmate", "idealstalemate", "modelmate", "modelstalemate", "puremate", "purestalemate",
               "o-o", "o-o-o", "primary", "secondary")
# Argument-less filters of that kind: parsed like any keyword, refused once the query has parsed.
#: Inside a dash's target, filters saying what kind of move led to the position.
MOVE_KINDS = ("o-o", "o-o-o", "castle", "enpassant")
UNSUPPORTED_NULLARY = ("primary", "secondary", "virtualmainline", "nullmove")
_RELATIONAL = ("<", "<=", "==", ">=", ">", "!=")
_ANY_PIECE = frozenset("KQRBNPkqrbnp")
_PATH_COMPARISONS = ("[<]", "[>]", "[<=]", "[>=]")
_ASSIGN = ("=", "+=", "-=", "*=", "/=", "%=", "=?")
_STOP_AFTER_WILDCARD = ("-->", "<--", ")", "}", "--", "[x]")
#: One-argument Tier 3 filters and the kinds their argument may have (kinds.py has their values).
_TIER3_UNARY = {"int": (STRING,), "lowercase": (STRING,), "uppercase": (STRING,), "readfile": (STRING,),
                "tag": (STRING,), "typename": (SET,), "piecename": (SET,), "pieceid": (SET,)}
_FEN_RANK_RE = re.compile(r"[KQRBNPkqrbnpAa._1-8]+")
_RESULT_RE = re.compile(r"(1-0|0-1|1/2-1/2|\*)")


class Parser:
    """One query's parser. Use :func:`parse`."""

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
        # Valid CQL that cqlindex does not run: reported only once the whole query has parsed, so
        # a syntax error anywhere still wins (as it does in the reference engine).
        self.deferred: list[CqlUnsupportedError] = []
        self.colon_barred = 0  # inside 'position N', whose ':' is the position's
        self.in_dash_target = 0  # inside '--(...)', where o-o, o-o-o, castle and enpassant are filters

    # -- token helpers -------------------------------------------------------------------------
    def peek(self, k: int = 0) -> Token:
        return self.tokens[min(self.i + k, len(self.tokens) - 1)]

    def next(self) -> Token:
        token = self.peek()
        self.i = min(self.i + 1, len(self.tokens) - 1)
        return token

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

    def describe(self, token: Token) -> str:
        return "the end of the query" if token.kind is Kind.EOF else f"'{token.text}'"

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

    # -- query ---------------------------------------------------------------------------------
    def parse_query(self) -> ast.Query:
        header = ast.Header()
        if self.at_word("cql") and self.peek(1).is_op("("):
            header = self.parse_header()
        start = self.peek()
        items = self.parse_items()
        if not self.peek().kind is Kind.EOF:
            raise self.error(f"unexpected {self.describe(self.peek())}", self.peek())
        if not items:
            raise self.error("expected one or more filters", start)
        body = ast.Compound(start.span.to(self.peek().span), tuple(items))
        if self.deferred:
            raise self.deferred[0]
        return ast.Query(header, body, self.text, self.source)

    def parse_header(self) -> ast.Header:
        self.next()
        self.expect_op("(", "after 'cql'")
        values: dict = {}
        while not self.at_op(")"):
            token = self.next()
            name = token.text
            if token.kind is Kind.EOF:
                raise self.error("missing ')' closing the cql(...) parameters", token)
            if name in ("variations", "mainline"):
                values["variations"] = name == "variations"
            elif name in ("quiet", "silent"):
                values[name] = True
            elif name in ("input", "output"):
                values[name] = self.raw_word()
            elif name == "result":
                values["result"] = self.result_text()
            elif name == "gamenumber":
                low = self.number("after 'gamenumber'")
                values["gamenumber"] = (low, self.number("") if self.at_number() else low)
            elif name == "matchcount":
                low = self.number("after 'matchcount'")
                values["matchcount"] = (low, self.number("") if self.at_number() else None)
            elif name == "sort" and self.at_word("matchcount"):
                self.next()
                values["sort_matchcount"] = True
                if self.at_number():
                    low = self.number("")
                    values["matchcount"] = (low, self.number("") if self.at_number() else None)
            elif name == "matchstring":
                string = self.next()
                if string.kind is not Kind.STRING:
                    raise self.error("expected a string after 'matchstring'", string)
                values["matchstring"] = string.text
            else:
                raise self.unsupported(f"the cql() parameter '{name}'", token)
        self.next()
        return ast.Header(**values)

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

    def parse_items(self) -> list[ast.Node]:
        items: list[ast.Node] = []
        while not (self.peek().kind is Kind.EOF or self.at_op("}")):
            if self.at_op(")"):
                raise self.error("unexpected ')': no '(' is open here", self.peek())
            items.append(self.parse_filter())
        return items

    # -- precedence levels -----------------------------------------------------------------
    @nested
    def parse_filter(self) -> ast.Node:
        return self.parse_or()

    def parse_or(self) -> ast.Node:
        items = [self.parse_and()]
        while self.at_word("or"):
            self.next()
            items.append(self.parse_and())
        return items[0] if len(items) == 1 else ast.Or(items[0].span.to(items[-1].span), tuple(items))

    def parse_and(self) -> ast.Node:
        items = [self.parse_not()]
        while self.at_word("and"):
            self.next()
            items.append(self.parse_not())
        return items[0] if len(items) == 1 else ast.And(items[0].span.to(items[-1].span), tuple(items))

    @nested
    def parse_not(self) -> ast.Node:
        if self.at_word("not"):
            token = self.next()
            arg = self.parse_not()
            return ast.Not(token.span.to(arg.span), arg)
        return self.parse_in()

    def parse_in(self) -> ast.Node:
        left = self.parse_compare()
        if self.at_word("in"):
            self.next()
            right = self.parse_compare()
            if {kind_of(left, self.variables), kind_of(right, self.variables)} == {STRING}:
                self.defer_unsupported("'in' between strings", left.span.to(right.span))
                return ast.Binary(left.span.to(right.span), "in", left, right)
            for side in (left, right):
                if kind_of(side, self.variables) not in (SET, "any"):
                    raise self.error("both sides of 'in' must be sets", side.span)
            return ast.Binary(left.span.to(right.span), "in", left, right)
        return left

    def parse_compare(self) -> ast.Node:
        operands = [self.parse_additive()]
        ops: list[str] = []
        if kind_of(operands[0], self.variables) == LOGICAL:
            # A filter without a value is never the left side of a comparison: the operator
            # belongs to an enclosing level (``find all check >= 20`` is ``{find all check} >= 20``,
            # as the reference engine reads it).
            return operands[0]
        tokens: list[Token] = []
        while self.peek().kind is Kind.OP and self.peek().text in _RELATIONAL + _PATH_COMPARISONS:
            tokens.append(self.next())
            ops.append(tokens[-1].text)
            operands.append(self.parse_additive())
        if not ops:
            return operands[0]
        for op, left, right in zip(ops, operands, operands[1:]):
            self.check_comparable(op.strip("[]"), left, right)
        for token in tokens:
            if token.text in _PATH_COMPARISONS:
                self.defer_unsupported(f"the CQL 6.2 comparison '{token.text}'", token)
        return ast.Compare(operands[0].span.to(operands[-1].span), tuple(ops), tuple(operands))

    def check_comparable(self, op: str, left: ast.Node, right: ast.Node) -> None:
        kinds = kind_of(left, self.variables), kind_of(right, self.variables)
        for node, kind in zip((left, right), kinds):
            if kind == LOGICAL:
                raise self.error("a filter without a value cannot be compared", node.span)
        if op not in ("==", "!=") and kinds == (SET, SET):
            raise self.error(f"sets cannot be compared with '{op}' (use # for their sizes)", left.span)
        if POSITION in kinds and kinds != (POSITION, POSITION):
            raise self.error("a position can only be compared with a position", left.span)
        if STRING in kinds and kinds != (STRING, STRING) and "any" not in kinds:
            raise self.error("a string can only be compared with a string", left.span)
        if kinds == (POSITION, POSITION) and op == "!=":
            raise self.error(f"positions cannot be compared with '{op}'", left.span)

    def at_repetition(self) -> bool:
        """At ``{n}``, ``{m,n}``, ``{,n}``, ``{*}`` or ``{+}``: a line constituent's repetition."""
        if not self.at_op("{"):
            return False
        first, second = self.peek(1), self.peek(2)
        return (first.kind is Kind.NUMBER and second.is_op("}", ",")) or first.is_op(",") or (
            first.is_op("+", "*") and second.is_op("}"))

    def is_wildcard(self) -> bool:
        """``+``/``*`` closing a line constituent (``check+ -->``), not arithmetic."""
        return self.in_line > 0 and self.at_op("+", "*", "?") and (
            self.peek(1).kind is Kind.EOF or self.peek(1).is_op(*_STOP_AFTER_WILDCARD))

    def at_negative_number(self, left: ast.Node) -> bool:
        """``-2`` after a filter without a numeric value starts the next filter: ``K-3`` is ``K`` then ``-3``."""
        return (self.at_op("-") and self.peek(1).kind is Kind.NUMBER
                and kind_of(left, self.variables) not in (NUMBER, "any"))

    def check_arithmetic(self, op: Token, left: ast.Node, right: ast.Node) -> None:
        """Arithmetic takes numbers (a set is not counted here, unlike in a comparison); '+' also joins strings."""
        kinds = kind_of(left, self.variables), kind_of(right, self.variables)
        if op.text == "+" and STRING in kinds and set(kinds) <= {STRING, "any"}:
            return
        for node, kind in zip((left, right), kinds):
            if kind not in (NUMBER, "any") or isinstance(node, ast.Line):
                raise self.error(f"'{op.text}' needs numbers on both sides", node.span)

    def parse_additive(self) -> ast.Node:
        left = self.parse_multiplicative()
        while self.at_op("+", "-") and not self.is_wildcard() and not self.at_negative_number(left):
            op = self.next()
            right = self.parse_multiplicative()
            self.check_arithmetic(op, left, right)
            left = ast.Binary(left.span.to(right.span), op.text, left, right)
        return left

    def parse_multiplicative(self) -> ast.Node:
        left = self.parse_unary()
        while self.at_op("*", "/", "%") and not self.is_wildcard():
            op = self.next()
            right = self.parse_unary()
            self.check_arithmetic(op, left, right)
            left = ast.Binary(left.span.to(right.span), op.text, left, right)
        return left

    @nested
    def parse_unary(self) -> ast.Node:
        token = self.peek()
        if token.is_op("-"):
            self.next()
            arg = self.parse_unary()
            if isinstance(arg, ast.Number):
                return ast.Number(token.span.to(arg.span), -arg.value)
            if kind_of(arg, self.variables) not in (NUMBER, "any"):
                raise self.error("unary '-' needs a number after it", arg.span)
            return ast.Unary(token.span.to(arg.span), "-", arg)
        if token.is_op("#"):
            self.next()
            arg = self.parse_unary()
            if kind_of(arg, self.variables) not in (SET, STRING, "any"):
                raise self.error("'#' needs a set or a string after it", arg.span)
            return ast.Unary(token.span.to(arg.span), "#", arg)
        if token.is_word("abs", "sqrt"):
            self.next()
            arg = self.parse_unary()
            return ast.Unary(token.span.to(arg.span), token.text, arg)
        if token.is_word("rank", "file", "power", "type", "colortype"):
            self.next()
            arg = self.parse_union()
            return ast.Unary(token.span.to(arg.span), token.text, arg)
        return self.parse_union()

    def parse_union(self, allow_dash: bool = True) -> ast.Node:
        left = self.parse_intersection()
        while self.at_op("|"):
            op = self.next()
            right = self.parse_intersection()
            self.check_set_operands(op, left, right)
            left = ast.Binary(left.span.to(right.span), "|", left, right)
        if allow_dash and self.at_op("--", "[x]") and self.peek().span.start == left.span.end:
            # 'F--G' binds looser than '|': 'b|q--' is '{b|q}--'
            if kind_of(left, self.variables) not in (SET, "any"):
                raise self.error(f"the left side of '{self.peek().text}' must be a set", left.span)
            return self.parse_dash(left)
        return left

    def parse_intersection(self) -> ast.Node:
        left = self.parse_complement()
        while self.at_op("&"):
            op = self.next()
            right = self.parse_complement()
            self.check_set_operands(op, left, right)
            left = ast.Binary(left.span.to(right.span), "&", left, right)
        return left

    def check_set_operands(self, op: Token, left: ast.Node, right: ast.Node) -> None:
        kinds = kind_of(left, self.variables), kind_of(right, self.variables)
        if op.text == "&" and kinds == (POSITION, POSITION):
            return
        for node, kind in zip((left, right), kinds):
            if kind not in (SET, "any"):
                raise self.error(f"'{op.text}' needs sets on both sides", node.span)

    @nested
    def parse_complement(self) -> ast.Node:
        if self.at_op("~"):
            token = self.next()
            arg = self.parse_complement()
            if kind_of(arg, self.variables) not in (SET, "any"):
                raise self.error("'~' needs a set after it", arg.span)
            return ast.Unary(token.span.to(arg.span), "~", arg)
        return self.parse_attacks()

    def parse_attacks(self) -> ast.Node:
        left = self.parse_tight()
        arrows = 0
        first_arrow = ""
        while self.at_word("attacks", "attackedby") or self.at_op("->", "<-"):
            token = self.next()
            op = {"->": "attacks", "<-": "attackedby"}.get(token.text, token.text)
            if token.kind is Kind.OP:
                arrows += 1
                if arrows > 1:
                    if token.text != first_arrow:
                        raise self.error("a chain of attack arrows cannot mix '->' and '<-'", token)
                    self.defer_unsupported("a chain of attack arrows", token)
                first_arrow = token.text
            right = self.parse_tight()
            for side in (left, right):
                if kind_of(side, self.variables) not in (SET, "any"):
                    raise self.error(f"'{token.text}' needs sets on both sides", side.span)
            left = ast.Binary(left.span.to(right.span), op, left, right)
        return left

    @nested
    def parse_tight(self) -> ast.Node:
        """Directions and light/dark bind tighter than everything but ':'."""
        token = self.peek()
        if token.is_word(*DIRECTIONS) and not self.peek(1).is_op(":"):
            self.next()
            low, high = 1, 7
            if self.at_number():
                low = high = self.number("")
                if self.at_number():
                    high = self.number("")
            arg = self.parse_tight()
            return ast.Direction(token.span.to(arg.span), token.text, low, high, arg)
        if token.is_word("light", "dark"):
            self.next()
            arg = self.parse_tight()
            return ast.Unary(token.span.to(arg.span), token.text, arg)
        return self.parse_colon()

    @nested
    def parse_colon(self) -> ast.Node:
        left = self.parse_primary()
        while self.at_op("~~"):  # CQL 6.1 regular-expression match on strings
            op = self.next()
            right = self.parse_primary()
            for side in (left, right):
                if kind_of(side, self.variables) not in (STRING, "any"):
                    raise self.error("'~~' needs strings on both sides", side.span)
            self.defer_unsupported("the regular-expression match '~~'", op)
            left = ast.Binary(left.span.to(right.span), "~~", left, right)
        if self.at_op(":") and not self.colon_barred:
            self.next()
            if self.at_op("#", "~"):
                # 'source:#[Aa]' counts at the source position
                op = self.next()
                arg = self.parse_colon()
                body: ast.Node = ast.Unary(op.span.to(arg.span), op.text, arg)
            elif self.at_word(*DIRECTIONS, "light", "dark"):
                body = self.parse_tight()  # 'source:dark K'
            elif self.at_word("rank", "file", "power", "type", "colortype", "abs", "sqrt"):
                body = self.parse_unary()  # 'source:rank K - rank K' is '{source:rank K} - rank K'
            else:
                body = self.parse_colon()
            return ast.Colon(left.span.to(body.span), left, body)
        return left

    # -- primaries -------------------------------------------------------------------------
    def parse_primary(self) -> ast.Node:
        token = self.peek()
        if token.kind is Kind.PIECES:
            following = self.peek(1)
            if (token.pieces == _ANY_PIECE and following.kind is Kind.WORD and following.span.start == token.span.end
                    and self.peek(2).is_word("in")):
                # CQL 6.2 writes 'piece x in S' as '◭x∊S' ('[Aa]x[element]S' in ASCII).
                self.next()
                return self.parse_iterate(ast.Keyword(token.span, "piece"), written_name=True)
            self.next()
            return ast.Pieces(token.span, token.pieces, token.squares, token.text)
        if token.kind is Kind.NUMBER:
            self.next()
            return ast.Number(token.span, int(token.text))
        if token.kind is Kind.STRING:
            self.next()
            return ast.String(token.span, token.text)
        if token.is_op("{"):
            if self.at_repetition():
                raise self.error("a repetition '{m,n}' only follows a line constituent", token)
            self.next()
            barred, self.colon_barred = self.colon_barred, 0
            items = self.parse_items()
            self.colon_barred = barred
            end = self.expect_op("}", "to close '{'")
            if not items:
                raise self.error("'{}' must hold at least one filter", token.span.to(end.span))
            return ast.Compound(token.span.to(end.span), tuple(items))
        if token.is_op("("):
            self.next()
            if self.at_op(")"):
                raise self.error("'()' must hold a filter", self.peek())
            barred, self.colon_barred = self.colon_barred, 0
            node = self.parse_filter()
            self.colon_barred = barred
            self.expect_op(")", "to close '('")
            return node
        if token.kind is Kind.OP and token.text.startswith("\\"):
            raise self.unsupported(f"the regular-expression capture '{token.text}'", token)
        if token.is_op(*_PATH_COMPARISONS):
            raise self.error(f"expected a filter before '{token.text}'", token)
        if token.is_op("--", "[x]"):
            before = self.tokens[self.i - 1] if self.i > 0 else None
            if before is not None and before.span.end == token.span.start and (
                    before.kind in (Kind.WORD, Kind.NUMBER, Kind.STRING, Kind.PIECES) or before.is_op(")", "}")):
                raise self.error(f"'{token.text}' written against '{before.text}': its left side must be a set",
                                 token)
            return self.parse_dash(None)
        if token.is_op("///"):
            return self.parse_slash_comment(self.next())
        if token.kind is Kind.WORD and self.bindings and token.text in self.bindings[-1]:
            self.next()
            # wrapped, so that a parameter is never taken for a literal such as the Q of '--=Q'
            return ast.Compound(token.span, (self.bindings[-1][token.text],))
        if token.kind is Kind.WORD:
            method = self.KEYWORDS.get(token.text)
            if method is not None:
                return method(self, self.next())
            if self.in_dash_target and token.text in MOVE_KINDS:
                return ast.Keyword(self.next().span, token.text)  # what the move that led here was
            if token.text in UNSUPPORTED_NULLARY:
                self.defer_unsupported(f"'{token.text}'", token)
                return ast.Keyword(self.next().span, token.text)
            if token.text in UNSUPPORTED:
                raise self.unsupported(f"'{token.text}'", token)
            return self.parse_variable(self.next())
        if token.kind is Kind.EOF:
            raise self.error("expected a filter, found the end of the query", token)
        raise self.error(f"expected a filter, found {self.describe(token)}", token)

    def parse_keyword(self, token: Token) -> ast.Node:
        return ast.Keyword(token.span, token.text)

    def parse_dash(self, left: ast.Node | None) -> ast.Node:
        """``F--G`` / ``F[x]G`` (CQL 6.2), written without spaces; each part may be absent.

        After the right side may come ``=P`` (the promotion: a whole filter, so ``--=q and 2``
        promotes to ``q and 2`` and is an error) and ``(F ...)``, the target: filters that must
        hold at the position the move leads to; with one, the dash's value is the last target
        filter's value there (``x=e4--(to)`` is a set). Inside a target ``o-o``, ``o-o-o``,
        ``castle`` and ``enpassant`` say what the move was.

        Dashes cannot be chained: no move filter may be written against the end of a dash. The
        reference parser also takes a ``(`` after a bare dash across white space as the target
        (``path -- ( -- -- )`` is refused just as ``path --(-- --)``), and a target so written
        cannot be followed by a move filter even after white space (``-- (k) --`` is refused,
        ``--(k) --`` is two filters).
        """
        dash = self.next()
        start = left.span if left is not None else dash.span
        right: ast.Node | None = None
        promote = None
        target: tuple[ast.Node, ...] | None = None
        end = dash.span

        def adjacent() -> bool:
            return self.peek().span.start == end.end

        following = self.peek()
        if adjacent() and (following.kind is Kind.PIECES or (following.is_op("{") and not self.at_repetition())
                           or (following.kind is Kind.WORD and following.text in self.KEYWORDS
                               and following.text not in ("not", "if"))):
            right = self.parse_union(allow_dash=False)
        elif adjacent() and following.kind is Kind.WORD and (
                following.text in self.variables or (self.bindings and following.text in self.bindings[-1])):
            right = self.parse_union(allow_dash=False)  # 'E--S:E': ':' binds tighter than the dash
        if right is not None:
            if kind_of(right, self.variables) not in (SET, "any"):
                raise self.error(f"the right side of '{dash.text}' must be a set", right.span)
            end = right.span
        if adjacent() and self.at_op("="):
            self.next()
            promote, end = self.parse_promotion(dash, self.parse_or())
        spaced_target = right is None and promote is None and self.at_op("(") and not adjacent()
        if self.at_op("(") and (adjacent() or spaced_target):
            opening = self.next()
            self.in_dash_target += 1
            items = []
            try:
                while not (self.at_op(")") or self.peek().kind is Kind.EOF):
                    items.append(self.parse_filter())
            finally:
                self.in_dash_target -= 1
            close = self.expect_op(")", f"to close '{dash.text}('")
            if not items:
                raise self.error(f"'{dash.text}()' must hold a filter", opening.span.to(close.span))
            target = tuple(items)
            end = close.span
        if self.at_op("--", "[x]") and (adjacent() or spaced_target):
            raise self.error("CQL 6.2 move filters cannot be chained", self.peek())
        return ast.Dash(start.to(end), left, right, dash.text == "[x]", promote, target)

    def parse_promotion(self, dash: Token, value: ast.Node) -> tuple[frozenset[str] | None, Span]:
        """The piece letters of the promotion ``value`` written after ``dash=`` (None: refused later)."""
        kind = kind_of(value, self.variables)
        if isinstance(value, ast.Pieces):
            if value.squares != (1 << 64) - 1 or not value.pieces:
                raise self.error("a promotion names a piece type, not squares", value.span)
            return value.pieces, value.span
        if isinstance(value, ast.String) and len(value.value) == 1 and value.value in "QRBNqrbn":
            return frozenset(value.value), value.span
        if kind in (STRING, "any"):
            self.defer_unsupported(f"a promotion '{dash.text}=' to a piece named by a string", value.span)
            return None, value.span
        raise self.error("a promotion takes a piece designator such as Q, or a string", value.span)

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

    def parse_transform(self, token: Token) -> ast.Node:
        count = False
        if self.at_word("count"):
            if token.text == "reversecolor":
                raise self.error("'reversecolor' has one member: 'count' does not apply", self.peek())
            self.next()
            count = True
        arg = self.parse_filter()
        return ast.Transform(token.span.to(arg.span), token.text, count, arg)

    def parse_call(self, token: Token) -> ast.Node:
        if not self.at_op("("):
            if token.text == "makesquare" and self.peek().kind is Kind.STRING:
                arg = self.parse_additive()  # 'makesquare "a" + "2"': the string may be built with '+'
                if kind_of(arg, self.variables) not in (STRING, "any"):
                    raise self.error("'makesquare' needs a string or '(file rank)'", arg.span)
                return ast.Call(token.span.to(arg.span), "makesquare", (arg,))
            raise self.error(f"expected '(' after '{token.text}'", self.peek())
        self.next()
        args: list[ast.Node] = []
        while not self.at_op(")"):
            if self.peek().kind is Kind.EOF:
                raise self.error(f"missing ')' after the arguments of '{token.text}'", self.peek())
            args.append(self.parse_filter())
            if self.at_op(","):
                self.next()
        end = self.next()
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

    def parse_if(self, token: Token) -> ast.Node:
        cond = self.parse_filter()
        if self.at_word("then"):
            self.next()
        then = self.parse_filter()
        other = None
        if self.at_word("else"):
            self.next()
            other = self.parse_filter()
        return ast.If(token.span.to((other or then).span), cond, then, other)

    def parse_not_keyword(self, token: Token) -> ast.Node:
        arg = self.parse_not()
        return ast.Not(token.span.to(arg.span), arg)

    def parse_move(self, token: Token) -> ast.Node:
        mode = "played"
        params: list[tuple[str, ast.Node | None]] = []
        end = token.span
        while True:
            word = self.peek()
            if word.is_word("legal", "pseudolegal", "previous"):
                self.next()
                if mode != "played":
                    raise self.error(f"'{word.text}' conflicts with '{mode}'", word)
                mode = word.text
                params.append((word.text, None))
            elif word.is_word("from", "to", "capture", "promote", "enpassantsquare"):
                self.next()
                value = self.parse_union()
                params.append((word.text, value))
                end = value.span
                continue
            elif word.is_word("enpassant", "null", "o-o", "o-o-o", "primary", "secondary", "castle"):
                self.next()
                params.append((word.text, None))
            elif word.is_word("count"):  # CQLi: the number of matching moves
                self.next()
                self.defer_unsupported("'move count'", word)
                params.append((word.text, None))
            elif word.is_word("comment"):  # CQLi: comment on the matching moves
                self.next()
                self.defer_unsupported("'move comment'", word)
                value = self.parse_output(word)
                params.append((word.text, value))
                end = value.span
                continue
            else:
                break
            end = word.span
        if {"primary", "secondary"} <= {name for name, _ in params}:
            raise self.error("'primary' and 'secondary' exclude each other", token.span.to(end))
        names = {name for name, _ in params}
        if "count" in names and mode not in ("legal", "pseudolegal"):
            raise self.error("'move count' needs 'legal' or 'pseudolegal'", token.span.to(end))
        if {"castle", "null"} <= names:
            raise self.error("'castle' and 'null' exclude each other", token.span.to(end))
        if mode in ("legal", "pseudolegal") and any(name == "capture" for name, _ in params):
            raise self.error("'capture' cannot be combined with 'legal' or 'pseudolegal'", token.span.to(end))
        params = [(name, value) for name, value in params if name not in ("legal", "pseudolegal", "previous")] \
            if params and params[0][0] not in ("legal", "pseudolegal", "previous") else params
        return ast.Move(token.span.to(end), mode, tuple(params))

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

    def at_range_bound(self) -> bool:
        """At a number, or a numeric variable that is not being assigned ('find all Sum += 1')."""
        return self.at_number() or (self.peek().kind is Kind.WORD and self.variables.get(self.peek().text) == NUMBER
                                    and not self.peek(1).is_op(*_ASSIGN))

    def range_bound(self) -> int | ast.Node:
        """A number of a range, or a numeric variable ('v=2 find v check')."""
        if self.peek().kind is Kind.WORD:
            token = self.next()
            return ast.Variable(token.span, token.text)
        return self.number("")

    def parse_line(self, token: Token) -> ast.Node:
        params: set[str] = set()
        low = high = None
        while True:
            if self.at_word(*LINE_PARAMS):
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
        # The reference refuses numbers written as such ('3', '(v)', '{3+4}' with v numeric) but
        # not a numeric variable alone in braces ('v=3 line --> {v}'): braces around a variable
        # hide its kind from that check. Such a constituent matches wherever v is bound.
        braced_variable = isinstance(node, ast.Compound) and isinstance(node.items[-1], ast.Variable)
        if kind_of(node, self.variables) == NUMBER and not braced_variable:
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
        previous = self.variables.get(name.text)
        self.variables[name.text] = SET
        body = self.parse_filter()
        if previous is not None:
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
        """``piece x = S``: bind a piece variable to the one piece on S (refused after parsing)."""
        op = self.next()
        if name.text in self.variables and name.text not in self.piece_variables:
            raise self.error(f"'{name.text}' is already a variable that is not a piece variable", name)
        value = self.parse_union()
        if kind_of(value, self.variables) not in (SET, "any"):
            raise self.error("a piece variable is assigned a set", value.span)
        self.piece_variables.add(name.text)
        self.variables[name.text] = SET
        self.defer_unsupported("a piece variable assignment 'piece x = S'", token.span.to(op.span))
        return ast.Assign(token.span.to(value.span), name.text, op.text, value)

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
        if name in ("player", "event", "site", "date", "eco", "eventdate", "hascomment", "originalcomment"):
            if self.peek().kind is not Kind.STRING or name in ("eventdate", "hascomment", "originalcomment"):
                # the tag's text as a string value ('event ~~ "Lon"'), and the CQL 6.1 tag filters
                self.defer_unsupported(f"'{name}'" if name in ("eventdate", "hascomment", "originalcomment")
                                       else f"'{name}' used as a string value", token)
            if self.peek().kind is Kind.STRING:
                value = self.next()
                args.append(ast.String(value.span, value.text))
        return ast.GameFilter(token.span.to(args[-1].span if args else token.span), name, tuple(args))

    def parse_sort(self, token: Token) -> ast.Node:
        doc = None
        minimum = False
        while True:
            if self.peek().kind is Kind.STRING and doc is None:
                doc = self.next().text
            elif self.at_word("min", "max"):
                minimum = self.next().text == "min"
            else:
                break
        if self.at_word("matchcount"):
            raise self.error("'sort matchcount' belongs in the cql(...) header", self.peek())
        body = self.parse_filter()
        if isinstance(body, ast.Number):
            raise self.error("'sort' needs a filter, not a constant", body.span)
        return ast.Sort(token.span.to(body.span), doc, minimum, body)

    def parse_echo(self, token: Token) -> ast.Node:
        quiet = False
        if self.at_word("quiet"):
            self.next()
            quiet = True
        self.expect_op("(", "after 'echo' (write: echo (source target) filter)")
        names = []
        for _ in range(2):
            name = self.next()
            if name.kind is not Kind.WORD:
                raise self.error("expected a variable name in echo's '(source target)'", name)
            names.append(name.text)
        self.expect_op(")", "after echo's two variable names")
        include_all = False
        if self.at_word("in"):
            self.next()
            if not self.at_word("all"):
                raise self.error("expected 'all' after 'in'", self.peek())
            self.next()
            include_all = True
        saved = {name: self.variables.get(name) for name in names}
        for name in names:
            self.variables[name] = POSITION
        body = self.parse_filter()
        for name, kind in saved.items():
            if kind is None:
                self.variables.pop(name, None)
            else:
                self.variables[name] = kind
        return ast.Echo(token.span.to(body.span), names[0], names[1], quiet, include_all, body)

    def parse_output(self, token: Token) -> ast.Node:
        """``comment (args)``, ``comment "text"``, ``message [quiet] (args)``: they always match."""
        quiet = False
        if token.text == "message" and self.at_word("quiet"):
            self.next()
            quiet = True
        if self.at_op("("):
            self.next()
            args: list[ast.Node] = []
            while not self.at_op(")"):
                if self.peek().kind is Kind.EOF:
                    raise self.error(f"missing ')' after the arguments of '{token.text}'", self.peek())
                args.append(self.parse_filter())
            end = self.next().span
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

    def parse_fen(self, token: Token) -> ast.Node:
        if self.peek().kind is not Kind.STRING:
            self.defer_unsupported("'fen' used as a string value", token)
            return ast.GameFilter(token.span, "fen", ())
        value = self.next()
        ranks = value.text.split(" ")[0].split("/")
        if len(ranks) < 8 or any(not _FEN_RANK_RE.fullmatch(rank) or sum(
                int(c) if c.isdigit() else 1 for c in rank) != 8 for rank in ranks[:8]):
            raise self.error("not a FEN board: eight ranks of eight squares, separated by '/'", value)
        return ast.GameFilter(token.span.to(value.span), "fen", (ast.String(value.span, value.text),))

    def parse_square_iteration(self, token: Token, every: bool) -> ast.Node:
        """CQL 6.2's ``x ∊ S body`` and ``∀ x ∊ S body`` (``square [all] x in S body``)."""
        name = token if not every else self.next()
        if every and name.kind is Kind.PIECES and name.pieces == _ANY_PIECE and self.peek().kind is Kind.WORD \
                and self.peek().span.start == name.span.end:
            # '∀◭x∊S body' is 'piece all x in S body'
            iterate = self.parse_iterate(ast.Keyword(name.span, "piece"), written_name=True)
            assert isinstance(iterate, ast.Iterate)
            return ast.Iterate(token.span.to(iterate.span), "piece", True, iterate.var, iterate.domain, iterate.body)
        if name.kind is not Kind.WORD or not self.at_word("in"):
            raise self.error("expected 'x ∊ S' after '∀'", name)
        self.next()
        domain = self.parse_iteration_domain("square", name)
        previous = self.variables.get(name.text)
        self.variables[name.text] = SET
        body = self.parse_filter()
        if previous is not None:
            self.variables[name.text] = previous
        else:
            self.variables.pop(name.text, None)
        return ast.Iterate(token.span.to(body.span), "square", every, name.text, domain, body)

    def parse_all(self, token: Token) -> ast.Node:
        return self.parse_square_iteration(token, every=True)

    def parse_function(self, token: Token) -> ast.Node:
        """``function name(p ...) { body }``: kept as tokens until a call parses it (refused later)."""
        name = self.next()
        if name.kind is not Kind.WORD or name.text in self.KEYWORDS:
            raise self.error("expected a function name after 'function'", name)
        self.expect_op("(", f"after 'function {name.text}'")
        params: list[str] = []
        while not self.at_op(")"):
            param = self.next()
            if param.kind is not Kind.WORD:
                raise self.error(f"expected a parameter name or ')' in 'function {name.text}('", param)
            params.append(param.text)
        self.next()
        if not self.at_op("{"):
            raise self.error(f"expected '{{' and the body of 'function {name.text}'", self.peek())
        if self.at_repetition():
            raise self.error("a repetition '{m,n}' only follows a line constituent", self.peek())
        opening = self.next()
        depth, body = 1, []
        while True:
            body_token = self.next()
            if body_token.kind is Kind.EOF:
                raise self.error(f"expected '}}' to close the body of 'function {name.text}'", body_token)
            depth += body_token.is_op("{") - body_token.is_op("}")
            if depth == 0:
                break
            body.append(body_token)
        if not body:
            raise self.error("'{}' must hold at least one filter", opening.span.to(body_token.span))
        self.functions[name.text] = (tuple(params), body + [Token(Kind.EOF, "", body_token.span)])
        self.defer_unsupported("'function'", token)
        return ast.Keyword(token.span.to(body_token.span), "function")

    def parse_call_of_function(self, token: Token) -> ast.Node:
        """``name(a ...)``: the body with each parameter standing for its argument."""
        params, body = self.functions[token.text]
        self.next()
        args: list[ast.Node] = []
        while not (self.at_op(")") or self.peek().kind is Kind.EOF):
            args.append(self.parse_filter())
        end = self.expect_op(")", f"to close the call of '{token.text}'")
        if len(args) != len(params):
            raise self.error(f"'{token.text}' takes {len(params)} arguments, not {len(args)}", token.span.to(end.span))
        if len(self.bindings) >= 32:
            raise self.error(f"calls of '{token.text}' nest too deeply", token)
        saved = self.tokens, self.i
        self.tokens, self.i = body, 0
        self.bindings.append(dict(zip(params, args)))
        try:
            items = self.parse_items()
            if self.peek().kind is not Kind.EOF:
                raise self.error(f"unexpected {self.describe(self.peek())}", self.peek())
        finally:
            self.bindings.pop()
            self.tokens, self.i = saved
        return ast.Compound(token.span.to(end.span), tuple(items))

    def parse_variable(self, token: Token) -> ast.Node:
        name = token.text
        if name in self.functions and self.at_op("(") and name not in self.variables:
            return self.parse_call_of_function(token)
        if name not in self.variables and self.at_word("in"):
            return self.parse_square_iteration(token, every=False)
        if self.at_op(*_ASSIGN):
            op = self.next()
            # The right side binds like unary minus: 'v = k or q' is '{v = k} or q'.
            value = self.parse_additive()
            self.check_assignment(token, op, value)
            return ast.Assign(token.span.to(value.span), name, op.text, value)
        if name in self.variables:
            return ast.Variable(token.span, name)
        raise self.error(f"unknown filter or variable '{name}'", token)

    def check_assignment(self, name: Token, op: Token, value: ast.Node) -> None:
        """A variable gets its type from its first assignment and keeps it; a filter without a value
        cannot be assigned; '=?' takes a set; '+=' ... need an existing number (or string for '+=')."""
        kind = kind_of(value, self.variables)
        known = self.variables.get(name.text)
        if kind == LOGICAL:
            raise self.error(f"a filter without a value cannot be assigned to '{name.text}'", value.span)
        if name.text in self.piece_variables:
            raise self.error(f"'{name.text}' is a piece variable: only 'piece {name.text} = ...' rebinds it", name)
        if op.text == "=?" and kind not in (SET, "any"):
            raise self.error("'=?' assigns a set", value.span)
        if op.text in ("=", "=?"):
            if known not in (None, "any") and kind != "any" and kind != known:
                raise self.error(f"'{name.text}' holds a {known}: it cannot be assigned a {kind}", value.span)
            if known in (None, "any"):
                self.variables[name.text] = kind
            return
        if known is None:
            raise self.error(f"'{op.text}' needs a variable that already has a value: '{name.text}' has none", name)
        allowed = (NUMBER, STRING) if op.text == "+=" else (NUMBER,)
        if known not in (*allowed, "any") or kind not in (*allowed, "any") or (
                "any" not in (known, kind) and known != kind):
            raise self.error(f"'{op.text}' needs numbers{' or strings' if op.text == '+=' else ''}", value.span)

    # -- Tier 3 filters with a simple syntax: parsed in full, then refused (see defer_unsupported) --
    def parse_persistent(self, token: Token) -> ast.Node:
        """``persistent [quiet] x = v`` (or ``+=`` ...), ``atomic x = v``: variables that outlive a position."""
        if token.text == "persistent" and self.at_word("quiet"):
            self.next()
        name = self.next()
        if name.kind is not Kind.WORD:
            raise self.error(f"expected a variable name after '{token.text}'", name)
        allowed = ("=",) if token.text == "atomic" else ("=", "+=", "-=", "*=", "/=", "%=")
        if not self.at_op(*allowed):
            raise self.error(f"expected {' or '.join(repr(a) for a in allowed)} after '{token.text} {name.text}'",
                             self.peek())
        op = self.next()
        value = self.parse_additive()
        kind = kind_of(value, self.variables)
        if kind in (LOGICAL, POSITION) and not (token.text == "atomic" and kind == POSITION):
            raise self.error(f"a {token.text} variable cannot hold a {kind}", value.span)
        if op.text != "=" and kind not in ((NUMBER, STRING, "any") if op.text == "+=" else (NUMBER, "any")):
            raise self.error(f"'{op.text}' needs a number", value.span)
        lasting = self.lasting_variables.get(name.text)
        if token.text == "persistent" and name.text in self.variables and lasting != "persistent":
            raise self.error(f"'{name.text}' is already an ordinary variable", name)
        self.lasting_variables.setdefault(name.text, token.text)
        self.variables.setdefault(name.text, kind if kind != "any" else NUMBER)
        self.defer_unsupported(f"'{token.text}'", token)
        return ast.Assign(token.span.to(value.span), name.text, op.text, value)

    def parse_binding_test(self, token: Token) -> ast.Node:
        """``isbound x``, ``isunbound x``, ``unbind x``."""
        name = self.next()
        if name.kind is not Kind.WORD:
            raise self.error(f"expected a variable name after '{token.text}'", name)
        if token.text == "unbind" and name.text not in self.variables:
            raise self.error(f"'unbind {name.text}': no such variable", name)
        self.defer_unsupported(f"'{token.text}'", token)
        return ast.Call(token.span.to(name.span), token.text, (ast.Variable(name.span, name.text),))

    def parse_unsupported_prefix(self, token: Token) -> ast.Node:
        """``notransform F``, ``rotate45 [count] F`` and ``str F`` / ``str(F ...)``."""
        self.defer_unsupported(f"'{token.text}'", token)
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
        count = token.text == "rotate45" and self.at_word("count")
        if count:
            self.next()
        arg = self.parse_filter()
        if token.text == "rotate45" and isinstance(arg, ast.Pieces) and arg.squares != (1 << 64) - 1:
            raise self.error("'rotate45' cannot be applied to particular squares", arg.span)
        return ast.Transform(token.span.to(arg.span), token.text, count, arg)

    def parse_tier3(self, token: Token) -> ast.Node:
        """String, file and control filters of Tier 3: parsed in full, then refused."""
        name = token.text
        self.defer_unsupported(f"'{name}'", token)
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
        if name == "loop":
            body = self.parse_filter()
            return ast.Call(token.span.to(body.span), name, (body,))
        # currentmove: the move being examined, a move filter follows
        if not self.at_op("--", "[x]"):
            raise self.error("'currentmove' is followed by a move filter such as '--'", self.peek())
        move = self.parse_dash(None)
        return ast.Call(token.span.to(move.span), name, (move,))

    def parse_consecutivemoves(self, token: Token) -> ast.Node:
        """``consecutivemoves [quiet] [low [high]] [quiet] (x y)``, x and y position variables."""
        quiet = False
        low = high = None
        if self.at_word("quiet"):
            self.next()
            quiet = True
        if self.at_range_bound():
            low = high = self.range_bound()
            if self.at_range_bound():
                high = self.range_bound()
        if self.at_word("quiet"):
            self.next()
            quiet = True
        self.expect_op("(", "after 'consecutivemoves' (write: consecutivemoves(x y))")
        args = []
        while not (self.at_op(")") or self.peek().kind is Kind.EOF):
            args.append(self.parse_filter())
        end = self.expect_op(")", "to close 'consecutivemoves('")
        if len(args) != 2 or any(not isinstance(a, ast.Variable) or kind_of(a, self.variables) != POSITION
                                 for a in args):
            raise self.error("'consecutivemoves' takes two position variables", token.span.to(end.span))
        return ast.ConsecutiveMoves(token.span.to(end.span), quiet, low, high, args[0], args[1])

    KEYWORDS: dict = {
        **dict.fromkeys(NULLARY, parse_keyword),
        "child": parse_child,
        "to": parse_keyword,
        "from": parse_keyword,
        "position": parse_position,
        **dict.fromkeys(TRANSFORMS, parse_transform),
        **dict.fromkeys(("between", "makesquare", "max", "min", "ancestor", "descendant", "lca", "distance"),
                        parse_call),
        "if": parse_if,
        "not": parse_not_keyword,
        "move": parse_move,
        "pin": parse_pin,
        "ray": parse_ray,
        "xray": parse_ray,
        "find": parse_find,
        "line": parse_line,
        "path": parse_path,
        "square": parse_iterate,
        "all": parse_all,
        "sort": parse_sort,
        "echo": parse_echo,
        "fen": parse_fen,
        "comment": parse_output,
        "message": parse_output,
        "piece": parse_iterate,
        "persistent": parse_persistent,
        "function": parse_function,
        **dict.fromkeys(("int", "lowercase", "uppercase", "readfile", "tag", "typename", "piecename", "pieceid",
                         "assert", "settag", "writefile", "while", "loop", "currentmove"), parse_tier3),
        "consecutivemoves": parse_consecutivemoves,
        "atomic": parse_persistent,
        **dict.fromkeys(("isbound", "isunbound", "unbind"), parse_binding_test),
        **dict.fromkeys(("notransform", "rotate45", "str"), parse_unsupported_prefix),
        **dict.fromkeys(("result", "player", "elo", "year", "event", "site", "date", "eco", "eventdate", "hascomment",
                         "originalcomment"), parse_game_filter),
    }


def parse(text: str, source: str = "<query>") -> ast.Query:
    """Parse a CQL file or a bare body. Raises CqlSyntaxError or CqlUnsupportedError."""
    return enforce(Parser(text, source).parse_query())  # chains regrouped, then the limits of cql/limits.py


__all__ = ["parse", "Parser"]
