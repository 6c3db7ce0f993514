"""The parser: structure and precedence as the reference engine reads them, located errors."""

from __future__ import annotations

import json

import pytest

from cqlindex.cql import ast
from cqlindex.cql.parser import parse
from cqlindex.errors import CqlSyntaxError, CqlUnsupportedError
from tests.conftest import shared_path


def show(node: ast.Node) -> str:
    """A compact rendering of a tree, to compare structure in tables."""
    if isinstance(node, ast.Pieces):
        return node.text
    if isinstance(node, ast.Number):
        return str(node.value)
    if isinstance(node, ast.String):
        return repr(node.value)
    if isinstance(node, ast.Keyword):
        return node.name
    if isinstance(node, ast.Variable):
        return node.name
    if isinstance(node, ast.Compound):
        return "{" + " ".join(show(i) for i in node.items) + "}"
    if isinstance(node, ast.Not):
        return f"(not {show(node.arg)})"
    if isinstance(node, (ast.And, ast.Or)):
        word = " and " if isinstance(node, ast.And) else " or "
        return "(" + word.join(show(i) for i in node.items) + ")"
    if isinstance(node, ast.Compare):
        parts = [show(node.operands[0])]
        for op, operand in zip(node.ops, node.operands[1:]):
            parts += [op, show(operand)]
        return "(" + " ".join(parts) + ")"
    if isinstance(node, ast.Binary):
        return f"({show(node.left)} {node.op} {show(node.right)})"
    if isinstance(node, ast.Unary):
        return f"({node.op} {show(node.arg)})"
    if isinstance(node, ast.Direction):
        return f"({node.name} {node.low} {node.high} {show(node.arg)})"
    if isinstance(node, ast.Transform):
        return f"({node.name}{' count' if node.count else ''} {show(node.arg)})"
    if isinstance(node, ast.Colon):
        return f"({show(node.position)} : {show(node.body)})"
    if isinstance(node, ast.Find):
        return f"(find{' all' if node.all else ''}{' <--' if node.backward else ''} {show(node.body)})"
    if isinstance(node, ast.Iterate):
        return f"({node.kind}{' all' if node.all else ''} {node.var} in {show(node.domain)} {show(node.body)})"
    if isinstance(node, ast.Move):
        params = " ".join(n if v is None else f"{n} {show(v)}" for n, v in node.params)
        return f"(move {node.mode} {params})"
    if isinstance(node, ast.Repeat):
        return f"{show(node.arg)}{{{node.low},{'' if node.high is None else node.high}}}"
    if isinstance(node, ast.Line):
        arrow = " <-- " if node.backward else " --> "
        return "(line" + arrow + arrow.join(show(i) for i in node.items) + ")"
    if isinstance(node, ast.Call):
        return f"{node.name}(" + " ".join(show(a) for a in node.args) + ")"
    if isinstance(node, ast.ChildN):
        return f"{node.name}({show(node.index)})"
    if isinstance(node, ast.GameFilter):
        return f"({node.name} " + " ".join(show(a) for a in node.args) + ")"
    return type(node).__name__


def body(text: str) -> str:
    return " ".join(show(item) for item in parse(text).body.items)


