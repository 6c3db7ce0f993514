"""The lexer: piece designators whole, Unicode spellings mapped, comments skipped."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cqlindex.board.squares import parse_square
from cqlindex.cql.lexer import square_mask, tokenize
from cqlindex.cql.tokens import Kind
from cqlindex.errors import CqlSyntaxError

ALL = (1 << 64) - 1
EVERYTHING = frozenset("KQRBNPkqrbnp_")


def bits(*names: str) -> int:
    return sum(1 << parse_square(n) for n in names)


def one(text: str):
    tokens = tokenize(text)
    assert len(tokens) == 2 and tokens[1].kind is Kind.EOF, tokens
    return tokens[0]


@pytest.mark.parametrize(("text", "pieces", "squares"), [
    ("K", "K", ALL),
    ("a", "kqrbnp", ALL),
    ("A", "KQRBNP", ALL),
    ("_", "_", ALL),
    (".", EVERYTHING, ALL),
    ("[]", "", 0),
    ("[RQ]", "RQ", ALL),
    ("[Aa]", "KQRBNPkqrbnp", ALL),
    ("[_A]", "_KQRBNP", ALL),
    ("Ra1", "R", bits("a1")),
    ("e4", EVERYTHING, bits("e4")),
    ("_e4", "_", bits("e4")),
    ("ab3", "kqrbnp", bits("b3")),          # black pieces on b3, not a word
    ("a-d1-4", EVERYTHING, square_mask("a-d1-4")),  # a square range although 'a' is a designator
    ("[RQ]a-h8", "RQ", square_mask("a-h8")),
    ("c1-8", EVERYTHING, square_mask("c1-8")),
    ("[a1,b3,h1-8]", EVERYTHING, bits("a1", "b3") | square_mask("h1-8")),
    ("P[b2-7]", "P", square_mask("b2-7")),
    ("♔a1", "K", bits("a1")),
    ("□△", "_KQRBNP", ALL),                 # adjacent symbols make one class
    ("◭", "KQRBNPkqrbnp", ALL),
    ("▦", EVERYTHING, ALL),
])
def test_designators(text: str, pieces, squares: int) -> None:
    token = one(text)
    assert token.kind is Kind.PIECES
    assert token.pieces == frozenset(pieces)
    assert token.squares == squares


@pytest.mark.parametrize(("text", "kind", "value"), [
    ("attacks", Kind.WORD, "attacks"),
    ("btm", Kind.WORD, "btm"),
    ("dark", Kind.WORD, "dark"),
    ("_x", Kind.WORD, "_x"),
    ("$R", Kind.WORD, "$R"),
    ("o-o", Kind.WORD, "o-o"),
    ("O-O-O", Kind.WORD, "o-o-o"),
    ("42", Kind.NUMBER, "42"),
    ('"a \\" b"', Kind.STRING, 'a " b'),
    ("-->", Kind.OP, "-->"),
    ("<--", Kind.OP, "<--"),
    ("==", Kind.OP, "=="),
    ("[x]", Kind.OP, "[x]"),
    ("×", Kind.OP, "[x]"),
    ("→", Kind.OP, "->"),
    ("≤", Kind.OP, "<="),
    ("✵", Kind.WORD, "flip"),
    ("⬓", Kind.WORD, "flipcolor"),
    ("∊", Kind.WORD, "in"),
])
def test_other_tokens(text: str, kind: Kind, value: str) -> None:
    token = one(text)
    assert (token.kind, token.text) == (kind, value)


@pytest.mark.parametrize("text", ["check // a comment", "check /* a\ncomment */", "check ; legacy comment"])
def test_comments_are_skipped(text: str) -> None:
    assert [t.text for t in tokenize(text)] == ["check", ""]


def test_triple_slash_is_not_a_comment() -> None:
    assert [t.text for t in tokenize("check /// note")][:2] == ["check", "///"]


def test_spans_point_at_the_source_even_after_unicode() -> None:
    tokens = tokenize("✵ {♔a1\n  ♚h8}")
    assert [(t.text, t.span.line, t.span.col) for t in tokens[:-1]] == [
        ("flip", 1, 1), ("{", 1, 3), ("♔a1", 1, 4), ("♚h8", 2, 3), ("}", 2, 6)]


@pytest.mark.parametrize(("text", "line", "col"), [
    ('"open', 1, 1), ("check /* never closed", 1, 7), ("check\n  @", 2, 3), ("[RZ]", 1, 1), ('"a\nb"', 1, 1)])
def test_lexical_errors_are_located(text: str, line: int, col: int) -> None:
    with pytest.raises(CqlSyntaxError) as info:
        tokenize(text)
    assert (info.value.span.line, info.value.span.col) == (line, col)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="KQRBNPkqrbnpAa_[]abcdefgh12345678-, .{}()#|&~:<>=!+*/%\"\n xyz", max_size=30))
def test_lexer_never_fails_with_a_python_error(text: str) -> None:
    """Any input gives tokens or a located CqlSyntaxError, never another exception."""
    try:
        tokens = tokenize(text)
    except CqlSyntaxError as error:
        assert 1 <= error.span.line <= text.count("\n") + 1
    else:
        assert tokens[-1].kind is Kind.EOF


@pytest.mark.parametrize(("text", "expected"), [
    # a '[' written against a name opens a dictionary subscript, closed by an operator ']'
    ("X[to]", [("WORD", "X"), ("OP", "["), ("WORD", "to"), ("OP", "]")]),
    ('X["a"]', [("WORD", "X"), ("OP", "["), ("STRING", "a"), ("OP", "]")]),
    ("D[pathcount]", [("WORD", "D"), ("OP", "["), ("WORD", "pathcount"), ("OP", "]")]),
    ("X[ a5 ]", [("WORD", "X"), ("OP", "["), ("PIECES", "a5"), ("OP", "]")]),
    # ... but not a bracket the lexer reads whole: a designator, [element], a spaced bracket
    ("X[a5]", [("WORD", "X"), ("PIECES", "[a5]")]),
    ("X[Q]", [("WORD", "X"), ("PIECES", "[Q]")]),
    ("x[element]", [("WORD", "x"), ("WORD", "in")]),
    # after a name or a string, a bracket that is no designator is an index, apart or not (the
    # reference takes 'dictionary X X [1]' and '"mate"\n[3]'); elsewhere it is an error
    ("X [1]", [("WORD", "X"), ("OP", "["), ("NUMBER", "1"), ("OP", "]")]),
    ('"ab"\n[ 1 ]', [("STRING", "ab"), ("OP", "["), ("NUMBER", "1"), ("OP", "]")]),
    ("[1]", None),
    ("K [1]", None),
    ("[pathcount]", None),  # only [element] and [forall] are words in brackets
])
def test_dictionary_subscripts(text: str, expected) -> None:
    if expected is None:
        with pytest.raises(CqlSyntaxError):
            tokenize(text)
        return
    assert [(t.kind.name, t.text) for t in tokenize(text)[:-1]] == expected
