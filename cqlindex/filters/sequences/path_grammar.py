"""Parsing CQL 6.2's ``path`` (``⊢``) filter: its parameters and its constituents.

Kept apart from the line grammar beside it (which only dispatches the keyword here) because
a path's grammar is its own small language. What the reference parser accepts and rejects
(acceptance/parse-cases.jsonl, group ``filter_path``) and the comments of the CQL 6.2
example files fix these rules:

* Parameters come first (``path k quiet`` is rejected), then at least one constituent
  (``path`` and ``path primary`` are rejected).
* A constituent is a *move* (a dash or take filter ``F--G`` / ``F[x]G``, which steps to the
  child position reached by a matching move), a *group* ``( ... )`` of constituents, or an
  ordinary filter, tested at the position the path has reached.
* A repetition ``* + ? {m} {m,} {,n} {m,n} {*} {+}`` applies to the right-most preceding
  move or group together with the filters written after it: ``-- check{5,}`` repeats
  ``-- check`` (example consecutive-checks: "number of consecutive checks"), while in
  ``{F} -- +`` only the ``--`` repeats (example forced-moves-both-sides says so). With no
  move or group before it a repetition is an error (``path k +`` is rejected).
* A move in a path cannot take a parenthesised target filter: ``path --(-- --)`` and
  ``path -- ( -- -- )`` are rejected, while ``path k(-- --)`` is a filter and a group. A dash
  with a target inside another constituent (``path -- {B --(R)} {10,}``) is an ordinary
  filter tested where the path has got to, not a step of the path; so is a dash inside an
  operator (``path -- not K--``): the reference takes a constituent's filter whole, and only a
  filter that is a dash itself is a step.
* Moves written one against the other are successive steps (``path a--b--c`` is ``a--b``
  then ``--c``): the reference's move constituent ends after its right side, and the next
  dash, tied or not, starts the next one.
* The promotion of a move may be named by a string or a function's parameter
  (``path p--=T`` in babson1.cql), as outside a path.
* A path is greedy: it takes constituents up to the ``)`` or ``}`` that closes what
  encloses it, the end of the query, an operator that cannot start a constituent (a
  comparison, ``and``, ``or`` ...), which then takes the path's value as its left side, or
  a blank line at its top level. The reference lexer turns a blank line into an end mark for
  every path whose top level it is in, outside the brackets opened since ``path`` (a path
  directly inside another one ends too; one inside a ``( )`` group or a ``{ }`` of the path
  goes on): it ends whatever is being read, as the end of the query would, so ``path -- if
  check`` then a blank line is an ``if`` without its consequent, and ``path focus P``, a blank
  line, ``nestban --`` a path without constituents (:meth:`Reader.peek` reads the mark).
  The example files rely on it: in queenknightpromotion two
  paths follow each other in one ``{}`` after a blank line (the reference matches game 45 of
  cql6-sample at position 2, where both hold); followpaths-simple's ``find{...}``,
  knightpawnforkecho's ``echo``, babson1's ``NTypes+=1``, followpath's ``sort ... echo``
  and queenpawnpinecho's ``source: not legal ...`` (and its ``child:///"The black queen
  pins the P on "``, a comment for the child of the echo's target) all follow a blank line
  and are evaluated where the path starts, not where it ends.

The right side of a move is whatever set expression is written directly against the dash
(``Q--diagonal 1 T``, ``--~S&_``, ``N--g5=Q``); a side separated by white space is the
next constituent, as ``N--g5 check`` shows.
"""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.cql.kinds import NUMBER, SET, kind_of
from cqlindex.cql.reader import Reader
from cqlindex.cql.tokens import Kind, Token
from cqlindex.filters import catalogue

_DASHES = ("--", "[x]")
#: Operators that cannot start a constituent, so they end the path and apply to its value.
_BINARY_OPS = ("<", "<=", "==", ">=", ">", "!=", "[<]", "[>]", "[<=]", "[>=]", "/", "%", "|", "&", "->", "<-")


def parse_path(parser: Reader, token: Token) -> ast.Node:
    """``path [params] constituent ...``; ``token`` is the ``path`` keyword, already read."""
    params = _Params(parser)
    parser.path_depths.append(parser.depth)  # from here a blank line ends what is being read
    parser.path_braces.append(parser.braces)  # ... and '+', '*' are repetitions
    try:
        while params.read_one():
            pass
        params.check(token)
        parser.in_line += 1  # '+' '*' before ')' '}' '--' or the end are repetitions, not arithmetic
        try:
            items = _constituents(parser)
        finally:
            parser.in_line -= 1
    finally:
        parser.path_depths.pop()
        parser.path_braces.pop()
    if not items:
        raise parser.error("a path needs at least one constituent", parser.peek())
    atomic = frozenset(name for name, kind in parser.lasting_variables.items() if kind == "atomic")
    return ast.Path(token.span.to(items[-1].span), frozenset(params.words), tuple(items), params.focus,
                    params.focus_capture, params.max, params.low, params.high, params.title, atomic)


