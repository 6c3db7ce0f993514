"""Game trees loaded from the index: shape, main-line loading, boards, batches, game selection.

Boards are checked against python-chess replaying the PGN itself, so the index, not the
loader's own idea of it, is what the trees must reproduce.
"""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import chess
import chess.pgn
import chess.polyglot
import pytest

from conftest import shared_path
from cqlindex.board.squares import to_unsigned
from cqlindex.errors import DatabaseError
from cqlindex.ingest.pipeline import build
from cqlindex.store.database import connect
from cqlindex.store.trees import GameTree, Position, load_games

CQL6 = "data/studies/cql6-sample.pgn"
LICHESS = "data/games/lichess-474.pgn"

FACTS_EXAMPLE = """[Event "facts"]
[White "A"]
[Black "B"]
[Result "*"]

1. e4 e5 (1... c5 2. Nf3 (2. Nc3 Nc6) d6) (1... e6 2. d4) 2. Nf3 Nc6 (2... d6 3. d4) 3. Bb5 *

[Event "first move variation"]
[Result "*"]

1. d4 (1. c4 e5) d5 *

[Event "set-up, black to move, fullmove 40"]
[SetUp "1"]
[FEN "8/8/8/4k3/8/8/4K3/4R3 b - - 0 40"]
[Result "*"]

40... Kd5 41. Rh1 Kd4 42. Kd2 *

[Event "chess960"]
[Variant "Chess960"]
[SetUp "1"]
[FEN "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w AHah - 0 7"]
[Result "*"]

7. O-O (7. O-O-O O-O 8. a4) 7... O-O-O 8. Kh1 *

[Event "no moves"]
[Result "*"]

*
"""

def _build_inline(tmp_path: Path, text: str) -> Path:
    pgn = tmp_path / "inline.pgn"
    pgn.write_text(text, encoding="utf-8")
    out = tmp_path / "inline.duckdb"
    build([str(pgn)], out, workers=1)
    return out


@pytest.fixture(scope="module")
def inline_db(tmp_path_factory) -> Path:
    return _build_inline(tmp_path_factory.mktemp("trees"), FACTS_EXAMPLE)


@pytest.fixture(scope="module")
def cql6(build_db):
    with closing(connect(build_db(CQL6))) as con:
        yield con


def _game(con, gamenumber: int, **kwargs) -> GameTree:
    (tree,) = load_games(con, [gamenumber], **kwargs)
    return tree


def _replay_tree(game: chess.pgn.Game) -> list[tuple[int | None, list[int], chess.Board]]:
    """(parent, children, board) per node, numbered in pre-order with the main continuation first."""
    nodes: list[tuple[int | None, list[int], chess.Board]] = []
    stack: list[tuple[chess.pgn.GameNode, int | None, chess.Board]] = [(game, None, game.board())]
    while stack:
        node, parent, board = stack.pop()
        index = len(nodes)
        nodes.append((parent, [], board))
        if parent is not None:
            nodes[parent][1].append(index)
        for child in reversed(node.variations):
            after = board.copy(stack=False)
            after.push(child.move)
            stack.append((child, index, after))
    return nodes


def _pgn_games(path: Path):
    with open(path, encoding="utf-8", errors="replace") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            yield game


# ---------------------------------------------------------------------------------------------
# Tree shape


def test_facts_example_tree_shape(inline_db):
    with closing(connect(inline_db)) as con:
        tree = _game(con, 1)
    expected = {  # id: (parent, children, ply, depth, san) -- FACTS.md section 2
        0: (None, [1], 0, 0, None),
        1: (0, [2, 8, 13], 1, 0, "e4"),
        2: (1, [3], 2, 0, "e5"),
        3: (2, [4, 6], 3, 0, "Nf3"),
        4: (3, [5], 4, 0, "Nc6"),
        5: (4, [], 5, 0, "Bb5"),
        6: (3, [7], 4, 1, "d6"),
        7: (6, [], 5, 1, "d4"),
        8: (1, [9, 11], 2, 1, "c5"),
        9: (8, [10], 3, 1, "Nf3"),
        10: (9, [], 4, 1, "d6"),
        11: (8, [12], 3, 2, "Nc3"),
        12: (11, [], 4, 2, "Nc6"),
        13: (1, [14], 2, 1, "e6"),
        14: (13, [], 3, 1, "d4"),
    }
    assert [p.id for p in tree.positions] == list(range(15))
    got = {p.id: (p.parent, p.children, p.ply, p.depth, p.san) for p in tree.positions}
    assert got == expected
    assert [p.id for p in tree.mainline()] == [0, 1, 2, 3, 4, 5]
    assert [p.mainline for p in tree.positions] == [True] * 6 + [False] * 9
    assert [p.last_descendant for p in tree.positions] == [14, 14, 7, 7, 5, 5, 7, 7, 12, 10, 10, 12, 12, 14, 14]
    assert [p.movenumber for p in tree.positions[:6]] == [1, 1, 2, 2, 3, 3]
    assert tree.gamenumber == 1 and tree.event == "facts" and tree.white == "A" and tree.black == "B"
    assert tree.result == "*" and tree.headers["Event"] == "facts" and not tree.chess960


