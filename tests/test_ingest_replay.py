"""Replaying one game: tree numbering (FACTS.md section 2), move facts, errors, comments.

Games go through ``cqlindex.ingest.worker.parse_batch`` (decode, prepare, replay, rows), so the
columns checked are the ones a build writes; python-chess is the oracle for board facts.
"""

from __future__ import annotations

import io

import chess
import chess.pgn
import chess.polyglot
import pytest

from conftest import BITBOARDS, board_of
from cqlindex.board.squares import to_signed, to_unsigned
from cqlindex.ingest.replay import replay
from cqlindex.ingest.source import RawGame
from cqlindex.ingest.worker import parse_batch

FACTS_EXAMPLE = ("1. e4 e5 (1... c5 2. Nf3 (2. Nc3 Nc6) d6) (1... e6 2. d4) 2. Nf3 Nc6 "
                 "(2... d6 3. d4) 3. Bb5 *\n")
FIRST_MOVE_VARIATION = "1. d4 (1. c4 e5) d5 *\n"


def run(text: str, *, line: int = 1, gamenumber: int = 1, file: str = "t.pgn"):
    """(game row, position rows in positionid order, error rows) of one game."""
    raw = RawGame(file, 0, line, text.encode("utf-8"))
    games, positions, errors = parse_batch([(gamenumber, raw)])
    assert games.num_rows == 1
    rows = sorted(positions.to_pylist(), key=lambda r: r["positionid"])
    return games.to_pylist()[0], rows, errors.to_pylist()


# --- FACTS.md section 2 -----------------------------------------------------------------------

# id: (san, ply, depth, child_index, parent, last_descendant, mainline, children)
FACTS_TABLE = {
    0: (None, 0, 0, 0, None, 14, True, 1),
    1: ("e4", 1, 0, 0, 0, 14, True, 3),
    2: ("e5", 2, 0, 0, 1, 7, True, 1),
    3: ("Nf3", 3, 0, 0, 2, 7, True, 2),
    4: ("Nc6", 4, 0, 0, 3, 5, True, 1),
    5: ("Bb5", 5, 0, 0, 4, 5, True, 0),
    6: ("d6", 4, 1, 1, 3, 7, False, 1),
    7: ("d4", 5, 1, 0, 6, 7, False, 0),
    8: ("c5", 2, 1, 1, 1, 12, False, 2),
    9: ("Nf3", 3, 1, 0, 8, 10, False, 1),
    10: ("d6", 4, 1, 0, 9, 10, False, 0),
    11: ("Nc3", 3, 2, 1, 8, 12, False, 1),
    12: ("Nc6", 4, 2, 0, 11, 12, False, 0),
    13: ("e6", 2, 1, 2, 1, 14, False, 1),
    14: ("d4", 3, 1, 0, 13, 14, False, 0),
}
FIRST_MOVE_TABLE = {
    0: (None, 0, 0, 0, None, 4, True, 2),
    1: ("d4", 1, 0, 0, 0, 2, True, 1),
    2: ("d5", 2, 0, 0, 1, 2, True, 0),
    3: ("c4", 1, 1, 1, 0, 4, False, 1),
    4: ("e5", 2, 1, 0, 3, 4, False, 0),
}
TREE_COLUMNS = ("san", "ply", "depth", "child_index", "parent", "last_descendant", "mainline", "children")


@pytest.mark.parametrize("text, table", [(FACTS_EXAMPLE, FACTS_TABLE), (FIRST_MOVE_VARIATION, FIRST_MOVE_TABLE)],
                         ids=["facts-example", "first-move-variation"])
def test_tree_numbering_as_in_facts(text: str, table: dict) -> None:
    game, rows, errors = run(text)
    assert errors == []
    assert [r["positionid"] for r in rows] == list(range(len(table)))
    got = {r["positionid"]: tuple(r[c] for c in TREE_COLUMNS) for r in rows}
    assert got == table
    assert game["positions"] == len(table)
    assert game["mainline_positions"] == sum(1 for v in table.values() if v[6])