class _Params:
    """The parameters before a path's constituents, in any order, each at most once.

    The reference parser's rules: ``focus`` (or ``focus capture``) takes a set, ``max`` a
    filter, ``title`` a quoted string, and a range (one or two numbers) may stand among them;
    ``singlecolor`` excludes ``focus`` (it is a focus on the side to move), ``piecepath`` needs
    a focus, ``focus`` with ``primary`` is refused by the reference ("not currently supported"),
    and ``secondary`` is not a path parameter in CQL 6.2.
    """

    def __init__(self, parser: Reader) -> None:
        self.parser = parser
        self.words: set[str] = set()
        self.focus: ast.Node | None = None
        self.focus_capture = False
        self.max: ast.Node | None = None
        self.low: int | None = None
        self.high: int | None = None
        self.title: str | None = None

    def read_one(self) -> bool:
        parser = self.parser
        token = parser.peek()
        if token.kind is Kind.NUMBER and self.low is None:
            self.low = self.high = parser.number("")
            if parser.at_number():
                self.high = parser.number("")
            return True
        if token.is_word("secondary"):
            raise parser.error("'secondary' is not a parameter of 'path' in CQL 6.2 (only 'primary' is)", token)
        if token.kind is not Kind.WORD or token.text == "capture" or not catalogue.lookup(token.text, "path"):
            return False
        word = parser.next().text
        if word in self.words and word != "lastposition":
            raise parser.error(f"'{word}' is given twice to 'path'", token)
        self.words.add(word)
        if word == "focus":
            if parser.at_word("capture"):
                parser.next()
                self.focus_capture = True
            if parser.peek().kind is Kind.EOF:
                raise parser.error("'focus' needs a set of pieces", parser.peek())
            self.focus = parser.parse_union()
            if kind_of(self.focus, parser.variables) not in (SET, "any"):
                raise parser.error("'focus' needs a set of pieces", self.focus.span)
        elif word == "max":
            if parser.peek().kind is Kind.EOF:
                raise parser.error("'max' needs a numeric filter", parser.peek())
            self.max = parser.parse_filter()
        elif word == "title":
            if parser.peek().kind is not Kind.STRING or not parser.peek().text:
                raise parser.error("'title' needs a non-empty quoted string", parser.peek())
            self.title = parser.next().text
        return True

    def check(self, token: Token) -> None:
        words = self.words
        if "singlecolor" in words and "focus" in words:
            raise self.parser.error("'singlecolor' and 'focus' exclude each other in 'path'", token)
        if "piecepath" in words and not ({"focus", "singlecolor"} & words):
            raise self.parser.error("'piecepath' needs a 'focus' in 'path'", token)
        if "primary" in words and ({"focus", "singlecolor"} & words):
            raise self.parser.error("'focus' with 'primary' is not supported by CQL 6.2's path "
                                    "(write 'pathstart:depth==depth' as a constituent)", token)


def _at_end(parser: Reader) -> bool:
    """At what closes the path: ')' or '}' of an enclosing filter, the end (or a blank line at
    the path's top level, which :meth:`Reader.peek` reads as an end), or an operator that takes
    the path as its left operand (``path -- + == 3``, ``path -- check or mate``)."""
    return parser.peek().kind is Kind.EOF or parser.at_op(")", "}", ":", *_BINARY_OPS) or parser.at_word(
        "and", "or", "in", "attacks", "attackedby")


def _constituents(parser: Reader) -> list[ast.Node]:
    """Constituents up to the closing ')' / '}' or the end, repetitions folded into their unit."""
    items: list[ast.Node] = []
    unit: int | None = None  # index in items where the unit a repetition would repeat starts
    while not _at_end(parser):
        if _at_repetition(parser):
            if unit is None:
                raise parser.error("a repetition in a path must follow a move or a '( ... )' group", parser.peek())
            body = items[unit:]
            node = body[0] if len(body) == 1 else ast.Sequence(body[0].span.to(body[-1].span), tuple(body))
            items[unit:] = [parser.parse_repetition(node, path=True)]
            unit = None
        elif parser.at_op("("):
            unit = len(items)
            items.append(_group(parser))
        elif _at_move(parser):
            unit = len(items)
            items.append(_move(parser))
        elif parser.at_word("primary", "secondary"):
            # CQL 6.2 filters: the move that led here is the main continuation / a variation.
            word = parser.next()
            items.append(ast.Keyword(word.span, word.text))
        else:
            first = parser.i
            items.append(parser.parse_filter())
            if written_number(items[-1], parser.variables, braces=False):
                raise parser.error("a path constituent cannot be a number alone (a range written apart from "
                                   "its filter?)", items[-1].span)
            _refuse_generated_moves(parser, first)
    return items


