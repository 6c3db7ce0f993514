"""What cqlindex used to refuse and now evaluates (issue 18), each rule held to an oracle that
does not go through cqlindex's evaluator, on real games, on both engines:

* the value of ``legal F--G`` / ``pseudolegal F--G`` as a set: the squares the moves go to
  (the reference reads it as ``move legal from F to G``), against python-chess's move lists;
* ``elo`` without a colour (the higher rating the game gives) and ``player`` without one as a
  string (White's name, a line end, Black's; nothing unless both are given), against the tags;
* ``lastgamenumber``: the input's last game number, at most the ``gamenumber`` range's end;
* ``move promote`` takes a piece designator only: anything else is a syntax error, as in the
  reference parser;
* a blank line ends a path at its top level (the reference lexer's end-of-path mark), which is
  what lets ``legal --`` and a path share a query (indian, queenpawnpinecho) and a name be read
  after the path that assigns it (followpath).

The SQL engine's plans are held to the evaluator by the family tables (tests/filters/test_moves.py,
test_game_tags.py, test_position.py, test_variables.py).
"""

from __future__ import annotations

import chess
import duckdb
import pytest

from cqlindex.cql import ast
from cqlindex.cql.parser import parse
from cqlindex.errors import CqlSyntaxError
from cqlindex.exec.run import run
from tests.conftest import board_of

STUDIES = "data/studies/cql6-sample.pgn"
MATCHES = "data/annotated/world-matches.pgn"
ENGINES = ("python", "sql")

def _said(db, query: str, engine: str) -> dict[tuple[int, int], str]:
    """(gamenumber, positionid) -> what ``message quiet (gamenumber "," positionid "," X)`` said."""
    said = {}
    for line in run(db, query, engine=engine).messages:
        game, position, text = line.split(",", 2)
        said[int(game), int(position)] = text
    return said


def _rows(db, where: str = "mainline") -> list[dict]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        cursor = con.execute(f"SELECT * FROM positions WHERE {where} ORDER BY gamenumber, positionid")
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, values)) for values in cursor.fetchall()]
    finally:
        con.close()


def _targets(board: chess.Board, piece: str | None, pseudo: bool) -> set[int]:
    """The squares moves go to (of ``piece`` only, if given), castling as the king's move."""
    moves = board.pseudo_legal_moves if pseudo else board.legal_moves
    return {chess.square(6 if board.is_kingside_castling(m) else 2, chess.square_rank(m.from_square))
            if board.is_castling(m) else m.to_square
            for m in moves if piece is None or board.piece_at(m.from_square).symbol() == piece}


@pytest.mark.parametrize(("dash", "piece", "pseudo"), [
    ("legal --", None, False), ("legal N--", "N", False), ("pseudolegal k--", "k", True),
    ("legal P--", "P", False), ("pseudolegal --", None, True),
])
@pytest.mark.parametrize("engine", ENGINES)
def test_the_value_of_a_legal_dash_is_where_its_moves_go(build_db, dash: str, piece: str | None, pseudo: bool,
                                                        engine: str) -> None:
    db = build_db(STUDIES)
    said = _said(db, f'message quiet (gamenumber "," positionid "," #{dash} "," {dash})', engine)
    rows = _rows(db, "mainline AND gamenumber <= 60")
    checked = 0
    for row in rows:  # python-chess's move lists, from the stored bitboards
        board = board_of(row)
        if row["positionid"] == 0:
            board.ep_square = None  # a set-up FEN's en passant square does not count (moves/legal.py)
        expected = _targets(board, piece, pseudo)
        count, squares = said[row["gamenumber"], row["positionid"]].split(",", 1)
        assert int(count) == len(expected), (dash, row["gamenumber"], row["positionid"])
        if expected:
            written = {name[-2:] for name in squares.split(",")}  # 'pe2' is the pawn on e2
            assert written == {chess.square_name(s) for s in expected}, (dash, row["gamenumber"], row["positionid"])
        else:
            assert squares == "[]"
        checked += 1
    assert checked > 1000


def _games(db) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT gamenumber, white, black, white_elo, black_elo FROM games "
                           "ORDER BY gamenumber").fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("engine", ENGINES)
def test_elo_alone_is_the_higher_rating_and_player_alone_both_names(build_db, engine: str) -> None:
    db = build_db(MATCHES)
    elos = _said(db, 'initial message quiet (gamenumber "," positionid "," elo)', engine)
    names = _said(db, 'initial message quiet (gamenumber "," positionid "," player)', engine)
    games = _games(db)
    for game, white, black, white_elo, black_elo in games:
        ratings = [r for r in (white_elo, black_elo) if r]
        assert elos[game, 0] == (str(max(ratings)) if ratings else "<none>"), game
        assert names[game, 0] == (f"{white}\n{black}" if white and black else "<none>"), game
    assert len(games) > 500
    # the search: a text found in either name, across the line end too, nowhere without both names
    both = run(db, 'initial player "Kasparov"', engine=engine).matches
    assert set(both) == {g for g, w, b, *_ in games if w and b and "Kasparov" in f"{w}\n{b}"} != set()
    across = run(db, f'initial player "{games[0][1][-2:]}\\n{games[0][2][:2]}"', engine=engine).matches
    assert games[0][0] in across


@pytest.mark.parametrize(("header", "expected"), [("", 253), ("cql(gamenumber 3 10)", 10),
                                                  ("cql(gamenumber 250 400)", 253)])
@pytest.mark.parametrize("engine", ENGINES)
def test_lastgamenumber_is_the_collections_last_game(build_db, header: str, expected: int, engine: str) -> None:
    db = build_db(STUDIES)
    assert list(run(db, f"{header} initial gamenumber == lastgamenumber", engine=engine).matches) == [expected]
    assert not run(db, f"{header} lastgamenumber != {expected}", engine=engine).matches