def test_variation_of_first_move(inline_db):
    with closing(connect(inline_db)) as con:
        tree = _game(con, 2)
    assert [(p.id, p.parent, p.children, p.san) for p in tree.positions] == [
        (0, None, [1, 3], None), (1, 0, [2], "d4"), (2, 1, [], "d5"), (3, 0, [4], "c4"), (4, 3, [], "e5")]


def test_game_without_moves_has_only_the_root(inline_db):
    with closing(connect(inline_db)) as con:
        tree = _game(con, 5)
    assert len(tree.positions) == 1
    root = tree.positions[0]
    assert (root.id, root.parent, root.children, root.last_descendant) == (0, None, [], 0)
    assert root.board().fen() == chess.STARTING_FEN
    assert tree.mainline() == [root]


def test_children_follow_child_index(cql6):
    stored = {(g, i): (parent, k) for g, i, parent, k in cql6.execute(
        "SELECT gamenumber, positionid, parent, child_index FROM positions").fetchall()}
    checked = 0
    for tree in load_games(cql6):
        for node in tree.positions:
            for k, child in enumerate(node.children):
                assert stored[(tree.gamenumber, child)] == (node.id, k)
                checked += 1
    assert checked == len(stored) - 253  # every position but the roots is someone's child


# ---------------------------------------------------------------------------------------------
# Main line only


def test_mainline_only_facts_example(inline_db):
    with closing(connect(inline_db)) as con:
        full = _game(con, 1)
        main = _game(con, 1, variations=False)
    assert [p.id for p in main.positions] == [0, 1, 2, 3, 4, 5]
    assert [p.children for p in main.positions] == [[1], [2], [3], [4], [5], []]
    assert [p.last_descendant for p in main.positions] == [5] * 6
    assert main.mainline() == main.positions
    for m, f in zip(main.positions, full.positions):
        assert _without_tree_links(m) == _without_tree_links(f)
        assert m.board().fen() == f.board().fen()


_TREE_LINKS = ("children", "last_descendant")
_FIELDS = [name for name in Position.__dataclass_fields__ if not name.startswith("_")]


def _without_tree_links(p: Position) -> tuple:
    """Every public field but the two that depend on which positions were loaded."""
    return tuple(getattr(p, name) for name in _FIELDS if name not in _TREE_LINKS)


def test_mainline_only_equals_variations_restricted(cql6):
    counts = dict(cql6.execute("SELECT gamenumber, mainline_positions FROM games").fetchall())
    full = list(load_games(cql6))
    main = list(load_games(cql6, variations=False))
    assert [t.gamenumber for t in main] == [t.gamenumber for t in full] == list(range(1, 254))
    assert sum(len(t.positions) for t in main) == 10089  # FACTS.md section 5
    assert sum(len(t.positions) for t in full) == 24277
    for m, f in zip(main, full):
        last = counts[m.gamenumber] - 1
        assert [p.id for p in m.positions] == list(range(last + 1))
        assert all(p.mainline and p.depth == 0 and p.ply == p.id for p in m.positions)
        assert all(p.children == ([p.id + 1] if p.id < last else []) for p in m.positions)
        assert all(p.last_descendant == last for p in m.positions)
        assert [p.id for p in f.mainline()] == list(range(last + 1))
        assert [_without_tree_links(p) for p in m.positions] == [_without_tree_links(p) for p in f.mainline()]
        assert (m.headers, m.result, m.eco, m.year) == (f.headers, f.result, f.eco, f.year)