@pytest.mark.parametrize("text", [FACTS_EXAMPLE, FIRST_MOVE_VARIATION])
def test_mainline_ids_equal_ply(text: str) -> None:
    _, rows, _ = run(text)
    main = [r for r in rows if r["mainline"]]
    assert [r["positionid"] for r in main] == list(range(len(main)))
    assert all(r["positionid"] == r["ply"] for r in main)


@pytest.mark.parametrize("text", [FACTS_EXAMPLE, FIRST_MOVE_VARIATION])
def test_tree_invariants(text: str) -> None:
    _, rows, _ = run(text)
    by_id = {r["positionid"]: r for r in rows}
    for r in rows:
        pid = r["positionid"]
        descendants = {d["positionid"] for d in rows if _is_descendant(by_id, d["positionid"], pid)}
        assert descendants == set(range(pid + 1, r["last_descendant"] + 1))
        assert r["children"] == sum(1 for d in rows if d["parent"] == pid)
        if r["parent"] is not None:
            assert r["ply"] == by_id[r["parent"]]["ply"] + 1
            assert r["depth"] == by_id[r["parent"]]["depth"] + (1 if r["child_index"] else 0)
            assert r["mainline"] == (r["depth"] == 0)


def _is_descendant(by_id: dict, node: int, ancestor: int) -> bool:
    parent = by_id[node]["parent"]
    while parent is not None:
        if parent == ancestor:
            return True
        parent = by_id[parent]["parent"]
    return False


def test_replay_directly_gives_the_same_tree() -> None:
    game = replay(FACTS_EXAMPLE)
    assert game.depth == [v[2] for v in FACTS_TABLE.values()]
    assert game.last_descendant == [v[5] for v in FACTS_TABLE.values()]
    assert game.child_index == [v[3] for v in FACTS_TABLE.values()]
    assert game.errors == []


# --- null moves, empty games, FEN set-ups ------------------------------------------------------

def test_null_move_is_a_ply_and_a_position() -> None:
    _, rows, errors = run("1. e4 -- 2. d4 *\n")
    assert errors == []
    assert [r["san"] for r in rows] == [None, "e4", "--", "d4"]
    assert [r["ply"] for r in rows] == [0, 1, 2, 3]
    assert [r["null_move"] for r in rows] == [False, False, True, False]
    null = rows[2]
    assert null["wtm"] is True
    assert null["move_from"] is None and null["move_to"] is None
    assert all(null[c] == rows[1][c] for c in BITBOARDS)


def test_null_move_inside_a_variation() -> None:
    _, rows, errors = run("1. e4 e5 (1... -- 2. d4) 2. Nf3 *\n")
    assert errors == []
    assert [(r["positionid"], r["san"], r["depth"]) for r in rows] == [
        (0, None, 0), (1, "e4", 0), (2, "e5", 0), (3, "Nf3", 0), (4, "--", 1), (5, "d4", 1)]
    assert rows[4]["null_move"] is True


@pytest.mark.parametrize("text", [
    '[Event "x"]\n\n*\n',
    '[Event "x"]\n[Result "*"]\n',
    '[Event "x"]\n\n{just a comment} 1-0\n',
], ids=["result-only", "header-only", "comment-only"])
def test_game_without_moves_has_one_position(text: str) -> None:
    game, rows, errors = run(text)
    assert errors == []
    assert len(rows) == 1
    assert game["positions"] == 1 and game["mainline_positions"] == 1
    root = rows[0]
    assert root["positionid"] == 0 and root["parent"] is None and root["children"] == 0
    assert root["last_descendant"] == 0
    assert root["legal_moves"] == 20


def test_header_only_fen_game_is_its_setup_position() -> None:
    fen = "4k3/8/8/8/8/8/8/4K2R w K - 0 1"
    game, rows, _ = run(f'[Event "x"]\n[SetUp "1"]\n[FEN "{fen}"]\n')
    assert len(rows) == 1
    assert game["start_fen"] == fen
    assert board_of(rows[0]).fen() == fen


