"""CQL 6.2's ``path`` filter: moves, filters, groups, repetition, parameters, both modes.

Small inline games with their position ids spelled out (numbering as in acceptance/FACTS.md
section 2: pre-order, child 0 = main continuation). The reference engine's own answers for
path (D30, D31 and the example files) are checked by test_evaluate_acceptance.py and
test_evaluate_examples.py; these cases pin the rules path.py states one at a time.
"""

from __future__ import annotations

import json

import pytest

from cqlindex.cql import ast
from cqlindex.cql.parser import parse
from cqlindex.errors import CqlSyntaxError
from cqlindex.evaluate.engine import run
from tests.conftest import build_inline, shared_path

GAMES = {
    # 0 start, 1 e4, 2 e5, 3 Nf3 (main line ends); 4 c5, 5 Nf3, 6 d6, 7 d4, 8 cxd4 (variation of 1...e5).
    "tree": "1. e4 e5 (1... c5 2. Nf3 d6 3. d4 cxd4) 2. Nf3 *",
    # Checks at 1 3 5 7 9, mate at 9; no variations.
    "ladder": ('[SetUp "1"]\n[FEN "8/8/8/8/4k3/8/1R6/R6K w - - 0 1"]\n',
               "1. Ra4+ Ke5 2. Rb5+ Ke6 3. Ra6+ Ke7 4. Rb7+ Ke8 5. Ra8# *"),
    # 0 start, 1 e4, 2 d5, 3 exd5, 4 Qxd5, 5 Nc3, 6 Qa5.
    "takes": "1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 *",
    # 0 start, 1 a8=Q, 2 a1=Q; 3 a8=N (variation of 1.a8=Q), 4 a1=N.
    "promote": ('[SetUp "1"]\n[FEN "8/P6k/8/8/8/8/p6K/8 w - - 0 1"]\n', "1. a8=Q (1. a8=N a1=N) a1=Q *"),
}


@pytest.fixture(scope="module")
def dbs(tmp_path_factory) -> dict[str, object]:
    return build_inline(tmp_path_factory.mktemp("path"), GAMES)


# (game, query, positions on the main line only, positions with variations); None = same as main.
CASES = [
    # -- moves step to children: every walk through the visited tree is a candidate
    ("tree", "path -- -- --", [0], [0, 1, 4, 5]),
    ("tree", "path -- -- -- --", [], [0, 1, 4]),
    # -- the value is the number of moves of the longest walk (ties: the lowest end id)
    ("tree", "path -- + == 3", [0], [5]),
    ("tree", "path -- + == 6", [], [0]),
    ("tree", "path -- + == 5", [], [1]),
    # -- a walk of no moves never matches (CQL 6.2 does not allow matches at the start)
    ("tree", "path -- *", [0, 1, 2], [0, 1, 2, 4, 5, 6, 7]),
    ("tree", "path -- * == 0", [], []),
    ("ladder", "path check", [], None),
    ("ladder", "path (-- check)? mate", [8], None),
    ("ladder", "path (-- not check)? -- mate", [7, 8], None),
    # -- firstmatch: the first walk found (a repetition first tries to stop: the shortest here)
    ("tree", "path firstmatch -- + == 1", [0, 1, 2], [0, 1, 2, 4, 5, 6, 7]),
    ("tree", "path firstmatch -- {2,} == 2", [0, 1], [0, 1, 4, 5, 6]),
    # -- filters test the position reached, and a repetition repeats the move with them
    ("ladder", "path -- check", [0, 2, 4, 6, 8], None),
    ("ladder", "path -- check --", [0, 2, 4, 6], None),
    ("ladder", "path -- mate", [8], None),
    ("ladder", "path (-- check --){2,} -- mate", [0, 2, 4], None),
    ("ladder", "path -- check{2,}", [], None),
    ("ladder", "path (-- check -- not check){4}", [0], None),
    ("ladder", "path -- ? -- mate", [7, 8], None),
    ("ladder", "path -- {,2} mate", [7, 8], None),
    ("ladder", "path -- {3,2}", [], None),
    # -- the sides of a move: from, to, capture (the captured piece's square), promotion
    ("ladder", "path R--a4 check", [0], None),
    ("ladder", "path R--b4", [], None),
    ("ladder", "path k--e5 not check", [1], None),
    ("takes", "path P[x]p q[x]P N--c3", [2], None),
    ("takes", "path [x] [x]", [2], None),
    ("takes", "path [x] + == 2", [2], None),
    ("takes", "path -- ? [x]", [1, 2, 3], None),
    ("takes", "path Q[x]d5", [], None),
    ("promote", "path --=Q", [0, 1], None),
    ("promote", "path --=N", [], [0, 3]),
    ("promote", "path p--=N", [], [3]),
    # -- primary / secondary: parameters admit only main-continuation / variation moves,
    #    filters hold where the move that led here was one
    ("tree", "path primary -- + == 3", [0], [0, 5]),
    ("tree", "path -- secondary", [], [1]),
    ("tree", "path -- primary", [0, 1, 2], [0, 1, 2, 4, 5, 6, 7]),
    ("promote", "path --=N secondary", [], [0]),
    ("promote", "path --=N primary", [], [3]),
    # -- nestban: positions strictly inside a selected walk start no later match
    ("tree", "path nestban -- --", [0], [0, 4, 6]),
    ("tree", "path -- --", [0, 1], [0, 1, 4, 5, 6]),
    ("ladder", "path nestban -- --", [0, 2, 4, 6], None),
    ("ladder", "path nestban -- +", [0], None),
    # -- as a value: sort and comparisons see the number of moves
    ("ladder", 'sort "moves to mate" path -- + mate >= 9', [0], None),
]


