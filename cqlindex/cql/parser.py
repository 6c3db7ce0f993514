"""Parse CQL 6.1 (with 6.2's Unicode spellings) into the AST of :mod:`cqlindex.cql.ast`.

Precedence climbing, one method per level, lowest first:
greedy prefix filters (transforms, find, if, sort, echo, square, piece: their argument runs
as far as it can, ``or`` included) < ``or`` < ``and`` < ``not`` < ``in`` < comparisons
(chained) < ``+ -`` < ``* / %`` < unary and numeric prefixes < ``|`` < ``&`` < ``~`` <
``attacks``/``attackedby`` < directions, ``light``/``dark`` < ``:``. A word is looked up in the
filter catalogue (:mod:`cqlindex.filters.catalogue`): its declaration names the method that
reads it, one of its family's grammar class (``cqlindex/filters/<family>/grammar.py``) mixed
into :class:`Parser`; a refused word is refused there with the catalogue's reason.

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

from cqlindex.cql import ast
from cqlindex.cql.kinds import LOGICAL, NUMBER, POSITION, SET, STRING, comparison_kind, compared_value_kind, kind_of
from cqlindex.cql.limits import enforce, nested
from cqlindex.cql.reader import ANY_PIECE
from cqlindex.cql.tokens import Kind, Span, Token
from cqlindex.filters import catalogue
from cqlindex.filters.control.grammar import ControlGrammar
from cqlindex.filters.dictionaries.grammar import DictionariesGrammar
from cqlindex.filters.game.grammar import GameGrammar
from cqlindex.filters.logic.grammar import LogicGrammar
from cqlindex.filters.moves.grammar import MovesGrammar
from cqlindex.filters.output.grammar import OutputGrammar
from cqlindex.filters.refused.grammar import RefusedGrammar
from cqlindex.filters.relation.grammar import RelationGrammar
from cqlindex.filters.sequences.grammar import SequencesGrammar
from cqlindex.filters.sets import DIRECTIONS
from cqlindex.filters.sets.grammar import SetsGrammar
from cqlindex.filters.spec import DASH_TARGET, HEADER
from cqlindex.filters.strings.grammar import StringsGrammar
from cqlindex.filters.transforms.grammar import TransformsGrammar
from cqlindex.filters.tree.grammar import TreeGrammar
from cqlindex.filters.variables.grammar import VariablesGrammar

#: Names the precedence levels read, taken from the catalogue (which declares each once).
TRANSFORMS = tuple(d.name for d in catalogue.declarations() if d.node is ast.Transform and d.supported)
_TIGHT_WORDS = tuple(d.name for d in catalogue.declarations() if d.node is ast.Unary and d.kind == "set")
_NUMBER_WORDS = tuple(d.name for d in catalogue.declarations() if d.node is ast.Unary and d.kind == "number")
_ARGUMENT_WORDS = tuple(name for name in _NUMBER_WORDS if name not in ("abs", "sqrt"))  # take a set, bind tight
_RELATIONAL = ("<", "<=", "==", ">=", ">", "!=")
_PATH_COMPARISONS = ("[<]", "[>]", "[<=]", "[>=]")
_STOP_AFTER_WILDCARD = ("-->", "<--", ")", "}", "--", "[x]")


class Parser(SetsGrammar, MovesGrammar, TreeGrammar, SequencesGrammar, RelationGrammar, GameGrammar,
             LogicGrammar, VariablesGrammar, DictionariesGrammar, ControlGrammar, OutputGrammar, TransformsGrammar,
             StringsGrammar, RefusedGrammar):
    """One query's parser. Use :func:`parse`."""

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
        return ast.Query(header, body, self.text, self.source, tuple(self.unbound_uses))

    def parse_header(self) -> ast.Header:
        self.next()
        self.expect_op("(", "after 'cql'")
        values: dict = {}
        while not self.at_op(")"):
            token = self.next()
            name = token.text
            if token.kind is Kind.EOF:
                raise self.error("missing ')' closing the cql(...) parameters", token)
            if catalogue.lookup(name, HEADER) is None:  # the reference knows no other (its cqlnode-parse)
                raise self.error(f"'{name}' is not a cql() parameter", token)
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
            else:  # 'sort' alone
                raise self.error(f"'{name}' in cql() is 'sort matchcount'", token)
        self.next()
        return ast.Header(**values)

    def parse_macro(self, text: str, span: Span) -> ast.Node:
        """The filter ``text`` stands for, every node placed at ``span`` (where the query wrote its name).

        For filters the reference defines as CQL of its own (``hhdb "<eg>"`` ...): parsing that CQL
        gives both engines their meaning at once, and errors point at the name in the query.
        """
        sub = Parser(text, self.source)
        node = sub.parse_filter()
        if sub.peek().kind is not Kind.EOF:
            raise self.error(f"internal: the definition of this filter does not parse ({text!r})", span)
        self.deferred.extend(sub.deferred)
        return ast.respan(node, span)

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
            if STRING in {kind_of(left, self.variables), kind_of(right, self.variables)} <= {STRING, "any"}:
                return ast.Binary(left.span.to(right.span), "in", left, right)  # a substring
            for side in (left, right):
                if kind_of(side, self.variables) not in (SET, "any"):
                    raise self.error("both sides of 'in' must be sets", side.span)
            return ast.Binary(left.span.to(right.span), "in", left, right)
        return left

    def parse_compare(self) -> ast.Node:
        operands = [self.parse_additive()]
        ops: list[str] = []
        if kind_of(operands[0], self.variables) == LOGICAL and not (
                self.peek().kind is Kind.OP and self.peek().text in _RELATIONAL + _PATH_COMPARISONS
                and compared_value_kind(operands[0], self.variables) != LOGICAL):
            # A filter without a value is never the left side of a comparison: the operator
            # belongs to an enclosing level (``find all check >= 20`` is ``{find all check} >= 20``,
            # as the reference engine reads it).
            return operands[0]
        while self.peek().kind is Kind.OP and self.peek().text in _RELATIONAL + _PATH_COMPARISONS:
            ops.append(self.next().text)
            operands.append(self.parse_additive())
        if not ops:
            return operands[0]
        self.check_chain(ops, operands)
        return ast.Compare(operands[0].span.to(operands[-1].span), tuple(ops), tuple(operands))

    def check_chain(self, ops: list[str], operands: list[ast.Node]) -> None:
        """The reference reads a chain from the right, ``a == b == c`` as ``a == {b == c}``, and a
        comparison's value is a number, string or position like its sides', none when it compares
        two sets or is a '!=': so ``1 == P == .`` is refused (``P == .`` has no value), and
        ``1 == #P != 1``, but not ``P == . == 1``."""
        right, right_kind = operands[-1], self.value_kind(operands[-1])
        for i in reversed(range(len(ops))):
            left = operands[i]
            self.check_comparable(ops[i].strip("[]"), left, right, right_kind)
            right = ast.Compare(left.span.to(operands[-1].span), tuple(ops[i:]), tuple(operands[i:]))
            right_kind = comparison_kind(ops[i].strip("[]"), kind_of(left, self.variables), right_kind)

    def check_comparable(self, op: str, left: ast.Node, right: ast.Node, right_kind: str | None = None) -> None:
        kinds = self.value_kind(left), right_kind or self.value_kind(right)
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

    def at_spaced_repetition(self) -> bool:
        """At ``{2, 4}`` or ``{ 2,}``: a repetition with spaces inside, which no compound can be either."""
        k = 1
        while self.peek(k).kind is Kind.NUMBER or self.peek(k).is_op(","):
            k += 1
        return k > 1 and self.peek(k).is_op("}") and any(self.peek(j).is_op(",") for j in range(1, k))

    def is_wildcard(self) -> bool:
        """``+``/``*`` closing a line constituent (``check+ -->``), not arithmetic: what follows it
        ends the constituent or is another repetition (``k+*``, ``k+{2}``), as in the reference.
        In a path, outside the braces opened since ``path``, they are always repetitions: the
        reference reads ``path -- check + mate`` as ``-- check`` repeated, then ``mate``."""
        if not (self.in_line > 0 and self.at_op("+", "*", "?")):
            return False
        if self.path_braces and self.path_braces[-1] == self.braces:
            return True
        k = 1
        while self.peek(k).is_op("+", "*", "?"):
            k += 1
        following = self.peek(k)
        return following.kind is Kind.EOF or following.is_op(*_STOP_AFTER_WILDCARD) or (
            following.is_op("{") and (self.peek(k + 1).kind is Kind.NUMBER or self.peek(k + 1).is_op(",", "+", "*")))

    def at_negative_number(self, left: ast.Node) -> bool:
        """A '-' after a filter without a numeric value starts the next filter, a negation: ``K-3``
        is ``K`` then ``-3``, ``K - #A`` is ``K`` then ``-#A`` (and ``A - B`` an error, as ``-B`` is)."""
        return self.at_op("-") and kind_of(left, self.variables) not in (NUMBER, "any")

    def check_arithmetic(self, op: Token, left: ast.Node, right: ast.Node) -> None:
        """Arithmetic takes numbers (a set is not counted here, unlike in a comparison); '+' also joins strings."""
        kinds = self.value_kind(left), self.value_kind(right)
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
            if self.value_kind(arg) not in (NUMBER, "any"):
                raise self.error("unary '-' needs a number after it", arg.span)
            return ast.Unary(token.span.to(arg.span), "-", arg)
        if token.is_op("#"):
            self.next()
            arg = self.parse_unary()
            if kind_of(arg, self.variables) not in (SET, STRING, "any"):
                raise self.error("'#' needs a set or a string after it", arg.span)
            return ast.Unary(token.span.to(arg.span), "#", arg)
        if token.is_word(*_NUMBER_WORDS) and not token.is_word(*_ARGUMENT_WORDS):
            self.next()
            arg = self.parse_unary()
            return ast.Unary(token.span.to(arg.span), token.text, arg)
        if token.is_word(*_ARGUMENT_WORDS):
            self.next()
            arg = self.parse_union()
            return ast.Unary(token.span.to(arg.span), token.text, arg)
        return self.parse_union()

    def parse_union(self, allow_dash: bool = True) -> ast.Node:
        left = self.parse_arrows()
        if allow_dash and self.at_op("--", "[x]") and self.peek().span.start == self.tokens[self.i - 1].span.end:
            # 'F--G' binds looser than '|': 'b|q--' is '{b|q}--'
            if kind_of(left, self.variables) not in (SET, "any"):
                raise self.error(f"the left side of '{self.peek().text}' must be a set", left.span)
            return self.parse_dash(left)
        return left

    def parse_intersection(self) -> ast.Node:
        left = self.parse_complement()
        while self.at_op("&") or self.at_cql5_on():
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

    def parse_arrows(self) -> ast.Node:
        """CQL 6.2's attack arrows bind looser than the set operators: 'T->(.<-k)|k' is
        'T->{(.<-k)|k}' (the shipped example dingstheme-simple.cql matches only read so)."""
        left = self.parse_set_union()
        while self.at_op("->", "<-"):
            token = self.next()
            right = self.parse_set_union()
            self.check_arrow_operands(token, left, right)
            if self.at_op("->", "<-"):
                left = self._arrow_chain(token, left, right)
                continue
            left = ast.Binary(left.span.to(right.span), "attacks" if token.text == "->" else "attackedby", left, right)
        return left

    def check_arrow_operands(self, token: Token, *sides: ast.Node) -> None:
        for side in sides:
            if kind_of(side, self.variables) not in (SET, "any"):
                raise self.error(f"'{token.text}' needs sets on both sides", side.span)

    def parse_set_union(self) -> ast.Node:
        left = self.parse_intersection()
        while self.at_op("|"):
            op = self.next()
            right = self.parse_intersection()
            self.check_set_operands(op, left, right)
            left = ast.Binary(left.span.to(right.span), "|", left, right)
        return left

    def parse_attacks(self) -> ast.Node:
        """The words 'attacks' and 'attackedby' bind tighter than '|' (the arrows do not)."""
        left = self.parse_tight()
        while self.at_word("attacks", "attackedby"):
            token = self.next()
            right = self.parse_tight()
            self.check_arrow_operands(token, left, right)
            left = ast.Binary(left.span.to(right.span), token.text, left, right)
        return left

    def _arrow_chain(self, first: Token, left: ast.Node, right: ast.Node) -> ast.Node:
        """``a -> b -> c ...`` (three sets or more, one direction): a ray of attacks (CQL 6.2),
        evaluated by :mod:`cqlindex.filters.sets.pins_rays`; its value is the first set's squares."""
        args = [left, right]
        while self.at_op("->", "<-"):
            token = self.next()
            if token.text != first.text:
                raise self.error("a chain of attack arrows cannot mix '->' and '<-'", token)
            arg = self.parse_set_union()
            self.check_arrow_operands(token, arg)
            args.append(arg)
        return ast.Ray(left.span.to(args[-1].span), first.text, (), tuple(args))

    @nested
    def parse_tight(self) -> ast.Node:
        """Directions and light/dark bind tighter than everything but ':'."""
        token = self.peek()
        if token.is_word(*DIRECTIONS) and not self.peek(1).is_op(":"):
            self.next()
            low, high = 1, 7
            distance = None
            if self.at_number():
                low = high = self.number("")
                if self.at_number():
                    high = self.number("")
            elif self.peek().kind is Kind.WORD and self.variables.get(self.peek().text) == NUMBER \
                    and not self.peek(1).is_op(":"):
                word = self.next()  # 'up DeltaRank Piece': a distance computed by the query
                distance = ast.Variable(word.span, word.text)
                if self.at_range_bound() and not self.peek(1).is_op(":"):  # 'up DeltaRank 3 Piece': a range
                    self.defer_unsupported("a direction's range with a variable bound", self.next())
            arg = self.parse_tight()
            if kind_of(arg, self.variables) not in (SET, "any"):
                raise self.error(f"'{token.text}' needs a set after it (and its distance)", arg.span)
            return ast.Direction(token.span.to(arg.span), token.text, low, high, arg, distance)
        if token.is_word(*_TIGHT_WORDS):
            self.next()
            arg = self.parse_tight()
            return ast.Unary(token.span.to(arg.span), token.text, arg)
        return self.parse_colon()

    @nested
    def parse_colon(self) -> ast.Node:
        left = self.parse_indexed()
        while self.at_op("~~") and not self.match_barred:  # CQL 6.1 regular-expression match on strings
            self.next()
            right = self.parse_indexed()
            for side in (left, right):
                if kind_of(side, self.variables) not in (STRING, "any"):
                    raise self.error("'~~' needs strings on both sides", side.span)
            left = ast.Binary(left.span.to(right.span), "~~", left, right)
        if self.at_op(":") and not self.colon_barred:
            if kind_of(left, self.variables) not in (POSITION, "any") and not isinstance(left, ast.Path):
                # the reference: 'move from K : check' is extra text, a ':' needs a position
                raise self.error("':' needs a position on its left (parent, child, a position variable...)",
                                 self.peek())
            self.next()
            if self.at_op("#", "~"):
                # 'source:#[Aa]' counts at the source position
                op = self.next()
                arg = self.parse_colon()
                body: ast.Node = ast.Unary(op.span.to(arg.span), op.text, arg)
            elif self.at_word(*DIRECTIONS, *_TIGHT_WORDS):
                body = self.parse_tight()  # 'source:dark K'
            elif self.at_word(*_NUMBER_WORDS):
                body = self.parse_unary()  # 'source:rank K - rank K' is '{source:rank K} - rank K'
            else:
                body = self.parse_colon()
            return ast.Colon(left.span.to(body.span), left, body)
        return left

    def parse_indexed(self) -> ast.Node:
        """A primary, and the string indexes after it: ``"mate"[1]``, ``x[1:3]`` (a string or a
        variable may stand apart from its index)."""
        node = self.parse_primary()
        while self.at_op("[") and (self.peek().span.start == node.span.end
                                   or isinstance(node, (ast.Variable, ast.String, ast.Index))):
            node = self.parse_indexing(node)  # 'x [1]' too, as the reference reads it
        return node

    # -- primaries -------------------------------------------------------------------------
    def parse_primary(self) -> ast.Node:
        token = self.peek()
        if token.kind is Kind.PIECES:
            following = self.peek(1)
            if (token.pieces == ANY_PIECE and following.kind is Kind.WORD and following.span.start == token.span.end
                    and self.peek(2).is_word("in")):
                # CQL 6.2 writes 'piece x in S' as '◭x∊S' ('[Aa]x[element]S' in ASCII).
                self.next()
                return self.parse_iterate(ast.Keyword(token.span, "piece"), written_name=True)
            if (token.pieces == ANY_PIECE and following.kind is Kind.WORD and following.span.start == token.span.end
                    and self.peek(2).is_op("=")):
                # ... and 'piece x = S' as '◭x=S' ('[Aa]x=S')
                self.next()
                return self.parse_piece_assignment(ast.Keyword(token.span, "piece"), self.next())
            if (token.pieces == ANY_PIECE and self.written(token) == "◭" and following.kind is Kind.WORD
                    and following.span.start == token.span.end and following.text not in self.piece_variables):
                # the reference reads '◭name' as a piece variable ('#◭source' refused: no such variable)
                raise self.error(f"'◭{following.text}': '{following.text}' is no piece variable", following)
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
            if self.at_spaced_repetition():
                raise self.error("no spaces inside a repetition '{m,n}'", token)
            self.next()
            barred, self.colon_barred, matching, self.match_barred = self.colon_barred, 0, self.match_barred, 0
            items = self.parse_items()
            self.colon_barred, self.match_barred = barred, matching
            end = self.expect_op("}", "to close '{'")
            if not items:
                raise self.error("'{}' must hold at least one filter", token.span.to(end.span))
            return ast.Compound(token.span.to(end.span), tuple(items))
        if token.is_op("("):
            self.next()
            if self.at_op(")"):
                raise self.error("'()' must hold a filter", self.peek())
            barred, self.colon_barred, matching, self.match_barred = self.colon_barred, 0, self.match_barred, 0
            node = self.parse_filter()
            self.colon_barred, self.match_barred = barred, matching
            self.expect_op(")", "to close '('")
            return node
        if token.kind is Kind.OP and token.text.startswith("\\"):
            return self.parse_capture(self.next())
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
            return self.parse_bound_name(token)
        if token.kind is Kind.WORD:
            return self.parse_named(token)
        raise self.error(f"expected a filter, found {self.describe(token)}", token)

    def parse_named(self, token: Token) -> ast.Node:
        """A word: a filter of the catalogue (read by its grammar), a refused one, or a variable."""
        if self.in_dash_target and catalogue.grammar(token.text, DASH_TARGET):
            return self.parse_keyword(self.next())  # what the move that led here was
        method = self.KEYWORDS.get(token.text)
        refused = catalogue.refusal(token.text)
        what = f"'{token.text}' ({refused.refused})" if refused is not None else ""
        if method is not None:
            if refused is not None:
                self.defer_unsupported(what, token)  # reported once the whole query has parsed
            return method(self, self.next())
        if refused is not None:
            raise self.unsupported(what, token)
        return self.parse_variable(self.next())

    def parse_keyword(self, token: Token) -> ast.Node:
        return ast.Keyword(token.span, token.text)

    #: Filter name -> its grammar method, from the catalogue (filled in below the class).
    KEYWORDS: dict = {}


Parser.KEYWORDS.update({name: getattr(Parser, method) for name, method in catalogue.grammars().items()})


def parse(text: str, source: str = "<query>") -> ast.Query:
    """Parse a CQL file or a bare body. Raises CqlSyntaxError or CqlUnsupportedError."""
    return enforce(Parser(text, source).parse_query())  # chains regrouped, then the limits of cql/limits.py


__all__ = ["parse", "Parser"]