@pytest.mark.parametrize("fen, moves, movenumbers", [
    ("8/8/8/8/8/8/k7/4K2R b K - 0 40", "40... Ka3 41. O-O Ka4 *", [1, 2, 2, 3]),
    ("8/8/8/8/8/8/k7/4K2R w K - 0 40", "40. O-O Ka3 41. Kh2 *", [1, 1, 2, 2]),
    ("8/8/8/8/8/8/k7/4K2R b K - 0 1", "1... Ka3 2. Kf1 Ka4 3. Kg1 *", [1, 2, 2, 3, 3]),
], ids=["black-to-move-fullmove-40", "white-to-move-fullmove-40", "black-to-move-fullmove-1"])
def test_fen_setup_movenumber(fen: str, moves: str, movenumbers: list[int]) -> None:
    game, rows, errors = run(f'[Event "x"]\n[SetUp "1"]\n[FEN "{fen}"]\n\n{moves}\n')
    assert errors == []
    assert game["start_fen"] == fen
    assert [r["movenumber"] for r in rows] == movenumbers
    assert board_of(rows[0]).fen().split()[:5] == fen.split()[:5]


def test_standard_start_has_no_start_fen_and_movenumbers() -> None:
    game, rows, _ = run("1. e4 e5 2. Nf3 Nc6 3. Bb5 *\n")
    assert game["start_fen"] is None
    assert [r["movenumber"] for r in rows] == [1, 1, 2, 2, 3, 3]
    assert [r["wtm"] for r in rows] == [True, False, True, False, True, False]


# --- illegal moves -----------------------------------------------------------------------------

ILLEGAL_CASES = [
    # (id, text, first line of the game in its file, positions kept, expected error line in the file)
    ("same-line", '[Event "x"]\n\n1. e4 e5 2. Ke3 Nc6 *\n', 1, 3, 3),
    ("later-line", '[Event "x"]\n[Site "y"]\n\n1. e4 e5\n2. Nf3 Nc6\n3. Bb5 Ke3 4. O-O *\n', 1, 6, 6),
    ("game-starts-at-line-40", '[Event "x"]\n\n1. e4 e5\n2. Nf3 Ke3 3. Bb5 *\n', 40, 4, 43),
    ("after-blank-lines-and-multiline-comment",
     '[Event "x"]\n\n1. e4 {a\n\nlong comment\n\n} e5\n\n2. Nf3 Nc6\n3. Qxf7 *\n', 1, 5, 10),
    ("first-move", '[Event "x"]\n\n1. e5 e4 *\n', 1, 1, 3),
]


@pytest.mark.parametrize("text, start_line, kept, error_line", [c[1:] for c in ILLEGAL_CASES],
                         ids=[c[0] for c in ILLEGAL_CASES])
def test_illegal_main_line_move_keeps_the_game_up_to_it(text: str, start_line: int, kept: int,
                                                        error_line: int) -> None:
    game, rows, errors = run(text, line=start_line, gamenumber=7)
    assert len(rows) == kept
    assert game["positions"] == kept and game["mainline_positions"] == kept
    assert all(r["mainline"] for r in rows)
    assert len(errors) == 1
    error = errors[0]
    assert error["gamenumber"] == 7 and error["source_file"] == "t.pgn"
    assert error["line"] == error_line
    assert error["message"]
    assert game["errors"] == 1


def test_illegal_move_error_line_matches_the_text() -> None:
    """The reported line really is the one holding the bad move."""
    text = '[Event "x"]\n\n1. d4 d5\n2. c4 e6\n3. Nc3 Nf6\n4. Bg5 Kd5\n5. e3 *\n'
    _, _, errors = run(text, line=1)
    assert "Kd5" in text.splitlines()[errors[0]["line"] - 1]


# --- comments and NAGs -------------------------------------------------------------------------

