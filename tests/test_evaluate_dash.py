"""CQL 6.2's dash and take with a target: ``F--G(filters)``, ``--(filters)``, ``F[x]G(filters)``.

The target holds at the position the move leads to; with one, the dash's value is the last
target filter's value there (a set: the union over the matching moves). Inside a target
``o-o``, ``o-o-o``, ``castle`` and ``enpassant`` say what the move was. Where that comes from:
the example files (``[Aa]T1=[QRNBqrnb]--(from)`` in followpaths-simple.cql is "the piece that
moves", ``if --(enpassant)`` / ``if --(castle)`` in persistent.cql count such moves) and the
reference parser's verdicts (``v=e4--(to)`` is a set, ``--(btm)+2`` is refused).

Small inline games with their position ids spelled out (pre-order, child 0 = the main
continuation); every case runs in both modes (main line, variations) and on both engines
(the evaluator, and SQL with the evaluator for what SQL leaves over).
"""

from __future__ import annotations

import pytest

from cqlindex.exec.run import run
from tests.conftest import build_inline

GAMES = {
    # Checks at 1 3 5 7 9, mate at 9; no variations.
    "ladder": ('[SetUp "1"]\n[FEN "8/8/8/8/4k3/8/1R6/R6K w - - 0 1"]\n',
               "1. Ra4+ Ke5 2. Rb5+ Ke6 3. Ra6+ Ke7 4. Rb7+ Ke8 5. Ra8# *"),
    # 0 start, 1 e4, 2 e5, 3 Nf3 (main line ends); 4 c5, 5 Nf3, 6 d6, 7 d4, 8 cxd4 (variation of 1...e5).
    "tree": "1. e4 e5 (1... c5 2. Nf3 d6 3. d4 cxd4) 2. Nf3 *",
    # 0 start, 1 e4, 2 d5, 3 exd5, 4 Qxd5, 5 Nc3, 6 Qa5.
    "takes": "1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 *",
    # 0 start, 1 e4, 2 Nf6, 3 e5, 4 d5, 5 exd6 e.p., 6 cxd6; 7 d4, 8 Nc6 (variation of 3.exd6).
    "ep": "1. e4 Nf6 2. e5 d5 3. exd6 (3. d4 Nc6) 3... cxd6 *",
    # 0 start, 1 e4 ... 6 Bc5, 7 O-O, 8 Nf6; 9 c3, 10 Nf6, 11 O-O (variation of 4.O-O).
    "castle": "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O (4. c3 Nf6 5. O-O) 4... Nf6 *",
    # 0 start, 1 e4, 2 e5; 3 a null move (White passes, beside 1.e4), 4 d5.
    "null": "1. e4 (1. -- d5) 1... e5 *",
    # 0 start (White: Ka1, c7 pawn about to promote; Black: Ka8), 1 Kb2, 2 Kb7.
    "promote": ('[SetUp "1"]\n[FEN "k7/2P5/8/8/8/8/8/K7 w - - 0 1"]\n', "1. Kb2 Kb7 *"),
}


@pytest.fixture(scope="module")
def dbs(tmp_path_factory) -> dict[str, object]:
    return build_inline(tmp_path_factory.mktemp("dash"), GAMES)


