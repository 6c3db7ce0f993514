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
    if isinstance(node, ast.Dash):
        sides = [show(node.left) if node.left else "", show(node.right) if node.right else ""]
        promote = "=" + "".join(sorted(node.promote)) if node.promote else ""
        return f"({sides[0]}{'[x]' if node.capture else '--'}{sides[1]}{promote})"
    if isinstance(node, ast.Assign):
        return f"({node.name} {node.op} {show(node.value)})"
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
    # the arrows bind looser than the set operators (dingstheme-simple.cql); the words do not
    ("not P->(.<-k)|k", "(not (P attacks ((. attackedby k) | k)))"),
    ("A|a -> k", "((A | a) attacks k)"),
    ("A|a attacks k", "(A | (a attacks k))"),
    ("A->k <= 1", "((A attacks k) <= 1)"),
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
    ("x = 3 x > 2", "(x = 3) (x > 2)"),
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


@pytest.mark.parametrize(("query", "words"), [
    ("similarposition", "followed by the PGN file"), ('similarposition nosort nosort "x.pgn"', "'nosort' twice"),
])
def test_similarposition_needs_its_file(query: str, words: str) -> None:
    with pytest.raises(CqlSyntaxError) as info:
        parse(query)
    assert words in info.value.message


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


# Grammar rules measured against the reference parser (acceptance/parse-cases.jsonl); each
# table row is a case the previous grammar got wrong.
@pytest.mark.parametrize(("query", "expected"), [
    # '-' and a number after a filter without a numeric value start the next filter.
    ("K-3", "K -3"),
    ("true-2", "true -2"),
    ("(rank q-2)", "((rank q) - 2)"),
    ("x = 1 x-1", "(x = 1) (x - 1)"),
    # An assignment's right side binds like unary minus: 'v = k or q' is '{v = k} or q'.
    ("v=k or q", "((v = k) or q)"),
    ("v=0 v+=2 or q", "(v = 0) ((v += 2) or q)"),
    # A move filter takes the set expression written against it; '|' binds tighter.
    ("b|q--", "((b | q)--)"),
    ("--q|b", "(--(q | b))"),
    ("{2 e2}--", "({2 e2}--)"),
    ("e2--=q-2", "(e2--=q) -2"),
    ("R[x]=Q", "(R[x]=Q)"),
    ("--and --", "((--) and (--))"),
    ("countmoves [x]+2", "(CountMoves + 2)"),  # '-' there is refused (test_reference_rejects)
    # 'comment' without parentheses comments on a whole comparison.
    ('comment "q" == "w"', "Output"),
    # CQL 6.2's '∀◭x∊S' is 'piece all x in S'.
    ("∀◭x∊.k", "(piece all x in . k)"),
    # A repetition is written without space inside: '{ 2}' is a compound after the line (the
    # reference, on a PGN: 'an attempt to match a position against the number 2').
    ("line --> check{ 2}", "(line --> check) {2}"),
    ("line --> check{2 }", "(line --> check) {2}"),
    ("--e4{ 3}", "(--e4) {3}"),
    # Repetitions stack, each on what precedes it: '+' then '*' ('*' before '+' is refused below).
    ("line --> k{3}+*", "(line --> k{3,3}{1,}{0,})"),
    ("line --> k+? --> q", "(line --> k{1,}{0,1} --> q)"),
    # 'position N' takes an arithmetic expression; a ':' after it is the position's.
    ("x=1 position ply+x : check", "(x = 1) (position((ply + x)) : check)"),
    ("position 0 : child : mate", "(position(0) : (child : mate))"),
    # A ':' body may be a prefix filter: 'source:dark K', 'source:rank K - rank K'.
    ("x = parent x:dark K", "(x = parent) (x : (dark K))"),
    ("x = parent x:rank K - rank K", "(x = parent) ((x : (rank K)) - (rank K))"),
    # The right side of a move filter is a whole set expression: 'E--S:E'.
    ("S = parent piece E in A E--S:E", "(S = parent) (piece E in A (E--(S : E)))"),
    # A find range may be a numeric variable ...
    ("v=2 find quiet v <-- check", "(v = 2) (find <-- check)"),
    # ... but 'find all Sum += 1': a numeric variable being assigned is not find's range.
    ("Sum = 0 find all Sum += 1", "(Sum = 0) (find all (Sum += 1))"),
    ('fen "rnbqkbnr/pppppppp/71/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"',
     "(fen 'rnbqkbnr/pppppppp/71/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -')"),
])
def test_reference_structure(query: str, expected: str) -> None:
    assert body(query) == expected