def test_comments_and_nags_attach_to_the_right_positions() -> None:
    text = ("{before the game} 1. e4 $1 {after e4} e5 ({before c5} 1... c5 $2 {after c5} 2. Nf3) "
            "2. Nf3 !? {after Nf3} Nc6 $14 $18 *\n")
    _, rows, errors = run(text)
    assert errors == []
    got = [(r["positionid"], r["san"], r["comment"], r["comment_before"], r["nags"]) for r in rows]
    assert got == [
        (0, None, "before the game", None, None),
        (1, "e4", "after e4", None, [1]),
        (2, "e5", None, None, None),
        (3, "Nf3", "after Nf3", None, [5]),
        (4, "Nc6", None, None, [14, 18]),
        (5, "c5", "after c5", "before c5", [2]),
        (6, "Nf3", None, None, None),
    ]


def test_comments_do_not_create_positions() -> None:
    plain = run("1. e4 e5 2. Nf3 *\n")[1]
    commented = run("{a} 1. e4 {b} {c} e5 $1 {d\nmulti-line} 2. Nf3 {e} *\n")[1]
    assert len(plain) == len(commented) == 4
    assert commented[1]["comment"] == "b c"


def test_comment_of_an_empty_variation_does_not_leak_into_a_later_one() -> None:
    """A comment inside an empty RAV must not become the comment of another variation."""
    _, rows, errors = run("1. e4 ( {a} ) e5 ( {b} 1... c5 ) *\n")
    assert errors == []
    c5 = next(r for r in rows if r["san"] == "c5")
    assert c5["comment_before"] == "b"


# --- move facts --------------------------------------------------------------------------------

