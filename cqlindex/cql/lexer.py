"""Turn CQL text into tokens, mapping CQL 6.2's Unicode spellings to their ASCII forms.

The mapping happens here, token by token, rather than as a text substitution up front, so
that every span still points at what the user wrote. Piece designators are lexed whole
(``[RQ]a-h8`` is one token), because CQL forbids spaces inside them and the parser should
never have to glue them together.
"""

from __future__ import annotations

import re

from cqlindex.cql.limits import check_number
from cqlindex.cql.tokens import Kind, Span, Token
from cqlindex.errors import CqlSyntaxError

WHITE_PIECES = "KQRBNP"
BLACK_PIECES = "kqrbnp"
_PIECE_LETTERS = {"A": frozenset(WHITE_PIECES), "a": frozenset(BLACK_PIECES), "_": frozenset("_"),
                  **{c: frozenset(c) for c in WHITE_PIECES + BLACK_PIECES}}
_ALL_SQUARES = (1 << 64) - 1

_SQUARE_PART = r"[a-h](?:-[a-h])?[1-8](?:-[1-8])?"
_SQUARE_RE = re.compile(_SQUARE_PART)
_DESIGNATOR_RE = re.compile(rf"([KQRBNPkqrbnpAa_])?({_SQUARE_PART})?")
_WORD_RE = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_NUMBER_RE = re.compile(r"[0-9]+")
_CAPTURE_RE = re.compile(r"-?[0-9]")
_DIGITS = frozenset("0123456789")
#: A game result, one token to the reference (only 'result' takes one): '1-0' is no arithmetic.
_RESULT_RE = re.compile(r"(?:1-0|0-1|1/2-1/2)(?![A-Za-z0-9_$])")
_CASTLE_RE = re.compile(r"[oO]-[oO](?:-[oO])?(?![A-Za-z0-9_$-])")
_OPERATORS = sorted(
    ["-->", "<--", "--", "->", "<-", "==", "!=", "<=", ">=", "=?", "+=", "-=", "*=", "/=", "%=", "~~",
     "<", ">", "=", "+", "-", "*", "/", "%", "|", "&", "~", "#", ":", "(", ")", "{", "}", ",", ".", "?", "]"],
    key=len, reverse=True)

# CQL 6.2 Unicode spellings. Figurines and piece-class symbols combine into one designator.
_FIGURINES = {"♔": "K", "♕": "Q", "♖": "R", "♗": "B", "♘": "N", "♙": "P",
              "♚": "k", "♛": "q", "♜": "r", "♝": "b", "♞": "n", "♟": "p",
              "△": "A", "▲": "a", "□": "_", "◭": "Aa"}
_SYMBOL_WORDS = {"✵": "flip", "⬓": "flipcolor", "∀": "all", "⊢": "path", "◎": "focus", "∙": "currentposition",
                 "∊": "in"}
#: What a backslash and the character after it stand for, in a string or alone (``"pin" + \\n``).
_BARE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}
_BRACKET_WORDS = {"element": "in", "forall": "all"}
_SYMBOL_OPS = {"≺": "[<]", "≻": "[>]", "≼": "[<=]", "≽": "[>=]", "→": "->", "←": "<-", "≤": "<=", "≥": ">=", "≠": "!=", "∪": "|", "∩": "&", "×": "[x]",
               "――": "--", "▦": "."}  # a lone "―" is no symbol (the reference: invalid character)


def square_mask(text: str) -> int:
    """Mask of a square part such as ``e4``, ``a-h8``, ``c1-8`` or ``a-d1-4``."""
    files = text[0], text[2] if len(text) > 2 and text[1] == "-" else text[0]
    rest = text[3:] if len(text) > 2 and text[1] == "-" else text[1:]
    ranks = rest[0], rest[2] if len(rest) > 2 else rest[0]
    f0, f1 = sorted((ord(files[0]) - 97, ord(files[1]) - 97))
    r0, r1 = sorted((int(ranks[0]) - 1, int(ranks[1]) - 1))
    mask = 0
    for r in range(r0, r1 + 1):
        for f in range(f0, f1 + 1):
            mask |= 1 << (r * 8 + f)
    return mask