@pytest.mark.parametrize("variations", [False, True], ids=["main", "var"])
@pytest.mark.parametrize(("game", "query", "main", "var"), CASES, ids=[f"{c[0]}: {c[1]}" for c in CASES])
def test_path(dbs, game: str, query: str, main: list[int], var: list[int] | None, variations: bool) -> None:
    expected = (var if var is not None else main) if variations else main
    got = run(dbs[game], query, variations=variations).matches
    assert got == ({1: expected} if expected else {})


# -- syntax: the reference parser's verdicts (acceptance/parse-cases.jsonl, group filter_path) --

def _items(query: str) -> tuple[ast.Node, ...]:
    node = parse(query).body.items[0]
    assert isinstance(node, ast.Path)
    return node.items


def test_repetition_takes_the_move_and_the_filters_after_it() -> None:
    (item,) = _items("path -- check{5,}")
    assert isinstance(item, ast.Repeat) and (item.low, item.high) == (5, None)
    assert isinstance(item.arg, ast.Sequence)
    assert [type(x) for x in item.arg.items] == [ast.Dash, ast.Keyword]


def test_repetition_after_a_filter_takes_only_the_next_move() -> None:
    first, second = _items("path {check} -- +")
    assert isinstance(first, ast.Compound)
    assert isinstance(second, ast.Repeat) and isinstance(second.arg, ast.Dash)


def test_a_move_takes_the_set_written_against_it() -> None:
    (move, after) = _items("path Q--diagonal 1 a1 check")
    assert isinstance(move, ast.Dash) and isinstance(move.right, ast.Direction)
    assert isinstance(after, ast.Keyword) and after.name == "check"


def test_a_blank_line_between_two_paths_ends_the_first() -> None:
    # queenknightpromotion.cql writes two paths one after the other, a blank line between them;
    # the reference engine's match (game 45 at position 2) needs both to hold at the start.
    first, second = parse("path A-- -- * p--=q\n\npath A-- secondary").body.items
    assert isinstance(first, ast.Path) and isinstance(second, ast.Path)
    assert [type(x) for x in first.items] == [ast.Dash, ast.Repeat, ast.Dash]
    # without one, the second path is a filter of the first (the reference parses any filter there)
    ((only,),) = (item.items for item in parse("{path -- ⊢ --}").body.items)
    assert isinstance(only, ast.Path) and [type(x) for x in only.items] == [ast.Dash, ast.Path]