E1, C1, G1, E8, C8, G8 = chess.E1, chess.C1, chess.G1, chess.E8, chess.C8, chess.G8
FEN960 = "1k6/8/8/8/8/8/8/RK5R w HA - 0 1"
MOVE_CASES = [
    # (id, pgn, positionid, expected columns)
    ("white-O-O", "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O *", 7,
     dict(san="O-O", move_from=E1, move_to=G1, castle=1, move_piece=chess.KING, captured=None,
          rook_from=chess.H1, rook_to=chess.F1, capture_square=None)),
    ("black-O-O", "1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. O-O O-O *", 8,
     dict(san="O-O", move_from=E8, move_to=G8, castle=1, move_piece=chess.KING, rook_from=chess.H8,
          rook_to=chess.F8)),
    ("white-O-O-O", "1. d4 d5 2. Nc3 Nc6 3. Bf4 Bf5 4. Qd2 Qd7 5. O-O-O O-O-O *", 9,
     dict(san="O-O-O", move_from=E1, move_to=C1, castle=2, move_piece=chess.KING, rook_from=chess.A1,
          rook_to=chess.D1)),
    ("black-O-O-O", "1. d4 d5 2. Nc3 Nc6 3. Bf4 Bf5 4. Qd2 Qd7 5. O-O-O O-O-O *", 10,
     dict(san="O-O-O", move_from=E8, move_to=C8, castle=2, move_piece=chess.KING, rook_from=chess.A8,
          rook_to=chess.D8)),
    ("chess960-O-O-O", f'[Variant "Chess960"]\n[FEN "{FEN960}"]\n\n1. O-O-O Ka7 *', 1,
     dict(san="O-O-O", move_from=chess.B1, move_to=C1, castle=2, move_piece=chess.KING, captured=None,
          rook_from=chess.A1, rook_to=chess.D1, capture_square=None)),
    ("chess960-O-O", f'[Variant "Chess960"]\n[FEN "{FEN960}"]\n\n1. O-O *', 1,
     dict(san="O-O", move_from=chess.B1, move_to=G1, castle=1, move_piece=chess.KING, captured=None,
          rook_from=chess.H1, rook_to=chess.F1)),
    ("chess960-king-stays", '[Variant "Chess960"]\n[FEN "1k6/8/8/8/8/8/8/R5KR w HA - 0 1"]\n\n1. O-O *', 1,
     dict(san="O-O", move_from=G1, move_to=G1, castle=1, rook_from=chess.H1, rook_to=chess.F1)),
    ("chess960-rook-stays", '[Variant "Chess960"]\n[FEN "1k6/8/8/8/8/8/8/4KR2 w F - 0 1"]\n\n1. O-O *', 1,
     dict(san="O-O", move_from=E1, move_to=G1, castle=1, rook_from=chess.F1, rook_to=chess.F1)),
    ("white-en-passant", "1. e4 Nf6 2. e5 d5 3. exd6 *", 5,
     dict(san="exd6", move_from=chess.E5, move_to=chess.D6, captured=chess.PAWN, en_passant=True,
          move_piece=chess.PAWN, castle=None, capture_square=chess.D5, rook_from=None, rook_to=None)),
    ("ep-square-after-double-step", "1. e4 Nf6 2. e5 d5 3. exd6 *", 4,
     dict(san="d5", ep_square=chess.D6, en_passant=False)),
    ("black-en-passant", "1. Nf3 e5 2. Nc3 e4 3. d4 exd3 *", 6,
     dict(san="exd3", move_from=chess.E4, move_to=chess.D3, captured=chess.PAWN, en_passant=True,
          capture_square=chess.D4)),
    ("ordinary-capture", "1. e4 d5 2. exd5 *", 3,
     dict(san="exd5", captured=chess.PAWN, en_passant=False, promotion=None, capture_square=chess.D5)),
    ("quiet-move", "1. e4 d5 2. e5 *", 3, dict(san="e5", captured=None, capture_square=None, rook_from=None)),
    ("promotion", '[FEN "8/4P1k1/8/8/8/8/8/4K3 w - - 0 1"]\n\n1. e8=Q *', 1,
     dict(san="e8=Q", move_from=chess.E7, move_to=chess.E8, promotion=chess.QUEEN, move_piece=chess.PAWN,
          captured=None, is_check=False)),
    ("underpromotion-with-check", '[FEN "8/4P1k1/8/8/8/8/8/4K3 w - - 0 1"]\n\n1. e8=N+ *', 1,
     dict(san="e8=N+", promotion=chess.KNIGHT, is_check=True, is_mate=False)),
    ("capture-promotion", '[FEN "3r4/4P1k1/8/8/8/8/8/4K3 w - - 0 1"]\n\n1. exd8=Q *', 1,
     dict(san="exd8=Q", move_to=chess.D8, captured=chess.ROOK, promotion=chess.QUEEN, capture_square=chess.D8)),
    ("check", "1. e4 f6 2. Qh5+ *", 3,
     dict(san="Qh5+", is_check=True, is_mate=False, is_stalemate=False)),
    ("check-without-suffix-in-pgn", "1. e4 f6 2. Qh5 *", 3,
     dict(san="Qh5+", is_check=True)),
    ("mate", "1. f3 e5 2. g4 Qh4# 0-1", 4,
     dict(san="Qh4#", is_check=True, is_mate=True, is_stalemate=False, legal_moves=0)),
    ("mate-written-as-check", "1. f3 e5 2. g4 Qh4+ 0-1", 4,
     dict(san="Qh4#", is_mate=True)),
    ("stalemate", '[FEN "k7/2Q5/8/8/8/8/8/7K w - - 0 1"]\n\n1. Qb6 1/2-1/2', 1,
     dict(san="Qb6", is_check=False, is_mate=False, is_stalemate=True, legal_moves=0)),
    ("root-facts", "1. e4 *", 0,
     dict(san=None, move_from=None, move_to=None, move_piece=None, castle=None, legal_moves=20,
          is_check=False, halfmove_clock=0, wtm=True, capture_square=None, rook_from=None, rook_to=None)),
]


@pytest.mark.parametrize("text, positionid, expected", [c[1:] for c in MOVE_CASES], ids=[c[0] for c in MOVE_CASES])
def test_move_facts(text: str, positionid: int, expected: dict) -> None:
    _, rows, errors = run(text + "\n")
    assert errors == []
    row = rows[positionid]
    assert {k: row[k] for k in expected} == expected


# --- python-chess as the oracle for every main-line position -----------------------------------