@pytest.mark.parametrize(("query", "ok"), [
    ("move promote B", True), ("move promote [QN]", True), ("move previous promote q", True),
    ("move promote", False), ("move promote Qa8", False), ("x = [QR] move promote x", False),
    ('move promote "Q"', False), ("move promote 1", False), ("move promote a1", False),
])
def test_promote_takes_a_piece_designator(query: str, ok: bool) -> None:
    if ok:
        parse(query)
    else:
        with pytest.raises(CqlSyntaxError, match="promote"):
            parse(query)


@pytest.mark.parametrize(("query", "ends"), [
    ("path -- check\n\nmate", True),                  # an empty line
    ("path -- check\n \t \nmate", True),              # blanks only between the two line ends
    ("path -- check // a note\n\nmate", True),        # a '//' comment ends its line
    ("path -- check ; a note\n\nmate", True),         # so does ';'
    ("path -- check\n// a note\nmate", False),        # a comment line is not blank
    ("path -- check\n/* a\n\nnote */\nmate", False),   # nor is a line a '/* */' comment ends on
    ("path -- check\nmate", False),                    # one line end
    ("path (-- check\n\nmate)", False),               # inside a group the path goes on
    ("{path -- check\n\nmate}", True),                # inside braces a path still ends
])
def test_a_blank_line_ends_a_path(query: str, ends: bool) -> None:
    body = parse(query).body
    path = next(node for node in ast.walk(body) if isinstance(node, ast.Path))
    mate = next(node for node in ast.walk(body) if isinstance(node, ast.Keyword) and node.name == "mate")
    assert any(node is mate for node in ast.walk(path)) != ends


def test_a_nested_path_ends_with_the_one_around_it() -> None:
    (outer, after) = parse("path -- path -- check\n\nmate").body.items
    assert isinstance(outer, ast.Path) and isinstance(outer.items[1], ast.Path)
    assert isinstance(after, ast.Keyword) and after.name == "mate"


@pytest.mark.parametrize("engine", ENGINES)
def test_legal_in_a_query_with_a_path(build_db, engine: str) -> None:
    """``legal --`` is no longer refused beside a path: the two evaluate independently."""
    db = build_db(STUDIES)
    alone = run(db, "btm not legal q--", engine=engine).matches
    together = run(db, "btm not legal q--\n\npath -- --", engine=engine).matches
    path_alone = run(db, "path -- --", engine=engine).matches
    expected = {g: sorted(set(ids) & set(path_alone.get(g, ()))) for g, ids in alone.items()}
    assert together == {g: ids for g, ids in expected.items() if ids}
    assert alone and path_alone


@pytest.mark.parametrize("engine", ENGINES)
def test_atomic_variables_follow_the_kept_walk(build_db, engine: str) -> None:
    """``atomic``: a path's search undoes a move's changes to an atomic variable when it backs out
    of the move, and the variable ends with the kept walk's value (or its own if no walk is kept).
    With variations a counter bumped at each move is then the kept walk's length; an ordinary
    variable counts every move the search tried."""
    db = build_db(STUDIES)

    def positions(query: str) -> int:
        return sum(map(len, run(db, f"cql(variations) {query}", engine=engine).matches.values()))

    walks = positions("m = {path (-- ){1,3}}")
    assert walks > 10_000
    assert positions("atomic cnt = 0 m = {path (-- cnt += 1){1,3}} cnt == m") == walks
    assert positions("cnt = 0 m = {path (-- cnt += 1){1,3}} cnt != m") > 1000  # not so for an ordinary one
    every = positions("true")
    assert positions("atomic cnt = 0 {path -- cnt += 1 false} or true cnt == 0") == every
    assert positions("cnt = 0 {path -- cnt += 1 false} or true cnt == 0") < every


@pytest.mark.parametrize(("query", "same_as"), [
    ("path -- not K-- --", "path -- {not K--} --"),            # a dash inside an operator: a filter
    ("path -- check or K-- --", "path -- {check or K--} --"),
    ("path P--e4--e5", "path P--e4 --e5"),                      # moves one against the other: steps
    ("path --a-h4--", "path --a-h4 --"),
])
@pytest.mark.parametrize("engine", ENGINES)
def test_dashes_in_path_constituents(build_db, query: str, same_as: str, engine: str) -> None:
    db = build_db(STUDIES)
    got = run(db, f"cql(variations) {query}", engine=engine).matches
    assert got == run(db, f"cql(variations) {same_as}", engine=engine).matches
    assert got or "e5" in query


@pytest.mark.parametrize(("query", "words"), [
    ("cql(year 1990) check", r"not a cql\(\) parameter"),     # the reference's header knows no other
    ("cql(sort) check", "sort matchcount"),
    ("x = path -- pathcount <= x", "no value yet"),         # a new name inside its own first value
    ("path -- legal --", "top level of a path"),             # the reference lexer's rule: in braces
    ("path -- not legal K--", "top level of a path"),
    ("path (-- x = countmoves --)", "top level of a path"),  # a group is still the top level
    ("path -- move legal from K", "top level of a path"),
])
def test_syntax_errors_that_were_refusals(query: str, words: str) -> None:
    with pytest.raises(CqlSyntaxError, match=words):
        parse(query)


@pytest.mark.parametrize("query", [
    "path -- {legal --}", "path -- {parent:countmoves legal -- == 1} +", "x = legal -- path -- --",
    "path -- check\n\nlegal --", "path -- {x = countmoves --} x > 1",
])
def test_generated_moves_beside_a_path(query: str) -> None:
    parse(query)