@pytest.mark.parametrize(("query", "expected"), [
    # Greedy prefix filters take the whole following expression, or/and included.
    ("flipcolor Kd4 or Kc5", "(flipcolor (Kd4 or Kc5))"),
    ("flipcolor A attacks k > 1", "(flipcolor ((A attacks k) > 1))"),
    ("flip count {Ka1} >= 1", "(flip count ({Ka1} >= 1))"),
    # ... but a filter without a value leaves the comparison to the enclosing level.
    ("find all check >= 20", "((find all check) >= 20)"),
    ("find Ka1 == a1", "(find (Ka1 == a1))"),
    ("not Q or q", "((not Q) or q)"),
    ("not A attacks k", "(not (A attacks k))"),
    ("check and mate or stalemate", "((check and mate) or stalemate)"),
    ("Q == q == 2 [Aa] == 6", "(Q == q == 2) ([Aa] == 6)"),
    ("1 < #A < 4", "(1 < (# A) < 4)"),
    ("up 1 P & p", "((up 1 1 P) & p)"),
    ("k == diagonal 7 K", "(k == (diagonal 7 7 K))"),
    ("orthogonal 1 k & a >= 3", "(((orthogonal 1 1 k) & a) >= 3)"),
    ("light B == 2", "((light B) == 2)"),
    ("rank K == 8", "((rank K) == 8)"),
    ("power A - power a >= 10", "(((power A) - (power a)) >= 10)"),
    ("between(R k) & _ >= 6", "((between(R k) & _) >= 6)"),
    ("#[Aa] <= 4", "((# [Aa]) <= 4)"),
    ("parent : check", "(parent : check)"),
    ("position 0 : child : mate", "(position(0) : (child : mate))"),
    ("child(1) : check", "(child(1) : check)"),
    ("k -> [_A]", "(k attacks [_A])"),
    ("_ <- k == 8", "((_ attackedby k) == 8)"),
    ("R in A", "(R in A)"),
    ("square all x in _ attackedby k A attacks x <= 1",
     "(square all x in (_ attackedby k) ((A attacks x) <= 1))"),
    ("piece x in [RQ] x attacks k", "(piece x in [RQ] (x attacks k))"),
    ("line --> check --> check", "(line --> check --> check)"),
    ("line --> check{3,} --> mate", "(line --> check{3,} --> mate)"),
    ("line --> check+ --> stalemate", "(line --> check{1,} --> stalemate)"),
    ("line --> check* --> mate", "(line --> check{0,} --> mate)"),
    ("move from K to _", "(move played from K to _)"),
    ("move previous capture q", "(move previous previous capture q)"),
    ("move to . from A legal", "(move legal to . from A)"),
    ("result 1-0", "(result '1-0')"),
    ("year == 2015", "((year ) == 2015)"),
    ("x = 3 x > 2", "Assign (x > 2)"),
    ("flip {Ka1 kh8}", "(flip {Ka1 kh8})"),
    ("✵{♔a1 ♚h8}", "(flip {♔a1 ♚h8})"),
])
def test_structure(query: str, expected: str) -> None:
    assert body(query) == expected


def test_header() -> None:
    query = parse('cql(input games.pgn variations quiet matchstring "HIT" gamenumber 3 5 result 1-0) mate')
    header = query.header
    assert (header.input, header.variations, header.quiet, header.matchstring, header.gamenumber,
            header.result) == ("games.pgn", True, True, "HIT", (3, 5), "1-0")
    assert body("cql() check") == "check"


@pytest.mark.parametrize(("query", "line", "col", "words"), [
    ("check\n  and", 2, 6, "expected a filter"),
    ("{check", 1, 7, "'}'"),
    ("(check", 1, 7, "')'"),
    ("Q > q", 1, 1, "sets cannot be compared"),
    ("wtm == 1", 1, 5, "expected a filter"),
    ("#(move legal from A) == 1", 1, 3, "'#' needs a set"),
    ("move legal capture q", 1, 1, "'capture' cannot be combined"),
    ("sort 1", 1, 6, "'sort' needs a filter"),
    ("k | 1", 1, 5, "'|' needs sets"),
    ('"a" < 1', 1, 1, "a string can only be compared"),
    ("find all 2 check", 1, 1, "'all' or a range"),
    ("foo", 1, 1, "unknown filter"),
    ("", 1, 1, "expected one or more filters"),
])
def test_syntax_errors_are_located(query: str, line: int, col: int, words: str) -> None:
    with pytest.raises(CqlSyntaxError) as info:
        parse(query)
    error = info.value
    assert (error.span.line, error.span.col) == (line, col), str(error)
    assert words in error.message
    rendered = error.render().splitlines()
    assert rendered[0].startswith(f"<query>:{line}:{col}: syntax error:")
    assert rendered[2].strip().startswith("^") and len(rendered[2]) - len(rendered[2].lstrip()) == 4 + col - 1


@pytest.mark.parametrize("query", ["path focus A -- k", "--(o-o)", "persistent x = 1", "countmoves legal --", "virtualmainline"])
def test_unsupported_filters_are_named(query: str) -> None:
    with pytest.raises(CqlUnsupportedError) as info:
        parse(query)
    assert "does not evaluate yet" in str(info.value)


def test_errors_jsonl_queries_are_rejected() -> None:
    """Every query the reference rejects at parse time is rejected here too."""
    rejected = []
    for line in shared_path("acceptance/errors.jsonl").read_text().splitlines():
        case = json.loads(line)
        if case["kind"].startswith("parse_error"):
            with pytest.raises((CqlSyntaxError, CqlUnsupportedError)):
                parse(case["query"])
            rejected.append(case["id"])
    assert len(rejected) >= 4