ORACLE_GAMES = [c[1] for c in MOVE_CASES] + [
    FACTS_EXAMPLE,
    "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 "
    "10. d4 Nbd7 11. Nbd2 Bb7 12. Bc2 Re8 13. Nf1 Bf8 14. Ng3 g6 *",
    '[FEN "r3k2r/pppq1ppp/2n1bn2/3pp3/1b1PP3/2N1BN2/PPPQBPPP/R3K2R w KQkq - 0 1"]\n\n'
    "1. O-O-O O-O 2. dxe5 dxe4 3. exf6 exf3 4. fxg7 fxe2 5. gxf8=Q+ Rxf8 *",
    '[FEN "4k3/8/8/K2pP2r/8/8/8/8 w - d6 0 1"]\n\n1. Kb4 *',
    '[FEN "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1"]\n\n1. exd6 Kd7 *',
    '[FEN "4r3/8/8/8/8/8/4P3/4K2k w - - 0 1"]\n\n1. e4 *',
    '[FEN "4k3/8/8/8/8/1b6/2P5/3K4 w - - 0 1"]\n\n1. cxb3 *',
    '[FEN "r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1"]\n\n1. O-O-O Rf1+ 2. Rhxf1 *',
    '[FEN "8/P6k/8/8/8/8/6p1/K7 w - - 0 1"]\n\n1. a8=Q g1=N 2. Qb7+ Kg6 *',
    "1. e4 -- 2. d4 -- 3. c4 *",
]


@pytest.mark.parametrize("text", ORACLE_GAMES, ids=[f"g{i}" for i in range(len(ORACLE_GAMES))])
def test_main_line_agrees_with_python_chess(text: str) -> None:
    _, rows, errors = run(text + "\n")
    assert errors == []
    game = chess.pgn.read_game(io.StringIO(text + "\n"))
    assert not game.errors
    board = game.board()
    main = [r for r in rows if r["mainline"]]
    moves = list(game.mainline_moves())
    assert len(main) == len(moves) + 1
    for i, row in enumerate(main):
        if i:
            move = moves[i - 1]
            assert row["san"] == board.san(move), (i, row["san"])
            assert row["null_move"] == (not move)
            board.push(move)
        assert row["wtm"] == board.turn
        for name in BITBOARDS:
            color = chess.WHITE if name[0] == "w" else chess.BLACK
            piece = chess.Piece.from_symbol(name[1]).piece_type
            assert to_unsigned(row[name]) == int(board.pieces(piece, color)), (i, name)
        assert to_unsigned(row["castling_rights"]) == board.castling_rights
        assert row["ep_square"] == board.ep_square
        assert row["halfmove_clock"] == board.halfmove_clock
        assert row["is_check"] == board.is_check(), i
        assert row["is_mate"] == board.is_checkmate(), i
        assert row["is_stalemate"] == board.is_stalemate(), i
        assert row["legal_moves"] == board.legal_moves.count(), (i, board.fen())
        assert row["zobrist"] == to_signed(chess.polyglot.zobrist_hash(board)), i


LEGAL_MOVE_FENS = [
    chess.STARTING_FEN,
    "4r3/8/8/8/8/8/4P3/4K2k w - - 0 1",            # pawn pinned on its file: may push
    "4k3/8/8/8/8/1b6/2P5/3K4 w - - 0 1",           # pawn pinned on a diagonal: may capture the pinner
    "4k3/8/8/8/b7/8/2P5/3K4 w - - 0 1",            # pawn pinned on a diagonal: frozen
    "4k3/8/8/K2pP2r/8/8/8/8 w - d6 0 1",           # en passant would expose the king on the rank
    "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",           # legal en passant
    "4k3/8/8/8/3Pp3/8/8/4K3 b - d3 0 1",           # black en passant
    "8/P6k/8/8/8/8/6p1/K7 w - - 0 1",              # promotions count four times
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",        # both castlings
    "r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1",      # castling through an attacked square
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
    "4k3/8/8/8/8/8/8/4K2r w - - 0 1",              # in check
    "4k3/8/8/8/8/5n2/8/r3K3 w - - 0 1",            # double check
    "k7/2Q5/1K6/8/8/8/8/8 b - - 0 1",              # stalemate
    "r1bqkbnr/pppp1Qpp/2n5/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4",  # mate
    "1k6/8/8/8/8/8/8/RK5R w HA - 0 1",             # Chess960 castling rights
]