def _refuse_generated_moves(parser: Reader, first: int) -> None:
    """The reference lexer rejects ``legal`` and ``countmoves`` at a path's top level (outside
    ``{ }`` or ``[ ]``), where their ``--`` would read as a step: ``path -- {legal --}`` is the
    way to write it. Checked over the tokens of the constituent just read, from ``first``."""
    depth = 0
    for token in parser.tokens[first:parser.i]:
        if token.is_op("{", "["):
            depth += 1
        elif token.is_op("}", "]"):
            depth -= 1
        elif depth == 0 and token.is_word("legal", "countmoves"):
            raise parser.error(f"'{token.text}' at the top level of a path: write it in braces, "
                               f"'{{{token.text} ...}}', so that its '--' is not read as a step", token)


def _at_repetition(parser: Reader) -> bool:
    return parser.at_op("*", "+", "?") or parser.at_repetition()


def _group(parser: Reader) -> ast.Node:
    start = parser.next()
    items = _constituents(parser)
    end = parser.expect_op(")", "to close the '(' group of the path")
    if not items:
        raise parser.error("a '( )' group in a path needs a constituent", start.span.to(end.span))
    return ast.Sequence(start.span.to(end.span), tuple(items))


def _at_move(parser: Reader) -> bool:
    """At a dash or take: ``--``, or a piece designator or variable written against one."""
    token = parser.peek()
    if token.is_op(*_DASHES):
        return True
    following = parser.peek(1)
    if token.is_op("~"):  # '~T--' (dingstheme.cql): the complement of a set, written against a dash
        token, following = following, parser.peek(2)
    side = token.kind is Kind.PIECES or (token.kind is Kind.WORD and token.text in parser.variables)
    return side and following.is_op(*_DASHES) and following.span.start == token.span.end


def _move(parser: Reader) -> ast.Dash:
    left: ast.Node | None = None
    complement = parser.next() if parser.at_op("~") else None
    first = parser.peek()
    if first.kind is Kind.PIECES:
        parser.next()
        left = ast.Pieces(first.span, first.pieces, first.squares, first.text)
    elif first.kind is Kind.WORD:
        parser.next()
        left = ast.Variable(first.span, first.text)
    if complement is not None and left is not None:
        left = ast.Unary(complement.span.to(left.span), "~", left)
        first = complement
    dash = parser.next()
    span = first.span.to(dash.span)
    right: ast.Node | None = None
    promote = promote_by = None
    if parser.at_op("("):
        raise parser.error(f"a move in a path cannot take a '( )' target after '{dash.text}'", parser.peek())
    if _touches(parser, span) and (parser.peek().kind in (Kind.PIECES, Kind.WORD, Kind.NUMBER) or parser.at_op("~")):
        right = parser.parse_union(allow_dash=False)
        if kind_of(right, parser.variables) not in (SET, "any"):
            raise parser.error(f"the right side of '{dash.text}' must be a set", right.span)
        span = span.to(right.span)
    if (_touches(parser, span) or right is not None) and parser.at_op("="):
        # '=Q', or a string or a function's parameter naming the piece ('P--=T' in babson1.cql)
        parser.next()
        promote, end, promote_by = parser.parse_promotion(dash, parser.parse_primary())
        span = span.to(end)
    if _touches(parser, span) and parser.at_op("("):
        raise parser.error(f"a move in a path cannot take a '( )' target after '{dash.text}'", parser.peek())
    return ast.Dash(span, left, right, dash.text == "[x]", promote, promote_by=promote_by)


def _touches(parser: Reader, span) -> bool:
    token = parser.peek()
    return token.kind is not Kind.EOF and token.span.start == span.end


_ARITHMETIC = frozenset("+-*/%")


def written_number(node: ast.Node, variables: dict, braces: bool = True) -> bool:
    """Whether a line constituent is refused as a number, as the reference refuses it.

    The reference refuses three kinds of constituent only: a number written as such ('3', '-3',
    '{3}', '(3)'), a numeric variable alone ('v', but not '{v}': braces around a lone variable
    make a compound), and numeric arithmetic ('{3+4}', '-v'); it says the number was likely meant
    as a range. Every other numeric filter is a constituent that matches where it has a value:
    '#R', 'rotate90 2 Ra1', a nested 'line', 'sort line ...', '{3 4}'. A path refuses the same
    constituents (its '( )' groups read one by one) but takes '{3}': ``braces=False``.
    """
    while braces and isinstance(node, ast.Compound) and len(node.items) == 1 and not isinstance(node.items[0], ast.Variable):
        node = node.items[0]  # braces around one filter are that filter (the reference drops them)
    if isinstance(node, ast.Number):
        return True
    if isinstance(node, ast.Variable):
        return variables.get(node.name) == NUMBER
    if isinstance(node, (ast.Binary, ast.Unary)) and node.op in _ARITHMETIC:
        return kind_of(node, variables) == NUMBER
    return False