@pytest.mark.parametrize(("query", "words"), [
    # arithmetic takes numbers ('+' also strings); '~' a set; unary '-' a number
    ("K+Q", "needs numbers"),
    ("2-K", "needs numbers"),
    ('2+"y"', "needs numbers"),
    ('"x"*"y"', "needs numbers"),
    ("(q-2)", "')'"),
    ("(line --> N) + 2", "needs numbers"),
    ("-to", "unary '-'"),
    ("~3", "'~' needs a set"),
    ('makesquare "a" + 2', "needs numbers"),
    # a variable keeps the type of its first assignment; logical filters have no value to assign
    ("y=true", "cannot be assigned"),
    ("y=k y=7", "cannot be assigned a number"),
    ("y=currentposition y=k", "cannot be assigned a set"),
    ("y=?3", "'=?' assigns a set"),
    ("y+=7", "already has a value"),
    ("y=k y+=q", "needs numbers"),
    ('y="3" y-="4"', "needs numbers"),
    ("v=(k or q)", "cannot be assigned"),
    ("piece x=q piece y=k y=x", "piece variable"),
    ("y=k piece y=q", "not a piece variable"),
    # iteration: a set to iterate over, a fresh or set-valued variable, 'in' required
    ("x ∊ 1 k", "iterates over a set"),
    ("square x in currentposition k", "iterates over a set"),
    ("x=1 square x in R btm", "already a number"),
    ("square x", "expected 'in'"),
    ("square w in v=A A in Q", "iterates over a set"),
    # line constituents are not numbers; '{m,n}' has no spaces; '+' after a constituent repeats it
    ("line --> 3", "cannot be a number"),
    ("v=3 line --> (v)", "cannot be a number"),
    ("line --> check{ 2,}", "no spaces"),
    ("line --> check{2 , 4}", "no spaces"),
    ("line --> N + k", "needs numbers"),
    ("line --> N + primary", "needs numbers"),
    ("{2}", "repetition"),
    # move filters (CQL 6.2 dash and take)
    ("--=q and 2", "promotion takes"),
    ("--=qa5", "piece type, not squares"),
    ("--=q+2", "needs numbers"),
    ("2+--=q", "needs numbers"),
    ("--Qa4(btm)+2", "needs numbers"),
    ("----", "cannot be chained"),
    ("--k--", "cannot be chained"),
    ("--(k)--", "cannot be chained"),
    ("--and--", "left side must be a set"),
    ("2---(btm)", "left side of '--' must be a set"),
    ("countmoves legal ---2", "not a negation"),  # a '-' against a dash starts its right side
    ("countmoves [x]-2", "not a negation"),
    ("--{5}", "repetition"),
    ("--{2 4}", "right side of '--' must be a set"),
    ("{e2 2}[x]", "left side of '[x]' must be a set"),
    ("v=--", "cannot be assigned"),
    ("v=e4--e5", "cannot be assigned"),
    ("y=k --=y", "promotion takes"),
    # other filters' arguments
    ("pin to {k 2}", "'pin to' takes a set"),
    ("pin from through", "unknown filter"),
    ("A -> true -> P", "needs sets"),
    ("1[<]true", "without a value"),
    ("a[<]1", "square list"),
    ("v=2 find all v check", "'all' or a range"),
    ('comment "q" == 2', "string can only be compared"),
    ("///", "needs the text"),
    ('fen "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR"', "not a FEN board"),
    ('fen "rnbqkbnr/pppppppp/8/8//8/PPPPPPPP/RNBQKBNR"', "not a FEN board"),
    ('fen "obvious non-fen"', "not a FEN board"),
    # Tier 3 filters are parsed in full, so their syntax errors are reported as such
    ("persistent x=false", "cannot hold a logical"),
    ("persistent x", "expected"),
    ("X=1 persistent X=2", "ordinary variable"),
    ("atomic X+=1", "expected '='"),
    ("isbound v == 1", "expected a filter"),
    ("isbound", "expected a variable name"),
    ("rotate45 a5", "particular squares"),
    ("notransform", "expected a filter"),
    ('str "t" | "a"', "needs sets"),
    ("persistent x=2 }", "unexpected '}'"),
    ("unbind x", "no such variable"),
    ("int", "expected a filter"),
    ("readfile 1", "takes a string"),
    ("typename d4 & \"Q\"", "needs sets"),
    ("assert 1 == assert 2", "without a value"),
    ('settag("MyTag" 1)', "two strings"),
    ('writefile("outfile")', "two strings"),
    ("while ()", "needs a condition"),
    ("currentmove k", "move filter"),
    ("p1=position 1 consecutivemoves(p1)", "two position variables"),
    ("move count", "'legal' or 'pseudolegal'"),
    ("move castle comment (\"x\") null", "exclude each other"),
    ('eventdate "2019-10-21" ~~ "2019"', "'~~' needs strings"),
    ("A -> P <- P", "cannot mix"),
    # functions are macros: a call parses the body with the arguments in place
    ("function fn(){1}", "repetition"),
    ("function fn()", "expected '{'"),
    ("function F(){I=q I+I}F()", "needs numbers"),
    ("function F(x){xray(x k)}y=3 F(y)", "must be sets"),
    ("function F(T){--=T}F(Q)", "promotion takes"),
    ("function x(){true} y=x()", "cannot be assigned"),
    ("function f(x){f(x x)} f(1)", "takes 1 arguments"),
    ("function f(){f()} f()", "too deeply"),
    ("--(btm) )", "no '(' is open"),
    # a repetition of what may match no position, or of a '+'
    ("line --> k{3}++", "already repeated with '+'"),
    ("line --> k{3}*+", "may match no position"),
    ("line --> k**", "may match no position"),
    ("line --> k?{2}", "cannot repeat a '+' nor"),
    ("line --> k+{2}", "cannot repeat a '+' nor"),
    ("line --> (k? --> q*)+", "may match no position"),
])
def test_reference_rejects(query: str, words: str) -> None:
    with pytest.raises(CqlSyntaxError) as info:
        parse(query)
    assert words in info.value.message, info.value.message
    assert info.value.render().splitlines()[2].strip().startswith("^")