# (game, query, positions on the main line only, positions with variations); None = same as main.
CASES = [
    # -- a bare dash is any move, the null move too (lacny.cql's 'start:path -- nullmove ...' matches
    # game 250 of cql6-sample only so); a dash with a side, a take or a promotion is a real move
    ("null", "--", [0, 1], [0, 1, 3]),
    ("null", "--(nullmove)", [], [0]),
    ("null", "P--", [0], None),
    ("null", "not --", [2], [2, 4]),
    ("null", "path -- nullmove --", [], [0]),
    # -- as for 'move from K', the reference reads the null move as the king going to its own
    # square (from = to = e1 here), in a dash too; it takes nothing
    ("null", "K--", [], [0]),
    ("null", "--K", [], [0]),
    ("null", "Ke1--e1", [], [0]),
    ("null", "K--e2", [], []),
    ("null", "K[x]", [], []),
    ("null", "k--", [], []),
    # -- currentmove D: D read at the parent about the move that led here only (the reference's
    # PreviousDashNode); the start has none
    ("takes", "currentmove [x]", [3, 4], None),
    ("takes", "currentmove P--d5", [3], None),
    ("ladder", "currentmove --(check)", [1, 3, 5, 7, 9], None),
    ("tree", "currentmove --", [1, 2, 3], [1, 2, 3, 4, 5, 6, 7, 8]),
    ("null", "currentmove K--", [], [3]),
    # -- countmoves: the reference counts a promotion once, whatever it promotes to (the three
    # forced-moves example files count 'b8=Q/R/B/N' as a forced move): Ka1's three and c8
    ("promote", "countmoves legal -- == 4", [0], None),
    ("promote", "countmoves legal P-- == 1", [0, 2], None),
    ("promote", "countmoves pseudolegal -- == 4", [0], None),
    ("promote", "countmoves legal -- == 2", [1], None),
    # -- the target is tested at the position the move leads to
    ("ladder", "--(check)", [0, 2, 4, 6, 8], None),
    ("ladder", "--(mate)", [8], None),
    ("ladder", "not --(check)", [1, 3, 5, 7, 9], None),
    ("ladder", "--(btm)", [0, 2, 4, 6, 8], None),
    ("ladder", "--", list(range(9)), None),
    # -- with the sides: the move must match them and lead to where the target holds
    ("ladder", "R--a4(check)", [0], None),
    ("ladder", "R--(check)", [0, 2, 4, 6, 8], None),
    ("ladder", "R--a-h5(check)", [2], None),
    ("ladder", "k--(check)", [], None),
    ("ladder", "R--(check mate)", [8], None),
    ("takes", "P[x]d5(btm)", [2], None),
    ("takes", "p[x]d5(btm)", [], None),
    ("takes", "[x](Q==0)", [], None),
    ("takes", "[x](p==7)", [2, 3], None),
    ("takes", "--=Q(check)", [], None),
    # -- targets nest: a capture, recaptured, then a knight move
    ("takes", "P[x]d5(q[x]d5(N--c3))", [2], None),
    ("ladder", "--(--(check))", [1, 3, 5, 7], None),
    # -- the value is the last target filter's value after the move
    ("ladder", "--(from) & a1", [0], None),
    ("ladder", "--(to) & a4", [0], None),
    ("ladder", "--(check to) & a4", [0], None),
    ("ladder", "x = R--(to) x & b-h5", [2], None),
    ("ladder", "--(ply) == 3", [2], None),
    # with variations a set value is the union over the matching moves
    ("tree", "--(to) & c5 and --(to) & e5", [], [1]),
    ("tree", "x = --(to) x & c5", [], [1]),
    # -- what the move was: en passant, castling
    ("ep", "--(enpassant)", [4], None),
    ("ep", "[x](enpassant)", [4], None),
    ("ep", "--(not enpassant)", [0, 1, 2, 3, 5], [0, 1, 2, 3, 4, 5, 7]),
    ("castle", "--(castle)", [6], [6, 10]),
    ("castle", "--(o-o)", [6], [6, 10]),
    ("castle", "--(o-o-o)", [], None),
    ("castle", "K--(castle)", [6], [6, 10]),
    ("castle", "x = R--(castle to) x & f1", [6], [6, 10]),
    ("castle", "--(castle) and --(not castle)", [], [6]),
    # -- in a path: a dash with a target inside a constituent is a filter tested there
    ("ladder", "path -- {--(check)}", [1, 3, 5, 7], None),
    ("ladder", "path -- {--(mate)}", [7], None),
]

_ENGINES = ["python", "sql"]


@pytest.mark.parametrize("engine", _ENGINES)
@pytest.mark.parametrize("variations", [False, True], ids=["main", "var"])
@pytest.mark.parametrize(("game", "query", "main", "var"), CASES, ids=[f"{c[0]}: {c[1]}" for c in CASES])
def test_dash(dbs, game: str, query: str, main: list[int], var: list[int] | None, variations: bool,
              engine: str) -> None:
    expected = (var if var is not None else main) if variations else main
    got = run(dbs[game], query, variations=variations, engine=engine).matches
    assert got == ({1: expected} if expected else {})


#: Castling and captures in Chess960 games, where the rook may start and land anywhere: the SQL
#: reads the rook's and the captured piece's squares from stored columns, so it is exact there too.
CHESS960_FILES = ("data/edge/pychess/chess960rwch.pgn", "data/edge/pgn4web/chess960wch06.pgn")
CHESS960_QUERIES = ("R--f1", "R--d1", "r--f8", "r--d8", "Rh1--", "Ra1--", "K--g1 R--f1", "--(o-o)", "--(o-o-o)",
                    "R--[c1,d1,e1,f1]", "move from R to f1", "move previous from R", "P[x]p", "[x]", "move capture p",
                    "--(castle) to", "from & R")


@pytest.fixture(scope="module")
def chess960_db(tmp_path_factory):
    from cqlindex.ingest.pipeline import build
    from tests.conftest import shared_path

    db = tmp_path_factory.mktemp("c960") / "c960.duckdb"
    build([str(shared_path(name)) for name in CHESS960_FILES], db, workers=1)
    return db


@pytest.mark.parametrize("query", CHESS960_QUERIES)
def test_chess960_sql_equals_python(chess960_db, query: str) -> None:
    by_sql = run(chess960_db, query, variations=True)
    by_python = run(chess960_db, query, variations=True, engine="python")
    assert by_sql.matches == by_python.matches
    if query.startswith(("R--", "r--", "--(o-o")):
        assert by_python.matches, "the files castle both ways for both colours"
