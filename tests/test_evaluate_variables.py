"""Piece variables followed across moves, and ``consecutivemoves``.

Small inline games, each with its position ids spelled out (pre-order numbering, child 0 = the
main continuation, acceptance/FACTS.md section 2). Every case names what it would catch: a
piece variable that stays on its binding square, one that forgets castling, en passant or
promotion, one that cannot cross into another variation; a consecutivemoves that counts a
common subsequence, or from the root instead of the latest common ancestor.
"""

from __future__ import annotations

import pytest

from cqlindex.cql import ast
from cqlindex.cql.parser import parse
from cqlindex.filters.moves.consecutive import longest_common_run
from cqlindex.evaluate.engine import run
from cqlindex.exec.run import run as run_engine
from tests.conftest import build_inline

GAMES = {
    # main 0 start, 1 Nf3, 2 e5, 3 Nxe5, 4 d6, 5 Nc4, 6 d5, 7 Ne3; 8 Nc3, 9 Nc6 (variation of 2.Nxe5).
    "knight": "1. Nf3 e5 2. Nxe5 (2. Nc3 Nc6) 2... d6 3. Nc4 d5 4. Ne3 *",
    # 0 start, 1 b8=Q, 2 Kd7, 3 Qb5+.
    "promotion": ('[SetUp "1"]\n[FEN "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"]\n', "1. b8=Q Kd7 2. Qb5+ *"),
    # 0 .. 6 before castling, 7 O-O, 8 Nf6, 9 Re1.
    "castling": "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O Nf6 5. Re1 *",
    # 0 start, 1 e4, 2 Nf6, 3 e5, 4 d5, 5 exd6 (en passant).
    "enpassant": "1. e4 Nf6 2. e5 d5 3. exd6 *",
    # main 0 start, 1 d4, 2 e5, 3 Nf3, 4 Nc6; 5 c4, 6 e5, 7 Nf3, 8 Nc6 (variation of 1.d4).
    "logical": "1. d4 (1. c4 e5 2. Nf3 Nc6) 1... e5 2. Nf3 Nc6 *",
    # main 0 start, 1 e4, 2 e5, 3 Nf3, 4 Nc6, 5 Nc3, 6 Nf6; 7 Nc3, 8 Nc6, 9 Nf3, 10 Nf6 (variation
    # of 2.Nf3): the same moves with the white ones swapped.
    "order": "1. e4 e5 2. Nf3 (2. Nc3 Nc6 3. Nf3 Nf6) 2... Nc6 3. Nc3 Nf6 *",
}


@pytest.fixture(scope="module")
def dbs(tmp_path_factory) -> dict[str, object]:
    return build_inline(tmp_path_factory.mktemp("variables"), GAMES)