@pytest.mark.parametrize(("query", "outside"), [
    ("path -- x=to -- to\n\nfind {check}", ast.Find),   # followpaths-simple: find after a blank line
    ("x=0 path -- check\n\nx+=1", ast.Assign),         # babson1: so is the compound assignment
])
def test_what_ends_a_path_at_its_top_level(query: str, outside: type) -> None:
    *_, path, after = parse(query).body.items
    assert isinstance(path, ast.Path) and isinstance(after, outside)
    assert any(isinstance(item, ast.Assign) for item in path.items) == ("x=to" in query)
    (*_, inside) = parse(query.replace("\n\n", " ")).body.items  # on one line: a step of the path
    assert isinstance(inside, ast.Path) and isinstance(inside.items[-1], outside)


def test_inside_a_group_an_assignment_is_a_constituent() -> None:
    _, _, path = parse("C=a1 cnt=0 path (-- C=C|to -- cnt+=1)+").body.items
    (group,) = path.items
    assert [type(x) for x in group.arg.items] == [ast.Dash, ast.Assign, ast.Dash, ast.Assign]


def test_unicode_spelling() -> None:
    items = _items("⊢ ♗×h7 check ♚×h7 ♘――g5=♕ check")
    assert [type(x) for x in items] == [ast.Dash, ast.Keyword, ast.Dash, ast.Dash, ast.Keyword]
    assert items[0].capture and items[3].promote == frozenset("Q")


def test_nodes_carry_their_spans() -> None:
    text = "path nestban (-- check)+ mate"
    node = parse(text).body.items[0]
    assert text[node.span.start:node.span.end] == text
    repeat, mate = node.items
    assert text[repeat.span.start:repeat.span.end] == "(-- check)+"
    assert text[mate.span.start:mate.span.end] == "mate"


@pytest.mark.parametrize("query", ["path", "path primary", "path k quiet", "path k +", "path --(-- --)",
                                   "path -- ( -- -- )", "path B[x]h7(check k[x]h7(N--g5 check))", "path ()",
                                   "path primary secondary --", "path secondary --", "path nestban nestban --",
                                   "path focus Q primary --", "path piecepath --", "path singlecolor focus A --",
                                   'path title "" --', "path focus --", "piecepath"])
def test_rejected(query: str) -> None:
    with pytest.raises(CqlSyntaxError):
        parse(query)


@pytest.mark.parametrize("query", ["path k", "path quiet k", "path -- + k", "path k -- {3,7}", "path -- {,7} --",
                                   "path (-- --)k", "path k ( -- -- )", "path -- P->(.<-k)|k", "path -- -- {*}",
                                   "path (-- --? --) (-- --? --)+ (-- -- --)* (-- -- --)", "path -- {B R} {10,}",
                                   "path ~R-- +"])  # a complemented side against the dash (dingstheme.cql)
def test_accepted(query: str) -> None:
    parse(query)


def test_moves_written_one_against_the_other_are_steps() -> None:
    (path,) = parse("path a1--h1--h8").body.items  # the reference: 'a1--h1' then '--h8'
    assert [type(x) for x in path.items] == [ast.Dash, ast.Dash]
    assert path.items[1].left is None and path.items[0].right is not None


def test_greek_gift_with_variations_matches_the_engines_partial_result(build_db) -> None:
    """D30 with variations: the engine aborts at game 250 (a take filter meeting the null move
    1.-- of a variation, acceptance/errors.jsonl); its result for the other games is given."""
    case = next(c for c in map(json.loads, shared_path("acceptance/errors.jsonl").read_text().splitlines())
                if c["id"] == "D30" and c["kind"] == "engine_internal_error")
    result = run(build_db(case["dataset"]), case["query"], variations=True)
    got = {g: ids for g, ids in result.matches.items() if g not in case["partial_excluding_games"]}
    assert got == {int(g): ids for g, ids in case["partial_positions"].items()}