# ---------------------------------------------------------------------------------------------
# Boards


def _check_boards(con, pgn: Path) -> int:
    trees = {t.gamenumber: t for t in load_games(con)}
    stored = {(g, i): to_unsigned(z) for g, i, z in con.execute(
        "SELECT gamenumber, positionid, zobrist FROM positions").fetchall()}
    checked = 0
    gamenumber = 0
    for gamenumber, game in enumerate(_pgn_games(pgn), start=1):
        assert not game.errors, (gamenumber, game.errors)
        tree = trees[gamenumber]
        nodes = _replay_tree(game)
        assert len(tree.positions) == len(nodes), gamenumber
        for position, (parent, children, board) in zip(tree.positions, nodes):
            where = (gamenumber, position.id)
            assert (position.parent, position.children) == (parent, children), where
            rebuilt = position.board()
            assert rebuilt.fen() == board.fen(), where
            key = chess.polyglot.zobrist_hash(rebuilt)
            assert key == chess.polyglot.zobrist_hash(board) == stored[where], where
            assert rebuilt.chess960 == board.chess960 == tree.chess960, where
            assert rebuilt.is_valid() == board.is_valid(), where
            checked += 1
    assert gamenumber == len(trees)
    return checked


def test_boards_match_python_chess_cql6(cql6):
    # Studies: FEN set-ups (white and black to move), variations to depth 4, a null move.
    assert _check_boards(cql6, shared_path(CQL6)) == 24277


def test_boards_match_python_chess_lichess(build_db):
    with closing(connect(build_db(LICHESS))) as con:
        assert _check_boards(con, shared_path(LICHESS)) == 25410


def test_boards_set_up_fen_and_chess960(inline_db):
    pgn = list(_pgn_games(_write(inline_db.parent / "again.pgn", FACTS_EXAMPLE)))
    with closing(connect(inline_db)) as con:
        trees = list(load_games(con))
    assert [t.gamenumber for t in trees] == [1, 2, 3, 4, 5]
    for tree, game in zip(trees, pgn, strict=True):
        assert not game.errors
        nodes = _replay_tree(game)
        assert [p.board().fen() for p in tree.positions] == [b.fen() for _, _, b in nodes]
        assert [chess.polyglot.zobrist_hash(p.board()) for p in tree.positions] == \
            [chess.polyglot.zobrist_hash(b) for _, _, b in nodes]
    setup = trees[2]
    # CQL's movenumber starts at 1; the board keeps the FEN's own move count (40...).
    assert [p.movenumber for p in setup.positions] == [1, 2, 2, 3, 3]
    assert [p.board().fullmove_number for p in setup.positions] == [40, 41, 41, 42, 42]
    assert [p.wtm for p in setup.positions] == [False, True, False, True, False]
    c960 = trees[3]
    assert c960.chess960 and all(p.board().chess960 for p in c960.positions)
    assert [p.castle for p in c960.positions] == [None, 1, 2, None, 2, 1, None]
    assert c960.positions[0].castling_rights == chess.BB_A1 | chess.BB_H1 | chess.BB_A8 | chess.BB_H8
    assert c960.positions[0].board().shredder_fen() == "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 7"


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_board_is_built_once_and_unsigned(cql6):
    tree = _game(cql6, 1)
    root = tree.positions[0]
    assert root.board() is root.board()
    assert all(0 <= b < 1 << 64 for p in tree.positions for b in p.bitboards)
    # Some position with a piece on h8 (bit 63): stored negative, loaded as python-chess has it.
    h8 = cql6.execute("SELECT gamenumber, positionid FROM positions WHERE br < 0 ORDER BY ALL LIMIT 1").fetchone()
    node = _game(cql6, h8[0]).positions[h8[1]]
    assert node.bitboards[8] & chess.BB_H8 and node.board().piece_at(chess.H8) == chess.Piece(chess.ROOK, chess.BLACK)


def test_castling_rights_unsigned(build_db):
    with closing(connect(build_db(LICHESS))) as con:
        tree = _game(con, 1)
    assert tree.positions[0].castling_rights == chess.BB_CORNERS  # h8 is bit 63: negative when stored
    assert tree.positions[0].board().fen() == chess.STARTING_FEN


# ---------------------------------------------------------------------------------------------
# Batches and game selection