class Lexer:
    def __init__(self, text: str, source: str = "<query>") -> None:
        self.text = text
        self.source = source
        self.pos = 0
        self.line = 1
        self.line_start = 0
        self.last: Token | None = None  # the token before the one being read
        self.subscripts = 0  # dictionary subscripts 'X[' open, each closed by an operator ']'

    def error(self, message: str, start: int, end: int | None = None) -> CqlSyntaxError:
        return CqlSyntaxError(message, self.text, self._span(start, end or start + 1), self.source)

    def _span(self, start: int, end: int) -> Span:
        line = self.text.count("\n", 0, start) + 1
        col = start - (self.text.rfind("\n", 0, start) + 1) + 1
        return Span(line, col, start, end)

    def tokens(self) -> list[Token]:
        out: list[Token] = []
        while True:
            token = self._next()
            if (token.kind is Kind.PIECES and self.subscripts and self.text.startswith("]", self.pos)
                    and token.text not in (".", "▦")):
                # the reference's lexer reads no designator but '.' against a subscript's ']':
                # 'X[ a5]', 'X[ K]' are refused ('X[ a5 ]' and 'X[ .]' are keys)
                raise self.error(f"']' written against the piece designator {token.text!r}: "
                                 f"leave a space before it", self.pos)
            self.last = token
            out.append(token)
            if token.kind is Kind.EOF:
                return out

    def _skip_space_and_comments(self) -> None:
        text = self.text
        while self.pos < len(text):
            c = text[self.pos]
            if c.isspace():
                self.pos += 1
            elif text.startswith("///", self.pos):
                return  # the comment-output filter, not a comment
            elif text.startswith("//", self.pos) or c == ";":
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.error("unterminated comment: '/*' has no matching '*/'", self.pos, self.pos + 2)
                self.pos = end + 2
            else:
                return

    def _next(self) -> Token:
        self._skip_space_and_comments()
        text, start = self.text, self.pos
        if start >= len(text):
            return Token(Kind.EOF, "", self._span(start, start))
        c = text[start]
        if c in _FIGURINES:
            return self._figurines(start)
        if c in _SYMBOL_WORDS:
            self.pos += 1
            return Token(Kind.WORD, _SYMBOL_WORDS[c], self._span(start, self.pos))
        for symbol, op in _SYMBOL_OPS.items():
            if text.startswith(symbol, start):
                self.pos += len(symbol)
                if op == ".":
                    return self._pieces(start, frozenset("KQRBNPkqrbnp_"), _ALL_SQUARES)
                return Token(Kind.OP, op, self._span(start, self.pos))
        if c == '"':
            return self._string(start)
        if c == "[" and self._at_subscript(start):
            self.pos += 1
            self.subscripts += 1
            return Token(Kind.OP, "[", self._span(start, self.pos))
        if c == "]" and self.subscripts:
            self.pos += 1
            self.subscripts -= 1
            return Token(Kind.OP, "]", self._span(start, self.pos))
        if c == "[":
            return self._bracket(start)
        if c == "/" and text.startswith("///", start):
            self.pos += 3
            return Token(Kind.OP, "///", self._span(start, self.pos))
        castle = _CASTLE_RE.match(text, start)
        if castle:
            self.pos = castle.end()
            return Token(Kind.WORD, castle.group(0).lower(), self._span(start, self.pos))
        if c == "\\":
            return self._backslash(start)
        result = _RESULT_RE.match(text, start)
        if result:
            self.pos = result.end()
            return Token(Kind.OP, result.group(0), self._span(start, self.pos))
        if c in _DIGITS:  # ASCII only: str.isdigit() also takes '²' and other digits CQL does not read
            m = _NUMBER_RE.match(text, start)
            self.pos = m.end()
            check_number(text, m.group(0), self._span(start, self.pos), self.source)
            return Token(Kind.NUMBER, m.group(0), self._span(start, self.pos))
        if c.isalpha() or c in "_$":
            word = _WORD_RE.match(text, start)
            designator = self._designator(start)
            if designator is not None:
                return designator
            if word:
                self.pos = word.end()
                return Token(Kind.WORD, word.group(0), self._span(start, self.pos))
        if c == ".":
            self.pos += 1
            return self._pieces(start, frozenset("KQRBNPkqrbnp_"), _ALL_SQUARES)
        for op in _OPERATORS:
            if text.startswith(op, start):
                self.pos += len(op)
                return Token(Kind.OP, op, self._span(start, self.pos))
        raise self.error(f"unexpected character {c!r}", start)

    def _backslash(self, start: int) -> Token:
        """Outside a string: a regular-expression capture (``\\1``; ``\\-1``, where it starts) or a
        one-character string (``\\n``, ``\\t``, ``\\r``, ``\\"``, ``\\\\``), as CQL reads them."""
        text = self.text
        capture = _CAPTURE_RE.match(text, start + 1)
        if capture:
            self.pos = capture.end()
            return Token(Kind.OP, text[start:self.pos], self._span(start, self.pos))
        following = text[start + 1:start + 2]
        if following in _BARE_ESCAPES:
            self.pos = start + 2
            return Token(Kind.STRING, _BARE_ESCAPES[following], self._span(start, self.pos))
        raise self.error("unexpected '\\': outside a string a backslash starts a capture (\\0 .. \\9, \\-1 ..) "
                         "or one of \\n \\t \\r \\\" \\\\", start, start + 2)

    def _at_subscript(self, start: int) -> bool:
        """At the '[' of a dictionary subscript ``X[key]``: written against a name, and not a
        bracket the lexer reads as a whole (``x[element]``, a piece designator such as ``X[a5]``,
        which the reference engine reads so too; ``X[ a5 ]`` with spaces is a subscript)."""
        last = self.last
        if last is None or last.kind is not Kind.WORD or last.span.end != start:
            return False
        end = self.text.find("]", start)
        if end < 0:
            return False
        inner = self.text[start + 1:end]
        if inner in _BRACKET_WORDS:
            return False
        if inner != inner.strip() or not inner:
            return bool(inner)
        if inner == "x" or inner in (">", "<", ">=", "<=") or self._at_square_list():
            return False
        return not all(ch in _PIECE_LETTERS or ch in _FIGURINES for ch in inner)

    def _index_bracket(self, start: int) -> Token:
        """The '[' of an index or a subscript: its contents are tokens of their own."""
        self.pos = start + 1
        return Token(Kind.OP, "[", self._span(start, self.pos))

    def _designator(self, start: int) -> Token | None:
        """A piece designator starting at ``start`` if the longest reading ends at a word break.

        ``a-d1-4`` is a square range although ``a`` alone is a designator (black pieces), and
        ``ab3`` is black pieces on b3, so both readings are tried and the longer one wins.
        """
        text = self.text
        readings = []
        square_only = _SQUARE_RE.match(text, start)
        if square_only:
            readings.append((square_only.end(), None, square_only.group(0)))
        with_piece = _DESIGNATOR_RE.match(text, start)
        if with_piece and with_piece.group(1):
            readings.append((with_piece.end(), with_piece.group(1), with_piece.group(2)))
        if not readings:
            return None
        end, piece, squares = max(readings, key=lambda r: r[0])
        if end < len(text) and (text[end].isalnum() or text[end] in "_$"):
            return None
        self.pos = end
        letters = _PIECE_LETTERS[piece] if piece else frozenset("KQRBNPkqrbnp_")
        if squares is None and self._at_square_list():
            return self._pieces(start, letters, self._square_list())
        if squares is None and re.match(r"\[(<|>|<=|>=)\]", text[end:end + 4]):
            # CQL reads '[' right after a piece letter as the start of its square list: 'a[<]1'
            # is a bad designator, not 'a' '[<]' '1' (written '≺' the comparison parses)
            raise self.error(f"not a square list after {text[start:end]!r}", end, text.index("]", end) + 1)
        if text.startswith("[", end) and not re.match(r"\[(x|<|>|<=|>=|element|forall)\]", text[end:end + 9]):
            # the reference: 'Ne5[d6,f6]', 'k[_A]' are no designators (a square list follows a piece letter)
            raise self.error(f"'[' written against the piece designator {text[start:end]!r}", end, end + 1)
        return self._pieces(start, letters, square_mask(squares) if squares else _ALL_SQUARES)

    def _pieces(self, start: int, pieces: frozenset[str], squares: int) -> Token:
        """A designator token; a bare square part (``e4``) means any content on those squares."""
        return Token(Kind.PIECES, self.text[start:self.pos], self._span(start, self.pos), pieces, squares)

    def _figurines(self, start: int) -> Token:
        text = self.text
        letters: set[str] = set()
        while self.pos < len(self.text) and self.text[self.pos] in _FIGURINES:
            for letter in _FIGURINES[self.text[self.pos]]:
                letters |= _PIECE_LETTERS[letter]
            self.pos += 1
        squares = _SQUARE_RE.match(self.text, self.pos)
        mask = _ALL_SQUARES
        if squares:
            self.pos = squares.end()
            mask = square_mask(squares.group(0))
        elif self._at_square_list():
            mask = self._square_list()
        elif self.pos < len(text) and text[self.pos].isdigit():
            # '[Aa]6-8': a rank without its files (the squares are 'a-h6-8')
            raise self.error(f"not a square after {text[start:self.pos]!r}: squares name their files, as a-h6-8",
                             self.pos, self.pos + 1)
        following = text[self.pos:self.pos + 1]
        if following == "[" and not self._at_square_list() or (
                following and (following.isalnum() or following in "_$") and (squares or text[start:self.pos] != "◭")):
            # the reference's lexer: no name nor bracket against figurines ('♙a', '△check', '◭[element]'),
            # but for '◭x∊S', a piece variable
            raise self.error(f"invalid character {text[start]!r}: a name or a '[' written against it", start,
                             self.pos)
        return self._pieces(start, frozenset(letters), mask)

    def _string(self, start: int) -> Token:
        text = self.text
        pos = start + 1
        chars: list[str] = []
        while pos < len(text) and text[pos] != '"':
            if text[pos] == "\n":
                raise self.error("a string may not span lines: missing closing '\"'", start, pos)
            if text[pos] == "\\" and pos + 1 < len(text):
                pos += 1
                # \" \\ \n \t \r are escapes; any other backslash stays, for regular expressions ("\d+")
                chars.append(_BARE_ESCAPES.get(text[pos], "\\" + text[pos]))
            else:
                chars.append(text[pos])
            pos += 1
        if pos >= len(text):
            raise self.error("unterminated string: missing closing '\"'", start, pos)
        self.pos = pos + 1
        return Token(Kind.STRING, "".join(chars), self._span(start, self.pos))

    def _at_square_list(self) -> bool:
        return self.pos < len(self.text) and self.text[self.pos] == "[" and bool(
            re.match(rf"\[{_SQUARE_PART}(,{_SQUARE_PART})*\]", self.text[self.pos:]))

    def _square_list(self) -> int:
        end = self.text.index("]", self.pos)
        mask = 0
        for part in self.text[self.pos + 1:end].split(","):
            mask |= square_mask(part.strip())
        self.pos = end + 1
        return mask

    def _bracket(self, start: int) -> Token:
        text = self.text
        end = text.find("]", start)
        if end < 0:
            raise self.error("unterminated '[': missing ']'", start)
        inner = text[start + 1:end].strip()
        against = start > 0 and (text[start - 1] in '")]_$' or text[start - 1].isalnum())
        # After a name, a string or a closing bracket, a '[' that opens no piece designator is an
        # index or a subscript, white space before or inside it or not (the reference: 'x [1]',
        # 'X\n[ a ]'); the parser says whether what stands before it takes one.
        indexable = self.last is not None and (self.last.kind in (Kind.WORD, Kind.STRING) or self.last.is_op(")", "]"))
        if not against and any(ch.isspace() for ch in text[start + 1:end]):
            if indexable:
                return self._index_bracket(start)
            # the reference reads '[...]' as one word: '[Aa ]', '[a1, b2]' or a line break inside are typos
            raise self.error(f"no space inside {text[start:end + 1]!r}: CQL reads '[...]' as one word", start, end + 1)
        if inner == "x":
            self.pos = end + 1
            return Token(Kind.OP, "[x]", self._span(start, self.pos))
        if inner in _BRACKET_WORDS:
            # CQL's own Unicode-to-ASCII conversion writes ∊ as [element], ∀ as [forall]
            self.pos = end + 1
            return Token(Kind.WORD, _BRACKET_WORDS[inner], self._span(start, self.pos))
        if inner in (">", "<", ">=", "<="):
            self.pos = end + 1
            return Token(Kind.OP, f"[{inner}]", self._span(start, self.pos))
        if self._at_square_list():
            return self._pieces(start, frozenset("KQRBNPkqrbnp_"), self._square_list())
        if inner == "":
            self.pos = end + 1
            return self._pieces(start, frozenset(), 0)
        if any(ch in _FIGURINES for ch in inner) and any(ch in _PIECE_LETTERS for ch in inner):
            raise self.error(f"do not mix figurines and letters in {text[start:end + 1]!r}", start, end + 1)
        if (against or indexable) and any(
                ch not in _PIECE_LETTERS and ch not in _FIGURINES and not ch.isspace() for ch in inner):
            # after a string or a name, and no piece designator: an index, "mate"[1] or x[1:3]
            return self._index_bracket(start)
        letters: set[str] = set()
        for ch in inner:
            if ch in _PIECE_LETTERS:
                letters |= _PIECE_LETTERS[ch]
            elif ch in _FIGURINES:
                for letter in _FIGURINES[ch]:
                    letters |= _PIECE_LETTERS[letter]
            elif not ch.isspace():
                raise self.error(f"not a piece designator: {text[start:end + 1]!r}", start, end + 1)
        self.pos = end + 1
        mask = _ALL_SQUARES
        squares = _SQUARE_RE.match(text, self.pos)
        if squares and not (squares.end() < len(text) and (text[squares.end()].isalnum() or text[squares.end()] in "_$")):
            self.pos = squares.end()
            mask = square_mask(squares.group(0))
        elif self._at_square_list():
            mask = self._square_list()
        elif self.pos < len(text) and text[self.pos].isdigit():
            # '[Aa]6-8': a rank without its files (the squares are 'a-h6-8')
            raise self.error(f"not a square after {text[start:self.pos]!r}: squares name their files, as a-h6-8",
                             self.pos, self.pos + 1)
        return self._pieces(start, frozenset(letters), mask)


def tokenize(text: str, source: str = "<query>") -> list[Token]:
    """All tokens of ``text``, ending with an EOF token. Raises CqlSyntaxError."""
    return Lexer(text, source).tokens()
