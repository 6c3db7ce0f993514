"""The grammar of the move filter, CQL 6.2's dash filters and consecutivemoves."""

from __future__ import annotations

import dataclasses

from cqlindex.cql import ast
from cqlindex.cql.kinds import POSITION, SET, STRING, kind_of
from cqlindex.cql.reader import Reader
from cqlindex.cql.tokens import Kind, Span, Token
from cqlindex.filters import catalogue


_LEGAL_TARGETS = ("o-o", "o-o-o", "castle", "enpassant")


class MovesGrammar(Reader):
    """The moves family's grammar."""

    def parse_dash(self, left: ast.Node | None) -> ast.Node:
        """``F--G`` / ``F[x]G`` (CQL 6.2), written without spaces; each part may be absent.

        After the right side may come ``=P`` (the promotion: a whole filter, so ``--=q and 2``
        promotes to ``q and 2`` and is an error) and ``(F ...)``, the target: filters that must
        hold at the position the move leads to; with one, the dash's value is the last target
        filter's value there (``x=e4--(to)`` is a set). Inside a target ``o-o``, ``o-o-o``,
        ``castle`` and ``enpassant`` say what the move was.

        A ``-`` written against a dash starts its right side, a negation and so not a set: the
        reference refuses ``countmoves --- 2`` and ``2---(btm)`` though it takes ``-- + 2``.

        Dashes cannot be chained: no move filter may be written against the end of a dash. A ``(``
        after a dash across white space or a line break is refused, as the reference refuses
        it (``-- (btm)``: no space between the dash and its target); ``--(k) --`` is two filters.
        """
        dash = self.next()
        start = left.span if left is not None else dash.span
        right: ast.Node | None = None
        promote = promote_by = None
        target: tuple[ast.Node, ...] | None = None
        end = dash.span

        def adjacent() -> bool:
            return self.peek().span.start == end.end

        following = self.peek()
        if adjacent() and (following.kind is Kind.PIECES or (following.is_op("{") and not self.at_repetition())
                           or (following.kind is Kind.WORD and following.text in self.KEYWORDS
                               and following.text not in ("not", "if"))):
            right = self.parse_union(allow_dash=False)
        elif adjacent() and following.kind is Kind.NUMBER:  # '×2': the reference's right side, no set
            raise self.error(f"the right side of '{dash.text}' must be a set, not a number", following)
        elif adjacent() and following.is_op("-"):  # read as a negated filter, which is no set
            raise self.error(f"the right side of '{dash.text}' must be a set, not a negation", following)
        elif adjacent() and following.kind is Kind.WORD and (
                following.text in self.variables or (self.bindings and following.text in self.bindings[-1])):
            right = self.parse_union(allow_dash=False)  # 'E--S:E': ':' binds tighter than the dash
        if right is not None:
            if kind_of(right, self.variables) not in (SET, "any"):
                raise self.error(f"the right side of '{dash.text}' must be a set", right.span)
            end = right.span
        if (adjacent() or right is not None) and self.at_op("="):  # 'e2--Qa4 =q', not 'e2-- =q'

            self.next()
            promote, end, promote_by = self.parse_promotion(dash, self.parse_or())
        if self.at_op("(") and not adjacent():
            raise self.error(f"no space between '{dash.text}' and the '(' of its target", self.peek())
        if self.at_op("(") and adjacent():
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
        if self.at_op("--", "[x]") and adjacent():
            raise self.error("CQL 6.2 move filters cannot be chained", self.peek())
        return ast.Dash(start.to(end), left, right, dash.text == "[x]", promote, target, promote_by=promote_by)

    def parse_promotion(self, dash: Token, value: ast.Node) -> tuple[frozenset[str] | None, Span, ast.Node | None]:
        """The piece letters of the promotion ``value`` written after ``dash=``, or (None, its span,
        the string filter naming the piece type where the move is made)."""
        kind = kind_of(value, self.variables)
        if isinstance(value, ast.Pieces):
            if value.squares != (1 << 64) - 1 or not value.pieces:
                raise self.error("a promotion names a piece type, not squares", value.span)
            return value.pieces, value.span, None
        if isinstance(value, ast.String) and len(value.value) == 1 and value.value in "QRBNqrbn":
            return frozenset(value.value), value.span, None
        if kind in (STRING, "any"):
            return None, value.span, value
        raise self.error("a promotion takes a piece designator such as Q, or a string", value.span)

    def parse_move(self, token: Token) -> ast.Node:
        mode = "played"
        params: list[tuple[str, ast.Node | None]] = []
        end = token.span
        while True:
            word = self.peek()
            decl = catalogue.lookup(word.text, "move") if word.kind is Kind.WORD else None
            if decl is None:
                break
            self.next()
            if decl.refused is not None:
                self.defer_unsupported(f"'move {word.text}' ({decl.refused})", word)
            if word.text in ("legal", "pseudolegal", "previous"):
                if mode != "played":
                    raise self.error(f"'{word.text}' conflicts with '{mode}'", word)
                mode = word.text
                params.append((word.text, None))
            elif word.text == "promote":
                # only a piece designator without squares, as the reference parser demands
                piece = self.next()
                if piece.kind is not Kind.PIECES or piece.squares != (1 << 64) - 1 or not piece.pieces:
                    raise self.error("'promote' is followed by a piece designator such as Q or [RN]", piece)
                params.append((word.text, ast.Pieces(piece.span, piece.pieces, piece.squares, piece.text)))
                end = piece.span
                continue
            elif decl.kind == SET or word.text == "comment":  # 'from S' ...; CQLi's 'comment (...)'
                value = self.parse_union() if decl.kind == SET else self.parse_output(word)
                params.append((word.text, value))
                end = value.span
                continue
            else:
                params.append((word.text, None))
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

    def parse_legal(self, token: Token) -> ast.Node:
        """``legal F--G`` / ``pseudolegal F--G`` (CQL 6.2): one dash filter follows, not ``[x]``;
        its target, if any, is one of ``o-o``, ``o-o-o``, ``castle``, ``enpassant``."""
        if self.at_op("--", "[x]") and self.peek().span.start == token.span.end:
            # the reference: a character against '--' where a set should be ('legal--')
            raise self.error(f"a space is needed between '{token.text}' and '{self.peek().text}'", self.peek())
        if not self.at_op("--") and not (self.peek().kind is not Kind.EOF and self._dash_follows()):
            raise self.error(f"'{token.text}' is followed by a move filter such as '--'", self.peek())
        move = self.parse_dash(None) if self.at_op("--", "[x]") else self.parse_union()
        if not isinstance(move, ast.Dash) or move.capture or move.mode != "played":
            raise self.error(f"'{token.text}' is followed by one '--' move filter (not '[x]')", move.span)
        if move.target is not None and (len(move.target) != 1 or not isinstance(move.target[0], ast.Keyword)
                                        or move.target[0].name not in _LEGAL_TARGETS):
            raise self.error(f"the target of '{token.text} --(...)' is one of o-o, o-o-o, castle, enpassant",
                             move.span)
        if move.promotes and self.at_op("{"):
            # the reference reads the braces as the move's target, which a promotion excludes
            raise self.error(f"'{token.text} --=...' takes no target: the '{{' after it", self.peek())
        return dataclasses.replace(move, span=token.span.to(move.span), mode=token.text)

    def _dash_follows(self) -> bool:
        """Whether a set written against a dash comes next ('legal e2--e4', 'legal I--')."""
        for k in range(1, 8):
            token = self.peek(k)
            if token.kind is Kind.EOF:
                return False
            if token.is_op("--", "[x]"):
                return token.span.start == self.peek(k - 1).span.end
        return False

    def parse_currentmove(self, token: Token) -> ast.Node:
        """``currentmove D``: a dash filter (``--``, ``K--e8``, ``[x]q``) follows."""
        move = self.parse_dash(None) if self.at_op("--", "[x]") else self.parse_union()
        if not isinstance(move, ast.Dash) or move.mode != "played":
            raise self.error("'currentmove' is followed by a move filter such as '--' or 'K--e8'", move.span)
        return ast.Call(token.span.to(move.span), token.text, (move,))

    def parse_countmoves(self, token: Token) -> ast.Node:
        """``countmoves D``: D is a dash filter (``--``, ``[x]``, ``legal --``, ``pseudolegal --``)."""
        move = self.parse_dash(None) if self.at_op("--", "[x]") else self.parse_union()
        if not isinstance(move, ast.Dash):
            raise self.error("'countmoves' is followed by a move filter such as '--' or 'legal --'", move.span)
        return ast.CountMoves(token.span.to(move.span), move)

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
        if len(args) != 2 or any(not isinstance(a, ast.Variable) or POSITION not in (
                kind_of(a, self.variables), self.ended.get(a.name)) for a in args):
            raise self.error("'consecutivemoves' takes two position variables", token.span.to(end.span))
        return ast.ConsecutiveMoves(token.span.to(end.span), quiet, low, high, args[0], args[1])