def test_batches_give_the_same_trees(cql6):
    for variations in (True, False):
        small = list(load_games(cql6, variations=variations, batch_size=7))
        large = list(load_games(cql6, variations=variations, batch_size=2000))
        one = list(load_games(cql6, variations=variations, batch_size=1))
        assert len(large) == 253
        assert small == large == one
        assert [t.gamenumber for t in small] == list(range(1, 254))
    subset = [250, 3, 17, 4, 100, 101, 102, 5]
    assert list(load_games(cql6, subset, batch_size=3)) == list(load_games(cql6, subset))


def test_batch_size_must_be_positive(cql6):
    with pytest.raises(ValueError):
        list(load_games(cql6, batch_size=0))


def test_gamenumbers_subset_in_gamenumber_order(cql6):
    assert [t.gamenumber for t in load_games(cql6, [17, 3, 250, 3])] == [3, 17, 250]
    assert [t.gamenumber for t in load_games(cql6, (g for g in (9, 8, 7)))] == [7, 8, 9]
    assert [t.gamenumber for t in load_games(cql6, range(250, 260), batch_size=2)] == [250, 251, 252, 253]
    by_subset = {t.gamenumber: t for t in load_games(cql6, [17, 3, 250])}
    by_all = {t.gamenumber: t for t in load_games(cql6) if t.gamenumber in (3, 17, 250)}
    assert by_subset == by_all


def test_unknown_gamenumbers_are_absent(cql6):
    assert [t.gamenumber for t in load_games(cql6, [0, -5, 254, 10**12, 5, 99999])] == [5]
    assert list(load_games(cql6, [])) == []
    assert list(load_games(cql6, [0, 254, 2**31 - 1])) == []


def test_game_fields_come_from_games(cql6):
    rows = cql6.execute("SELECT gamenumber, tags, result, white, black, event, site, date, year, white_elo, "
                        "black_elo, eco, chess960 FROM games ORDER BY gamenumber").fetchall()
    trees = list(load_games(cql6, variations=False))
    assert len(rows) == len(trees) == 253
    for row, t in zip(rows, trees):
        assert (t.gamenumber, t.headers, t.result, t.white, t.black, t.event, t.site, t.date, t.year,
                t.white_elo, t.black_elo, t.eco, t.chess960) == row
        assert t.headers and all(isinstance(k, str) and isinstance(v, str) for k, v in t.headers.items())


def test_positions_carry_the_stored_columns(cql6):
    columns = ("positionid", "parent", "ply", "movenumber", "depth", "mainline", "wtm", "castling_rights",
               "ep_square", "halfmove_clock", "move_from", "move_to", "move_piece", "captured", "promotion",
               "castle", "en_passant", "null_move", "san", "is_check", "is_mate", "is_stalemate", "legal_moves",
               "comment", "nags", "last_descendant")
    rows = cql6.execute(f"SELECT {', '.join(columns)} FROM positions WHERE gamenumber IN (1, 250) "
                        "ORDER BY gamenumber, positionid").fetchall()
    positions = [p for t in load_games(cql6, [1, 250]) for p in t.positions]
    names = ["id" if c == "positionid" else c for c in columns]
    got = [tuple(getattr(p, n) for n in names) for p in positions]
    expected = [tuple(to_unsigned(v) if c == "castling_rights" else v for c, v in zip(columns, row)) for row in rows]
    assert got == expected
    assert any(p.null_move for p in positions)  # game 250 has 1.-- in a variation (FACTS.md section 4)
    assert any(p.nags for p in positions) and any(p.comment for p in positions)


def test_broken_numbering_is_reported(tmp_path):
    db = _build_inline(tmp_path, FACTS_EXAMPLE)
    with closing(connect(db, read_only=False)) as con:
        con.execute("DELETE FROM positions WHERE gamenumber = 1 AND positionid = 14")
        con.execute("DELETE FROM positions WHERE gamenumber = 2 AND positionid = 2")
        assert [t.gamenumber for t in load_games(con, [1])] == [1]  # 0..13 is still contiguous
        with pytest.raises(DatabaseError, match="game 2"):
            list(load_games(con, [2]))
        con.execute("DELETE FROM positions WHERE gamenumber = 3")
        with pytest.raises(DatabaseError, match="game 3: no positions"):
            list(load_games(con, [3]))