@pytest.mark.parametrize("fen", LEGAL_MOVE_FENS)
def test_legal_moves_check_mate_stalemate_of_setups(fen: str) -> None:
    variant = '[Variant "Chess960"]\n' if "HA" in fen else ""
    _, rows, errors = run(f'[Event "x"]\n{variant}[FEN "{fen}"]\n\n*\n')
    assert errors == []
    board = chess.Board(fen, chess960=bool(variant))
    row = rows[0]
    assert row["legal_moves"] == board.legal_moves.count()
    assert row["is_check"] == board.is_check()
    assert row["is_mate"] == board.is_checkmate()
    assert row["is_stalemate"] == board.is_stalemate()
    assert row["zobrist"] == to_signed(chess.polyglot.zobrist_hash(board))


def test_variation_positions_agree_with_python_chess() -> None:
    """Every node of the FACTS example, variations included, against python-chess's tree."""
    _, rows, _ = run(FACTS_EXAMPLE)
    game = chess.pgn.read_game(io.StringIO(FACTS_EXAMPLE))
    boards: list[chess.Board] = []

    def walk(node: chess.pgn.GameNode) -> None:  # pre-order, main continuation first
        boards.append(node.board())
        for child in node.variations:
            walk(child)

    walk(game)
    assert len(boards) == len(rows)
    for row, board in zip(rows, boards):
        assert board_of(row).board_fen() == board.board_fen(), row["positionid"]
        assert row["zobrist"] == to_signed(chess.polyglot.zobrist_hash(board))
        assert row["legal_moves"] == board.legal_moves.count()


def test_game_tags_and_header_columns() -> None:
    text = ('[Event "Ev"]\n[Site "Si"]\n[Date "1951.03.??"]\n[Round "2"]\n[White "Wh"]\n[Black "Bl"]\n'
            '[Result "1-0"]\n[WhiteElo "2700"]\n[BlackElo "?"]\n[ECO "C57"]\n[Annotator "An"]\n\n1. e4 1-0\n')
    game, _, _ = run(text)
    assert (game["event"], game["site"], game["date"], game["round"], game["white"], game["black"],
            game["result"], game["eco"]) == ("Ev", "Si", "1951.03.??", "2", "Wh", "Bl", "1-0", "C57")
    assert game["year"] == 1951
    assert game["white_elo"] == 2700 and game["black_elo"] is None
    assert dict(game["tags"])["Annotator"] == "An"
    assert game["chess960"] is False


def test_latin1_game_text_is_decoded() -> None:
    raw = RawGame("t.pgn", 0, 1, '[Event "x"]\n[White "Polgár, Judit"]\n\n1. e4 *\n'.encode("latin-1"))
    games, _, _ = parse_batch([(1, raw)])
    assert games.to_pylist()[0]["white"] == "Polgár, Judit"


@pytest.mark.parametrize("data, white, error_line", [
    # byte 0x85 is Windows-1252's ellipsis; read as Latin-1 it is U+0085, which str.splitlines()
    # treats as a line break: the tag line is cut in two and the header is lost.
    (b'[Event "Open\x85"]\n[White "A"]\n[Black "B"]\n\n1. e4 e5 2. Ke3 *\n', "A", 5),
    (b'[Event "Open"]\n[White "A"]\n[Black "B"]\n\n1. e4 {what\x85} e5\n2. Ke3 *\n', "A", 6),
], ids=["in-a-tag", "in-a-comment"])
def test_latin1_byte_0x85_is_not_a_line_break(data: bytes, white: str, error_line: int) -> None:
    games, _, errors = parse_batch([(1, RawGame("t.pgn", 0, 1, data))])
    game = games.to_pylist()[0]
    assert (game["white"], game["black"]) == (white, "B")
    assert [e["line"] for e in errors.to_pylist()] == [error_line]
