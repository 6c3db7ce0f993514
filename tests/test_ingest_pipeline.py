"""Whole builds: reference counts, malformed inputs, killed builds, determinism, board columns."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import chess
import chess.pgn
import chess.polyglot
import duckdb
import pytest
import zstandard

from conftest import BITBOARDS, SHARED, board_of, shared_path
from cqlindex.board.squares import to_signed
from cqlindex.errors import InputError
from cqlindex.ingest.pipeline import build
from cqlindex.ingest.source import open_binary, split_games
from cqlindex.ingest.worker import decode, prepare
from cqlindex.store.database import connect

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "gnuchess-300.pgn"

# FACTS.md section 5: the seven datasets with the reference engine's counts (in datasets.json).
DATASETS = [
    "data/studies/cql6-sample.pgn",
    "data/annotated/world-matches.pgn",
    "data/annotated/dortmund.pgn",
    "data/games/otb-twic944.pgn",
    "data/games/lichess-blitz-3970.pgn",
    "data/games/otb-twic-01-232games.pgn",
    "data/games/lichess-474.pgn",
]
CQL6 = "data/studies/cql6-sample.pgn"
BIG_INPUT = "data/games/lichess-blitz-3970.pgn"


def _edge_files() -> list[str]:
    root = SHARED / "data" / "edge"
    files = sorted(str(p.relative_to(SHARED)) for p in root.rglob("*.pgn")) if root.is_dir() else []
    # Without ../shared the single placeholder goes through shared_path, which fails under CI.
    return files or ["data/edge"]


EDGE_FILES = _edge_files()


def _query(db: Path, sql: str, *params) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def _split_count(path: Path) -> int:
    with open_binary(path) as stream:
        return sum(1 for _ in split_games(stream, str(path)))


def _first_differences(got: list[int], want: list[int], limit: int = 10) -> str:
    diffs = [(i + 1, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w][:limit]
    return ", ".join(f"game {n}: got {g}, reference {w}" for n, g, w in diffs) or "no per-game difference"


# --- (1) the reference engine's counts --------------------------------------------------------

def test_datasets_json_lists_the_seven_datasets() -> None:
    reference = json.loads(shared_path("acceptance/datasets.json").read_text())
    assert sorted(reference) == sorted(DATASETS)


@pytest.mark.parametrize("relative", DATASETS)
def test_dataset_counts_match_the_reference_engine(build_db, relative: str) -> None:
    reference = json.loads(shared_path("acceptance/datasets.json").read_text())[relative]
    db = build_db(relative)
    rows = _query(db, "SELECT gamenumber, positions, mainline_positions FROM games ORDER BY gamenumber")
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1))
    assert len(rows) == reference["games"]
    per_game_all = [r[1] for r in rows]
    per_game_main = [r[2] for r in rows]
    assert per_game_all == reference["per_game_positions_variations"], \
        _first_differences(per_game_all, reference["per_game_positions_variations"])
    assert per_game_main == reference["per_game_positions_main"], \
        _first_differences(per_game_main, reference["per_game_positions_main"])
    assert sum(per_game_all) == reference["positions_variations"]
    assert sum(per_game_main) == reference["positions_main"]
    # the games table agrees with the positions table
    total, main = _query(db, "SELECT count(*), count(*) FILTER (WHERE mainline) FROM positions")[0]
    assert (total, main) == (reference["positions_variations"], reference["positions_main"])
    per_game = _query(db, "SELECT gamenumber, count(*), max(positionid) FROM positions GROUP BY ALL ORDER BY 1")
    assert [r[1] for r in per_game] == per_game_all
    assert all(count == last + 1 for _, count, last in per_game)  # ids are 0..n-1
    # FACTS.md section 3: no dataset game has an illegal move
    assert _query(db, "SELECT count(*) FROM errors")[0][0] == 0


# --- (2) malformed and unusual inputs ---------------------------------------------------------

@pytest.mark.parametrize("relative", EDGE_FILES)
def test_edge_file_builds_alone(build_db, tmp_path: Path, relative: str) -> None:
    path = shared_path(relative)
    expected = _split_count(path)
    if expected == 0:
        with pytest.raises(InputError):
            build([str(path)], tmp_path / "x.duckdb", workers=1)
        assert not (tmp_path / "x.duckdb").exists()
        return
    db = build_db(relative, workers=1)
    games, positions = _query(db, "SELECT count(*), sum(positions) FROM games")[0]
    assert games == expected
    assert _query(db, "SELECT count(*) FROM positions")[0][0] == positions
    # every game has a root, ids are contiguous
    bad = _query(db, "SELECT gamenumber FROM positions GROUP BY ALL "
                     "HAVING min(positionid) <> 0 OR max(positionid) + 1 <> count(*) LIMIT 5")
    assert bad == []


@pytest.mark.parametrize("content", [b"", b"\n\n   \n", b"% only an escape line\n"],
                         ids=["empty", "blank-lines", "escape-line"])
def test_file_without_games_is_an_input_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "nothing.pgn"
    path.write_bytes(content)
    assert _split_count(path) == 0, f"split_games found a game in {content!r}"
    with pytest.raises(InputError):
        build([str(path)], tmp_path / "x.duckdb", workers=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nothing.pgn"]


@pytest.fixture(scope="module")
def edge_all(build_db):
    """One build over every edge file at once."""
    paths = [str(shared_path(r)) for r in EDGE_FILES]
    return build_db(*EDGE_FILES), paths


def test_edge_files_build_together(edge_all) -> None:
    db, paths = edge_all
    expected = {p: _split_count(Path(p)) for p in paths}
    got = dict(_query(db, "SELECT source_file, count(*) FROM games GROUP BY ALL"))
    assert _query(db, "SELECT count(*) FROM games")[0][0] == sum(expected.values())
    # games in = games in the index, file by file
    assert {p: got.get(p, 0) for p in paths} == expected
    # game numbers are 1..n in input order, continuing across files
    rows = _query(db, "SELECT gamenumber, source_file FROM games ORDER BY gamenumber")
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1))
    order = [p for p in paths if expected[p]]
    seen = [r[1] for i, r in enumerate(rows) if i == 0 or rows[i - 1][1] != r[1]]
    assert seen == order


def test_edge_game_offsets_and_lines_are_those_of_the_splitter(edge_all) -> None:
    db, paths = edge_all
    indexed = _query(db, "SELECT source_file, byte_offset, line FROM games ORDER BY gamenumber")
    split = []
    for p in paths:
        with open_binary(Path(p)) as stream:
            split.extend((p, g.offset, g.line) for g in split_games(stream, p))
    assert indexed == split


def test_edge_error_rows_are_complete(edge_all) -> None:
    db, _ = edge_all
    errors = _query(db, "SELECT source_file, gamenumber, line, message FROM errors")
    assert errors, "the edge files contain illegal moves and unsupported variants"
    games = {g: (f, line, n) for g, f, line, n in _query(db, "SELECT gamenumber, source_file, line, errors FROM games")}
    next_line = dict(_query(db, "SELECT gamenumber, lead(line) OVER (PARTITION BY source_file ORDER BY gamenumber) "
                                "FROM games"))
    for file, gamenumber, line, message in errors:
        assert file and message and message.strip(), (file, gamenumber, line, message)
        assert gamenumber in games, (file, gamenumber)
        assert games[gamenumber][0] == file
        assert line > 0
        assert line >= games[gamenumber][1], (file, gamenumber, line, message)
        if next_line[gamenumber] is not None:
            assert line < next_line[gamenumber], (file, gamenumber, line, message)
    counts = dict(_query(db, "SELECT gamenumber, count(*) FROM errors GROUP BY ALL"))
    assert {g: v[2] for g, v in games.items() if v[2]} == counts


def test_illegal_move_line_in_pgn_extract_file(build_db) -> None:
    """test-fuzzydepth.pgn: the error line holds the move that could not be played."""
    relative = "data/edge/pgn-extract_test_infiles/test-fuzzydepth.pgn"
    path = shared_path(relative)
    db = build_db(relative, workers=1)
    errors = _query(db, "SELECT line, message FROM errors")
    assert len(errors) == 1
    line, message = errors[0]
    token = message.split("'")[1]  # "illegal san: 'Nf3' in ..."
    assert token in path.read_text(encoding="latin-1").splitlines()[line - 1]


def test_immortal_games_ambiguous_san_is_reported(build_db) -> None:
    relative = "data/annotated/immortal-games.pgn"
    path = shared_path(relative)
    db = build_db(relative)
    assert _query(db, "SELECT count(*) FROM games")[0][0] == 36
    errors = _query(db, "SELECT gamenumber, line, message FROM errors ORDER BY gamenumber")
    assert len({g for g, _, m in errors if "ambiguous" in m}) == 4, errors
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    for _, line, message in errors:
        token = message.split("'")[1]
        assert token in lines[line - 1], (line, message)
    # the games are kept up to the bad move
    for gamenumber, _, _ in errors:
        assert _query(db, "SELECT positions FROM games WHERE gamenumber = ?", gamenumber)[0][0] >= 1


def test_the_fork_index_error_file_builds(build_db) -> None:
    relative = "data/edge/pychess/learn_the-fork_pythonchess_IndexError.pgn"
    db = build_db(relative, workers=1)
    assert _query(db, "SELECT count(*) FROM games")[0][0] == _split_count(shared_path(relative))
    assert _query(db, "SELECT count(*) FROM games WHERE start_fen IS NULL")[0][0] == 0


def test_latin1_player_names(build_db) -> None:
    db = build_db("data/edge/pychess/learn_mate_in_2_latin1.pgn", workers=1)
    assert ("Judit Polgár",) in _query(db, "SELECT white FROM games")
    names = {}
    for relative in ("data/edge/scid_gtest/res_gameLatin1.pgn", "data/edge/scid_gtest/res_gameLatin1expected.pgn"):
        names[relative] = _query(build_db(relative, workers=1), "SELECT white, black, site FROM games")
    latin1, utf8 = names.values()
    assert latin1 == utf8  # the same text, once Latin-1 and once UTF-8 encoded
    assert latin1[0][:2] == ("Kràmnìk, VlãÚdimir", "Topälov, Vèsélin")
    white, black = _query(build_db("data/edge/scid_gtest/res_gameUTF8.pgn", workers=1), "SELECT white, black FROM games")[0]
    assert white == "Kramnik, Vladimir (Влади́мир Бори́сович Кра́мник)"
    assert black.startswith("Topalov, Veselin (Весели́н")


# --- compressed input --------------------------------------------------------------------------

def test_compressed_inputs_give_the_same_index(tmp_path: Path) -> None:
    raw = SAMPLE.read_bytes()
    outputs = {}
    for kind, data in (("pgn", raw), ("pgn.gz", gzip.compress(raw)), ("pgn.bz2", bz2.compress(raw)),
                       ("pgn.zst", zstandard.ZstdCompressor().compress(raw))):
        source = tmp_path / f"sample.{kind}"
        source.write_bytes(data)
        summary = build([str(source)], tmp_path / f"{kind}.duckdb", workers=1)
        assert summary.games == 300 and summary.warnings == ()
        outputs[kind] = _query(tmp_path / f"{kind}.duckdb",
                               "SELECT count(*), sum(hash(zobrist, san, positionid)) FROM positions")
    assert len(set(map(tuple, outputs.values()))) == 1, outputs


@pytest.mark.parametrize("kind", ["gz", "bz2", "zst"])
def test_truncated_compressed_input_gives_a_warning(tmp_path: Path, kind: str) -> None:
    raw = SAMPLE.read_bytes()
    compress = {"gz": gzip.compress, "bz2": lambda b: bz2.compress(b, compresslevel=1),
                "zst": lambda b: zstandard.ZstdCompressor().compress(b)}[kind]
    data = compress(raw)
    source = tmp_path / f"cut.pgn.{kind}"
    source.write_bytes(data[: len(data) * 9 // 10])
    summary = build([str(source)], tmp_path / "x.duckdb", workers=1)
    assert 0 < summary.games < 300
    assert any("ends early" in w for w in summary.warnings), summary.warnings


def _flip_middle(data: bytes) -> bytes:
    middle = len(data) // 2
    return data[:middle] + bytes(b ^ 0x5A for b in data[middle:middle + 16]) + data[middle + 16:]


@pytest.mark.parametrize("kind", ["gz", "bz2", "zst"])
@pytest.mark.parametrize("damage", [_flip_middle, lambda d: d[:12] + b"\x00garbage\xff" * 200],
                         ids=["flipped-bytes", "garbage-after-header"])
def test_corrupt_compressed_input_is_an_input_error(tmp_path: Path, kind: str, damage) -> None:
    """A damaged archive is the user's problem to fix: an InputError, not a decompressor's exception."""
    raw = SAMPLE.read_bytes()
    data = {"gz": gzip.compress, "bz2": bz2.compress,
            "zst": lambda b: zstandard.ZstdCompressor().compress(b)}[kind](raw)
    source = tmp_path / f"bad.pgn.{kind}"
    source.write_bytes(damage(data))
    with pytest.raises(InputError):
        build([str(source)], tmp_path / "x.duckdb", workers=1)
    assert not (tmp_path / "x.duckdb").exists()
    assert not list(tmp_path.glob(".x.duckdb.building-*"))


# --- (3) killed builds -------------------------------------------------------------------------

def _start_build(source: Path, output: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "cqlindex", "build", str(source), "-o", str(output), "--quiet"],
        cwd=output.parent, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _kill_while_building(proc: subprocess.Popen, output: Path, timeout: float = 60.0) -> None:
    """Wait for the temporary database, give the build a moment to write, then SIGKILL it all."""
    deadline = time.monotonic() + timeout
    try:
        while not list(output.parent.glob(f".{output.name}.building-*")):
            if proc.poll() is not None:
                pytest.fail(f"build ended (code {proc.returncode}) before its temporary file appeared: "
                            f"{proc.stderr.read().decode(errors='replace')}")
            if time.monotonic() > deadline:
                pytest.fail("no temporary database appeared within 60 s")
            time.sleep(0.02)
        time.sleep(0.5)
        if proc.poll() is not None:
            pytest.fail(f"build finished (code {proc.returncode}) before it could be killed")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=30)
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    # let the killed worker processes go away before the next build
    for _ in range(100):
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_killed_build_leaves_no_database_and_the_next_build_cleans_up(tmp_path: Path) -> None:
    source = shared_path(BIG_INPUT)
    output = tmp_path / "x.duckdb"
    _kill_while_building(_start_build(source, output), output)
    assert not output.exists()
    leftovers = list(tmp_path.glob(".x.duckdb.building-*"))
    assert leftovers, "the killed build should have left its temporary file behind"

    done = subprocess.run([sys.executable, "-m", "cqlindex", "build", str(SAMPLE), "-o", str(output),
                           "--workers", "1", "--quiet"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert output.exists()
    assert not list(tmp_path.glob(".x.duckdb.building-*"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.duckdb"]
    con = connect(output)
    try:
        assert con.execute("SELECT count(*) FROM games").fetchone()[0] == 300
    finally:
        con.close()


def test_killed_rebuild_keeps_the_previous_database(tmp_path: Path) -> None:
    source = shared_path(BIG_INPUT)
    output = tmp_path / "x.duckdb"
    build([str(SAMPLE)], output, workers=1)
    before = _sha256(output)
    _kill_while_building(_start_build(source, output), output)
    assert output.exists()
    assert _sha256(output) == before
    con = connect(output)
    try:
        assert con.execute("SELECT count(*) FROM games").fetchone()[0] == 300
        assert con.execute("SELECT count(*) FROM positions").fetchone()[0] == 24369
    finally:
        con.close()


def test_failed_build_keeps_the_previous_database(tmp_path: Path) -> None:
    output = tmp_path / "x.duckdb"
    build([str(SAMPLE)], output, workers=1)
    before = _sha256(output)
    empty = tmp_path / "empty.pgn"
    empty.write_bytes(b"")
    with pytest.raises(InputError):
        build([str(empty)], output, workers=1)
    assert _sha256(output) == before
    assert not list(tmp_path.glob(".x.duckdb.building-*"))


# --- (4) the number of workers does not change the index ---------------------------------------

def test_workers_1_and_2_give_identical_tables(build_db) -> None:
    one = build_db(CQL6, workers=1)
    two = build_db(CQL6, workers=2)
    for sql in ("SELECT * FROM positions ORDER BY gamenumber, positionid",
                "SELECT * FROM games ORDER BY gamenumber",
                "SELECT * FROM errors ORDER BY gamenumber, line, message"):
        a, b = _query(one, sql), _query(two, sql)
        assert len(a) == len(b)
        first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), None)
        assert first is None, (sql, a[first], b[first])
    assert len(_query(one, "SELECT 1 FROM positions")) == 24277


def test_batch_size_does_not_change_the_index(tmp_path: Path) -> None:
    build([str(SAMPLE)], tmp_path / "a.duckdb", workers=1, batch_games=7)
    build([str(SAMPLE)], tmp_path / "b.duckdb", workers=2, batch_games=500)
    sql = "SELECT * FROM positions ORDER BY gamenumber, positionid"
    assert _query(tmp_path / "a.duckdb", sql) == _query(tmp_path / "b.duckdb", sql)


# --- (5) board columns against python-chess -----------------------------------------------------

POSITION_COLUMNS = ", ".join(("gamenumber", "positionid", "wtm", "castling_rights", "ep_square", "halfmove_clock",
                              "zobrist", "legal_moves", "is_check", "is_mate", "is_stalemate", "white_attacks",
                              "black_attacks", *BITBOARDS))


def _rows(db: Path, sql: str, *params) -> list[dict]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        cursor = con.execute(sql, params)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, r)) for r in cursor.fetchall()]
    finally:
        con.close()


@pytest.mark.parametrize("relative, every", [(CQL6, 1), ("data/games/lichess-474.pgn", 13)])
def test_zobrist_and_move_facts_of_rebuilt_boards(build_db, relative: str, every: int) -> None:
    db = build_db(relative)
    rows = _rows(db, f"SELECT {POSITION_COLUMNS} FROM positions "
                     f"WHERE (gamenumber * 7919 + positionid) % {every} = 0")
    assert len(rows) > 1000
    bad = []
    for row in rows:
        board = board_of(row)
        got = (row["zobrist"], row["legal_moves"], row["is_check"], row["is_mate"], row["is_stalemate"],
               row["white_attacks"], row["black_attacks"])
        attacked = [0, 0]
        for square, piece in board.piece_map().items():
            attacked[piece.color] |= board.attacks_mask(square)
        want = (to_signed(chess.polyglot.zobrist_hash(board)), board.legal_moves.count(), board.is_check(),
                board.is_checkmate(), board.is_stalemate(), to_signed(attacked[chess.WHITE]),
                to_signed(attacked[chess.BLACK]))
        if got != want:
            bad.append((row["gamenumber"], row["positionid"], board.fen(), got, want))
    assert not bad, bad[:5]


@pytest.mark.parametrize("relative, gamenumbers", [
    (CQL6, [1, 2, 30, 138, 250, 253]),
    ("data/games/lichess-474.pgn", [1, 2, 3, 100, 474]),
    ("data/annotated/world-matches.pgn", [1, 290, 580]),
])
def test_main_line_boards_equal_python_chess_replay(build_db, relative: str, gamenumbers: list[int]) -> None:
    path = shared_path(relative)
    db = build_db(relative)
    with open_binary(path) as stream:
        raw_games = list(split_games(stream, str(path)))
    for gamenumber in gamenumbers:
        text, _ = prepare(decode(raw_games[gamenumber - 1].data))
        game = chess.pgn.read_game(io.StringIO(text))
        assert game is not None and not game.errors, gamenumber
        rows = _rows(db, f"SELECT {POSITION_COLUMNS}, san, mainline, ply FROM positions "
                         "WHERE gamenumber = ? AND mainline ORDER BY positionid", gamenumber)
        board = game.board()
        moves = list(game.mainline_moves())
        assert len(rows) == len(moves) + 1, gamenumber
        for i, row in enumerate(rows):
            if i:
                assert row["san"] == board.san(moves[i - 1]), (gamenumber, i)
                board.push(moves[i - 1])
            assert row["positionid"] == row["ply"] == i
            assert board_of(row).fen().split()[:5] == board.fen().split()[:5], (gamenumber, i)


def _expected_move_squares(board: chess.Board, move: chess.Move) -> tuple:
    """capture_square, rook_from, rook_to of ``move``, written for the test from the rules of chess."""
    capture = None
    if board.is_en_passant(move):
        capture = move.to_square + (-8 if board.turn else 8)
    elif board.is_capture(move):
        capture = move.to_square
    if not board.is_castling(move):
        return capture, None, None
    rank = chess.square_rank(move.from_square)
    kingside = board.is_kingside_castling(move)
    if board.chess960:  # python-chess writes Chess960 castling as king takes rook
        rook_from = move.to_square
    else:
        rook_from = chess.square(7 if kingside else 0, rank)
    return capture, rook_from, chess.square(5 if kingside else 3, rank)


@pytest.mark.parametrize("relative", ["data/edge/pychess/chess960rwch.pgn", "data/edge/pgn4web/chess960wch06.pgn",
                                      "data/annotated/world-matches.pgn"])
def test_capture_and_rook_squares_of_every_node(build_db, relative: str) -> None:
    """Every node, variations included, against python-chess's own game tree (pre-order)."""
    path = shared_path(relative)
    db = build_db(relative)
    with open_binary(path) as stream:
        raw_games = list(split_games(stream, str(path)))
    stored = {}
    for row in _rows(db, "SELECT gamenumber, positionid, capture_square, rook_from, rook_to FROM positions"):
        stored[row["gamenumber"], row["positionid"]] = (row["capture_square"], row["rook_from"], row["rook_to"])
    castles = chess960_castles = captures = 0
    for gamenumber, raw in enumerate(raw_games, start=1):
        game = chess.pgn.read_game(io.StringIO(prepare(decode(raw.data))[0]))
        if game is None or game.errors:
            continue
        expected = [(None, None, None)]

        def walk(node: chess.pgn.GameNode, board: chess.Board) -> None:  # pre-order, one board
            for child in node.variations:
                expected.append(_expected_move_squares(board, child.move))
                board.push(child.move)
                walk(child, board)
                board.pop()

        board = game.board()
        walk(game, board)
        for positionid, want in enumerate(expected):
            assert stored[gamenumber, positionid] == want, (gamenumber, positionid)
            castles += want[1] is not None
            chess960_castles += want[1] is not None and board.chess960
            captures += want[0] is not None
    assert captures > 100 and castles > 5
    if "960" in relative:
        assert chess960_castles > 5