@pytest.mark.parametrize(("query", "node"), [
    ("hhdb sound", ast.HHdb), ("hhdb sort prize > 1", ast.Compare), ("currenttransform", ast.CurrentTransform),
    ('similarposition notransform nosort "x.pgn"', ast.SimilarPosition), ('similarposition "x.pgn"', ast.Sort),
])
def test_reference_accepts_what_cqlindex_once_refused(query: str, node: type) -> None:
    """Valid CQL once refused by name (issue 18): now parsed to what runs."""
    assert type(parse(query).body.items[0]) is node


# -- CQL 6.2 dash targets: '--(F ...)' holds after the move; its value is the last filter's --

def _dash(query: str) -> ast.Dash:
    node = parse(query).body.items[0]
    while isinstance(node, ast.Assign):
        node = node.value
    assert isinstance(node, ast.Dash), node
    return node


@pytest.mark.parametrize(("query", "target"), [
    ("--(btm)", ["Keyword"]), ("e2--Qa4=q(btm check)", ["Keyword", "Keyword"]), ("[x](to)", ["Keyword"]),
    ("--(o-o to)", ["Keyword", "Keyword"]), ("v=e4--(to)", ["Keyword"]),
    ("B[x]h7(check k[x]h7(N--g5 check))", ["Keyword", "Dash"]),
])
def test_dash_target_is_parsed(query: str, target: list[str]) -> None:
    dash = _dash(query)
    assert [type(item).__name__ for item in dash.target] == target