# (game, query, positions on the main line only, positions with variations); None = same as main.
CASES = [
    # -- forward: the knight that starts on g1 later stands on e3 (a square variable would not move)
    ("knight", "piece x in Ng1 find x & e3", [0], None),
    ("knight", "piece x in N path x-- -- x-- -- x--", [0, 2], None),
    # -- backward: the knight on e3 started on g1; the one on e5 came from f3 (at 4 it was on e5)
    ("knight", "piece x in Ne3 find <-- x & g1", [7], None),
    ("knight", "piece x in Ne5 parent : x == f3", [3], None),
    ("knight", "piece x in Ne5 parent : x == e5", [4], None),
    # -- captured: the e5 pawn is gone after 2.Nxe5 (child 0 of 2), but not after 2.Nc3 Nc6
    ("knight", "piece x in pe5 find #x == 0", [2], None),
    ("knight", "piece x in pe5 child : x == e5", [], [8]),
    # -- across variations: back to the common ancestor, then down the other line
    ("knight", "piece x in Nc3 position 3 : x == b1", [], [8, 9]),
    ("knight", "piece x in Ne5 position 9 : x == f3", [], [3, 4]),
    ("knight", "piece x in Nf3 position 9 : x == f3", [], [1, 2, 8, 9]),
    # -- 'all': every white knight started on b1 or g1, wherever it is now
    ("knight", "piece all x in N find <-- x & [b1,g1]", [0, 1, 2, 3, 4, 5, 6, 7], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
    ("knight", "piece all x in N find <-- x & g1", [], None),
    # -- promotion keeps the piece: the b7 pawn is the queen that checks from b5
    ("promotion", "piece x in Pb7 find x & b5", [0], None),
    ("promotion", "piece x in Qb5 find <-- x & Pb7", [3], None),
    ("promotion", "piece x in Q find <-- x & P", [1, 2, 3], None),
    # -- castling moves the rook too: h1 -> f1 -> e1; the king goes e1 -> g1
    ("castling", "piece x in Rh1 find x & e1", [0, 1, 2, 3, 4, 5, 6], None),
    ("castling", "piece x in Re1 find <-- x & h1", [9], None),
    ("castling", "piece x in Kg1 find <-- x & e1", [7, 8, 9], None),
    ("castling", "piece x in Rf1 parent : x == h1", [7], None),
    # -- en passant removes the pawn beside the target square
    ("enpassant", "piece x in pd5 child : #x == 0", [4], None),
    ("enpassant", "piece x in Pd6 find <-- x & e2", [5], None),
    # -- consecutivemoves: S = d4 e5 Nf3 Nc6 and T = c4 e5 Nf3 Nc6 from the root have 3 in common
    ("logical", "initial x = position 4  y = position 8  consecutivemoves(x y) == 3", [], [0]),
    ("logical", "initial x = position 3  y = position 8  consecutivemoves(x y) == 2", [], [0]),
    ("logical", "initial x = position 4  y = position 8  consecutivemoves 3 (x y)", [], [0]),
    ("logical", "initial x = position 4  y = position 8  consecutivemoves quiet 4 10 (x y)", [], []),
    ("logical", "initial x = position 2  y = position 4  consecutivemoves(x y) == 0", [0], None),
    ("logical", "echo (s t) consecutivemoves (s t) >= 3", [], [4, 8]),
    ("logical", "echo (s t) consecutivemoves (s t) == 2", [], [3, 4, 7, 8]),
    # from the latest common ancestor (position 2): Nf3 Nc6 Nc3 Nf6 against Nc3 Nc6 Nf3 Nf6 share
    # one move at a time; Nc6 Nf6 is a common subsequence of two, but not a run
    ("order", "initial x = position 6  y = position 10  consecutivemoves(x y) == 1", [], [0]),
    ("order", "echo (s t) consecutivemoves (s t) >= 2", [], []),
]


@pytest.mark.parametrize("variations", [False, True], ids=["main", "var"])
@pytest.mark.parametrize(("game", "query", "main", "var"), CASES, ids=[f"{c[0]}: {c[1]}" for c in CASES])
def test_case(dbs, game: str, query: str, main: list[int], var: list[int] | None, variations: bool) -> None:
    expected = (var if var is not None else main) if variations else main
    got = run(dbs[game], query, variations=variations).matches
    assert got == ({1: expected} if expected else {})


@pytest.mark.parametrize(("s", "t", "expected"), [
    ("abcd", "xbcd", 3), ("abc", "cba", 1), ("abab", "bab", 3), ("", "abc", 0), ("ab", "cd", 0),
    ("aXbXc", "abc", 1),  # a common subsequence of 3, but no common run longer than 1
])
def test_longest_common_run(s: str, t: str, expected: int) -> None:
    assert longest_common_run(list(s), list(t)) == expected


@pytest.mark.parametrize(("query", "quiet", "low", "high"), [
    ("consecutivemoves (p1 p2)", False, None, None),
    ("consecutivemoves quiet 1 (p1 p2)", True, 1, 1),
    ("consecutivemoves 15 100 quiet (p1 p2)", True, 15, 100),
])
def test_consecutivemoves_parses_its_range(query: str, quiet: bool, low: int | None, high: int | None) -> None:
    node = parse(f"p1=position 1 p2=position 2 {query}").body.items[-1]
    assert isinstance(node, ast.ConsecutiveMoves)
    assert (node.quiet, node.low, node.high) == (quiet, low, high)
    assert (node.left.name, node.right.name) == ("p1", "p2")


# 'piece x = S' names the one piece on S, followed as 'piece x in S' follows it; an empty S, or
# an empty square, does not match.
PIECE_ASSIGNMENTS = [
    ("knight", "piece x = Ng1 find x & e3", [0], None),
    ("knight", "piece x = Ne5 parent : x == f3", [3], None),
    ("knight", "piece x = Ne4", [], None),
    ("knight", "piece x = e5", [2, 3, 4], [2, 3, 4, 8, 9]),  # occupied by the pawn, then the knight
    # the pawn is taken on the main line (3), not in the variation (9); the knight stays at 4, leaves at 5
    ("knight", "piece x = e5 child : x == e5", [3], [3, 8]),
    ("knight", "piece x = Ng1 piece y = x find y & e3", [0], None),  # y names the piece x names
    ("promotion", "piece x = Pb7 find x & Qb5", [0], None),
]


@pytest.mark.parametrize("engine", ["sql", "python"])
@pytest.mark.parametrize("variations", [False, True], ids=["main", "var"])
@pytest.mark.parametrize(("game", "query", "main", "var"), PIECE_ASSIGNMENTS,
                         ids=[f"{c[0]}: {c[1]}" for c in PIECE_ASSIGNMENTS])
def test_piece_assignment(dbs, game: str, query: str, main: list[int], var: list[int] | None, variations: bool,
                          engine: str) -> None:
    from cqlindex.exec.run import run as run_engine

    expected = (var if var is not None else main) if variations else main
    got = run_engine(dbs[game], query, variations=variations, engine=engine).matches
    assert got == ({1: expected} if expected else {})


def test_piece_assignment_of_several_squares_does_not_match(dbs) -> None:
    # followpaths-simple.cql: two squares (castling's king and rook) bind nothing, and x keeps its piece
    assert run(dbs["knight"], "piece x = N").matches == {}
    assert run(dbs["castling"], "piece x = Ke1 not piece x = Ke1|Rh1 find x & g1").matches == {1: [0, 1, 2, 3, 4, 5, 6]}


# -- a set iteration asked only whether it matches ---------------------------------------------
# It stops at its first square that decides (``all``: the first that fails) when its body changes
# nothing. The same body with an assignment (which changes something) is iterated in full: the
# two must match at the same positions, on both engines.
PUZZLES = "data/annotated/lichess-studies/lichess_study_beautiful-checkmate-puzzles_by_thijscom_2018.04.16.pgn"
ITERATIONS = [
    ("square x in [Aa]", "x attacks k"),
    ("square all x in P", "x & a-h2-4"),
    ("piece x in [Nn]", "square y in . y attacks x"),
    ("square all x in A", "square y in [Aa] x attacks y"),
    ("square x in [Pp]", "square all y in x up 1 y & _"),
    ("piece all x in [RrQq]", "square y in x up 1 y & _"),
    ("square x in [Kk]", "not square y in . {x attacks y y & [Pp]}"),
]


@pytest.mark.parametrize("engine", ["sql", "python"])
@pytest.mark.parametrize(("iteration", "body"), ITERATIONS, ids=[f"{i} {b}" for i, b in ITERATIONS])
def test_an_iteration_decided_early_matches_where_the_whole_one_does(build_db, engine: str, iteration: str,
                                                                   body: str) -> None:
    index = build_db(PUZZLES, "data/games/otb-oly14r11.pgn", workers=1)
    early = run_engine(index, f"{iteration} {body}", engine=engine, variations=True).matches
    whole = run_engine(index, f"{iteration} {{{body} z = 1}}", engine=engine, variations=True).matches
    assert early == whole
    assert 0 < sum(len(p) for p in early.values()) < 1418  # it matches, but not at all 1,418 positions


def test_nested_iterations_asked_only_whether_they_match_are_quick(dbs) -> None:
    """64**4 bodies at every position if each iteration ran in full (the fuzz test found it
    hanging); with the early stop, 64 each."""
    assert run(dbs["knight"], "∀◭x∊. ◭x∊. ◭x∊. ◭x∊. 1").matches == {1: list(range(8))}