def test_dash_target_value_kind() -> None:
    from cqlindex.cql.kinds import LOGICAL, SET, kind_of

    assert kind_of(_dash("v=e4--(to)"), {}) == SET
    assert kind_of(_dash("--(btm)"), {}) == LOGICAL


@pytest.mark.parametrize("query", ["--(castle)", "--(o-o-o)", "[x](enpassant)", "--(not o-o)"])
def test_move_kinds_are_filters_inside_a_target(query: str) -> None:
    parse(query)


@pytest.mark.parametrize(("query", "words"), [
    ("-- (k) --", "no space between '--' and the '('"), ("[x] (k) [x]", "no space between '[x]' and the '('"),
    ("--(k)--", "cannot be chained"), ("-- (k)--", "no space between"), ("e2--Qa4\n(btm)", "no space between"),
    ("--(btm)+2", "needs numbers"), ("--()", "must hold a filter"),
    ("v=--(btm)", "cannot be assigned"),
])
def test_dash_target_rejected(query: str, words: str) -> None:
    with pytest.raises(CqlSyntaxError) as info:
        parse(query)
    assert words in info.value.message, info.value.message
    assert info.value.render().splitlines()[2].strip().startswith("^")


def test_target_then_spaced_dash_is_two_filters() -> None:
    first, second = parse("--(k) --").body.items
    assert isinstance(first, ast.Dash) and first.target and isinstance(second, ast.Dash) and second.target is None


def test_path_move_promotion_to_a_parameter_parses() -> None:
    """babson1.cql's 'path p--=T': the promotion piece may be a function's parameter."""
    path = parse('function F(T){path p--=T P--=T primary}F("Q")').body.items[-1].items[-1]
    assert [step.promote_by is not None for step in path.items[:2]] == [True, True]
    with pytest.raises(CqlSyntaxError, match="promotion takes"):
        parse("path p--=3")


@pytest.mark.parametrize(("query", "ok"), [
    ("v=3 line --> {v}", True), ("v=3 line --> v", False), ("v=3 line --> (v)", False), ("line --> {3}", False),
    ("line --> {3+4}", False),
])
def test_line_constituent_numeric_variable_in_braces(query: str, ok: bool) -> None:
    if ok:
        parse(query)
    else:
        with pytest.raises(CqlSyntaxError):  # '{3}' alone reads as a repetition: refused as such
            parse(query)


def test_a_blank_line_ends_a_path() -> None:
    """babson1.cql: ``if path ...``, a blank line, ``NTypes+=1`` — the assignment is the if's body,
    not a path step; on the same line it is a step, and the ``if`` has no body."""
    node = parse("x = 0 if path -- check\n\n x += 1").body.items[1]
    assert isinstance(node, ast.If)
    assert isinstance(node.cond, ast.Path) and len(node.cond.items) == 2
    assert isinstance(node.then, ast.Assign) and node.then.op == "+="
    with pytest.raises(CqlSyntaxError):
        parse("x = 0 if path -- check x += 1")


# 'sort [quiet] [min | max "doc"] ["doc"] F', as the reference reads it: a documentation string
# must follow min or max, quiet comes first, and 'max' sorts as 'min' does (smallest first).
@pytest.mark.parametrize(("query", "minimum"), [
    ('sort min "d" #A', True), ('sort max "d" #A', True), ('sort "d" #A', False), ("sort #A", False),
    ('sort quiet min "d" #A', True), ('sort quiet "d" #A', False),
])
def test_sort_words(query: str, minimum: bool) -> None:
    node = parse(query).body.items[0]
    assert isinstance(node, ast.Sort) and node.min is minimum


@pytest.mark.parametrize("query", ["sort min #A", 'sort max int "1"', 'sort min quiet "d" #A', 'sort min "d"'])
def test_sort_words_refused(query: str) -> None:
    with pytest.raises(CqlSyntaxError):
        parse(query)
