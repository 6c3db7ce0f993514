"""Matching games as PGN: the marked nodes are the reference engine's matches, the rest is the input.

The written PGN is read back with python-chess and compared, node by node in pre-order (child 0
first, numbered here independently of the module), with the original game as the splitter
cuts it from the source file: same tags, moves, variations, NAGs and comments, plus the match
string exactly at the positions ``acceptance/visible.jsonl`` lists and ``Game number N`` before
the first move.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import re
import shutil
from pathlib import Path

import chess.pgn
import pytest
import zstandard

from cqlindex.exec.run import run
from cqlindex.ingest.pipeline import build
from cqlindex.ingest.source import open_binary, split_games
from cqlindex.ingest.worker import decode, prepare
from cqlindex.output.pgn import write_pgn
from cqlindex.store.database import connect
from tests.conftest import INLINE_HEADERS, shared_path

LICHESS = "data/games/lichess-474.pgn"
STUDIES = "data/studies/cql6-sample.pgn"

# (id in visible.jsonl, dataset, variations, match string)
CASES = [
    ("Q03", LICHESS, False, "CQL"),           # check: many games, one comment per checking move
    ("Q01", LICHESS, False, "MATE!"),         # mate: a match string of one's own
    ("Q01", STUDIES, False, "CQL"),           # main line only, but the games keep their variations
    ("Q29", STUDIES, True, "CQL"),            # initial: the match goes into the comment before move 1
    ("Q27", STUDIES, True, "CQL"),            # line --> check --> check --> check, in variations too
]


def reference(case_id: str, dataset: str, variations: bool) -> dict:
    for line in shared_path("acceptance/visible.jsonl").read_text().splitlines():
        case = json.loads(line)
        if (case["id"], case["dataset"], case["variations"]) == (case_id, dataset, variations):
            return case
    raise LookupError(case_id)


def original_games(path: Path) -> dict[int, chess.pgn.Game]:
    """Every game of the file, numbered as the index numbers them, read with python-chess."""
    with open_binary(path) as stream:
        games = {}
        for number, raw in enumerate(split_games(stream, str(path)), start=1):
            text, _ = prepare(decode(raw.data))
            games[number] = chess.pgn.read_game(io.StringIO(text))
    return games


def preorder(node: chess.pgn.GameNode) -> list[chess.pgn.GameNode]:
    out = [node]
    for child in node.variations:
        out.extend(preorder(child))
    return out


def read_all(text: str) -> list[chess.pgn.Game]:
    handle = io.StringIO(text)
    games = []
    while (game := chess.pgn.read_game(handle)) is not None:
        games.append(game)
    return games


def join(*parts: str | None) -> str:
    """Comments joined as the module joins them, whitespace collapsed (an exporter-reader round trip trims it)."""
    return " ".join(" ".join(p for p in parts if p).split())


def check_output(text: str, expected: dict[int, list[int]], originals: dict[int, chess.pgn.Game],
                 positions: dict[int, int], matchstring: str, silent: bool = False,
                 headers: dict[int, str] | None = None) -> None:
    """The written games are the expected ones, in order, marked exactly where expected, and otherwise the input."""
    written = read_all(text)
    assert len(written) == len(expected)
    for game, (number, ids) in zip(written, expected.items()):
        original = originals[number]
        assert {k: v for k, v in game.headers.items() if v != "?"} == \
            {k: v for k, v in original.headers.items() if v != "?"}, number
        ours, theirs = preorder(game), preorder(original)
        assert len(ours) == len(theirs) == positions[number], number
        marked = []
        for i, (node, source) in enumerate(zip(ours, theirs)):
            assert node.move == source.move and node.nags == source.nags, (number, i)
            if i:
                assert node.starting_comment == source.starting_comment, (number, i)
            header = None if silent or i else (headers or {}).get(number, f"Game number {number}")
            base = join(source.comment, header)
            comment = join(node.comment)
            if comment != base:
                assert not silent and comment == join(base, matchstring), (number, i, node.comment)
                marked.append(i)
        assert marked == ([] if silent else sorted(ids)), number


@pytest.mark.parametrize("case_id, dataset, variations, matchstring", CASES)
def test_marked_positions_are_the_reference_matches(build_db, case_id, dataset, variations, matchstring) -> None:
    case = reference(case_id, dataset, variations)
    db = build_db(dataset)
    result = run(db, case["query"], variations=variations)
    expected = {int(g): ids for g, ids in case["positions"].items()}
    assert list(result.matches) == case["games"] and result.matches == expected
    con = connect(db)
    positions = dict(con.execute("SELECT gamenumber, positions FROM games").fetchall())
    out = io.StringIO()
    summary = write_pgn(con, result, out, matchstring=matchstring, variations=variations)
    assert summary.games == len(expected) and summary.rebuilt == []
    check_output(out.getvalue(), expected, original_games(shared_path(dataset)), positions, matchstring)


def test_silent_writes_the_games_as_they_were(build_db) -> None:
    db = build_db(STUDIES)
    result = run(db, "initial", variations=True)
    con = connect(db)
    out = io.StringIO()
    write_pgn(con, result, out, variations=True, silent=True)
    assert "Game number" not in out.getvalue() and "CQL" not in out.getvalue()
    positions = dict(con.execute("SELECT gamenumber, positions FROM games").fetchall())
    check_output(out.getvalue(), result.matches, original_games(shared_path(STUDIES)), positions, "CQL", silent=True)


# (query, the sort keys' labels): each game's header comment carries its values, games come best first.
SORT_CASES = [
    ("sort ply mate", ["ply"]),
    ('sort min "pieces" [Aa] mate', ["pieces"]),
    ('cql(sort matchcount) check sort "checks" ply', ["matchcount", "checks"]),
]


@pytest.mark.parametrize("text, labels", SORT_CASES)
def test_sorted_output_is_ordered_and_says_its_values(build_db, text, labels) -> None:
    db = build_db(STUDIES)
    result = run(db, text)
    assert result.matches == run(db, text, engine="python").matches
    con = connect(db)
    out = io.StringIO()
    write_pgn(con, result, out, variations=False)
    written = read_all(out.getvalue())
    numbers = [int(re.search(r"Game number (\d+)", g.comment).group(1)) for g in written]
    assert numbers == list(result.matches)
    # the order: by each key (descending, ascending for min), then by gamenumber
    minimum = [" min " in text and label == "pieces" for label in labels]
    ranks = [tuple(-v if not m else v for v, m in zip(result.sort_values[n], minimum)) + (n,) for n in numbers]
    assert ranks == sorted(ranks) and len(set(numbers)) > 1
    headers = {n: "; ".join([f"Game number {n}", *(f"{label}: {v}" for label, v in zip(labels, result.sort_values[n]))])
               for n in numbers}
    positions = dict(con.execute("SELECT gamenumber, positions FROM games").fetchall())
    check_output(out.getvalue(), result.matches, original_games(shared_path(STUDIES)), positions, "CQL",
                 headers=headers)


def test_sort_values_are_the_best_over_the_game(build_db) -> None:
    """Independently of the evaluator: 'sort ply' keeps each game's largest main-line ply."""
    db = build_db(STUDIES)
    result = run(db, "sort ply")
    con = connect(db)
    longest = dict(con.execute("SELECT gamenumber, max(ply) FROM positions WHERE mainline GROUP BY 1").fetchall())
    assert {n: v[0] for n, v in result.sort_values.items()} == longest
    assert list(result.matches) == sorted(longest, key=lambda n: (-longest[n], n))


@pytest.mark.parametrize("source_gone", [False, True])
def test_a_game_cut_at_an_illegal_move_says_so(tmp_path: Path, source_gone: bool) -> None:
    pgn = tmp_path / "bad.pgn"
    pgn.write_text(f'{INLINE_HEADERS}\n1. e4 e5 2. Ke3 Nc6 *\n\n{INLINE_HEADERS}\n1. d4 d5 *\n')
    db = tmp_path / "bad.duckdb"
    build([str(pgn)], db, workers=1)
    result = run(db, "true")
    con = connect(db)
    if source_gone:  # the game is rebuilt from the index, the error from the errors table
        pgn.unlink()
    out = io.StringIO()
    written = write_pgn(con, result, out, variations=False)
    # game 1, cut short, goes through python-chess; game 2 (Result "*") is the columns' writer's
    # either way: with its text, which gives the Result python-chess reads from the result token,
    # or without, where the index's rows are the reference (the game then counts as rebuilt)
    assert written.rebuilt == ([1, 2] if source_gone else []) and written.reference == 1
    games = read_all(out.getvalue())
    assert [g.end().comment for g in games] == ["Error reading move: Ke3 CQL", "CQL"]
    assert [len(list(g.mainline_moves())) for g in games] == [2, 2]


def test_no_matches_writes_nothing(build_db) -> None:
    db = build_db(LICHESS)
    result = run(db, "Ka1 and Kh8 and Ka8")
    out = io.StringIO()
    assert write_pgn(connect(db), result, out, variations=False).games == 0
    assert out.getvalue() == ""


def test_a_variation_position_without_variations_is_refused(build_db) -> None:
    db = build_db(STUDIES)
    result = run(db, "initial", variations=True)
    con = connect(db)
    mainline = con.execute("SELECT mainline_positions FROM games WHERE gamenumber = 1").fetchone()[0]
    result.matches = {1: [mainline]}  # the first id past the main line: a variation position
    write_pgn(con, result, io.StringIO(), variations=True)
    with pytest.raises(ValueError, match="main line"):
        write_pgn(con, result, io.StringIO(), variations=False)


def test_source_gone_rebuilds_the_same_games_from_the_index(tmp_path: Path) -> None:
    source = tmp_path / "studies.pgn"
    shutil.copy(shared_path(STUDIES), source)
    db = tmp_path / "studies.duckdb"
    build([str(source)], db, workers=2)
    result = run(db, "check", variations=True)
    con = connect(db)
    before = io.StringIO()
    assert write_pgn(con, result, before, variations=True, reference=True).rebuilt == []
    source.unlink()
    after, fast = io.StringIO(), io.StringIO()
    summary = write_pgn(con, result, after, variations=True, reference=True)
    assert summary.rebuilt == list(result.matches)
    assert after.getvalue() == before.getvalue()
    assert write_pgn(con, result, fast, variations=True).reference == 0  # from the columns, source or not
    assert fast.getvalue() == before.getvalue()


def test_a_changed_source_is_not_trusted(tmp_path: Path) -> None:
    source = tmp_path / "two.pgn"
    first = INLINE_HEADERS + '\n{start} 1. e4 {best} e5 $1 (1... c5 2. Nf3) 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# *\n\n'
    second = INLINE_HEADERS + "\n1. d4 d5 2. c4 *\n"
    source.write_text(first + second)
    db = tmp_path / "two.duckdb"
    build([str(source)], db, workers=1)
    source.write_text(first.replace("Qh5", "Qf3") + second.replace("c4", "e4"))  # same lengths, other games
    con = connect(db)
    result = run(db, "check or initial", variations=True)
    assert result.matches == {1: [0, 7], 2: [0]}
    out, fast = io.StringIO(), io.StringIO()
    summary = write_pgn(con, result, out, variations=True, reference=True)
    assert summary.rebuilt == [1, 2]
    write_pgn(con, result, fast, variations=True)
    assert fast.getvalue() == out.getvalue()
    assert out.getvalue().split() == (  # the same words: the exporter wraps lines at 80 columns
        INLINE_HEADERS + "{ start Game number 1 CQL } 1. e4 { best } 1... e5 $1 ( 1... c5 2. Nf3 ) 2. Qh5 Nc6 "
        "3. Bc4 Nf6 4. Qxf7# { CQL } * " + INLINE_HEADERS + "{ Game number 2 CQL } 1. d4 d5 2. c4 *").split()


@pytest.mark.parametrize("suffix, compress", [
    (".gz", gzip.compress), (".bz2", bz2.compress), (".zst", zstandard.ZstdCompressor().compress)])
def test_compressed_sources_are_read_at_their_offsets(build_db, tmp_path: Path, suffix, compress) -> None:
    plain = build_db(LICHESS)
    source = tmp_path / f"lichess.pgn{suffix}"
    source.write_bytes(compress(shared_path(LICHESS).read_bytes()))
    db = tmp_path / "lichess.duckdb"
    build([str(source)], db, workers=2)
    expected = io.StringIO()
    write_pgn(connect(plain), run(plain, "check"), expected, variations=False)
    out = io.StringIO()
    summary = write_pgn(connect(db), run(db, "check"), out, variations=False)
    assert summary.rebuilt == [] and summary.games == 391
    assert out.getvalue() == expected.getvalue()


def test_a_game_rebuilt_from_the_index_escapes_its_tags(tmp_path: Path) -> None:
    pgn = tmp_path / "escapes.pgn"
    pgn.write_text('[Event "a\\"b"]\n[Site "C:\\\\games"]\n\n1. e4 *\n')
    db = tmp_path / "escapes.duckdb"
    build([str(pgn)], db, workers=1)
    result = run(db, "true")
    con = connect(db)
    pgn.unlink()
    out = io.StringIO()
    assert write_pgn(con, result, out, variations=False).rebuilt == [1]
    assert '[Event "a\\"b"]\n[Site "C:\\\\games"]\n' in out.getvalue()


def test_where_each_game_is_agrees_with_the_window_over_its_file(tmp_path: Path) -> None:
    """_meta's join on the next game number against its definition: the next game of the same file,
    on two files built together and the first added again (its games then follow the second's)."""
    from cqlindex.ingest.append import add
    from cqlindex.output.pgn import _meta

    first, second = tmp_path / "a.pgn", tmp_path / "b.pgn"
    first.write_text("".join(f'[Event "a{k}"]\n\n1. e4 e5 *\n\n' for k in range(5)))
    second.write_text("".join(f'[Event "b{k}"]\n\n1. d4 d5 *\n\n' for k in range(3)))
    db = tmp_path / "two.duckdb"
    build([str(first), str(second)], db, workers=1)
    add(db, [str(first)], workers=1)
    con = connect(db)
    numbers = [row[0] for row in con.execute("SELECT gamenumber FROM games ORDER BY gamenumber").fetchall()]
    assert len(numbers) == 13
    expected = {row[0]: row[1:] for row in con.execute(
        "SELECT gamenumber, source_file, byte_offset, lead(byte_offset) OVER (PARTITION BY source_file "
        "ORDER BY gamenumber), positions, mainline_positions FROM games").fetchall()}
    for chosen in (numbers, numbers[4:9], [5, 13], [1]):
        assert _meta(con, chosen) == {number: expected[number] for number in chosen}
    assert expected[5][2] == expected[9][1]  # a's last game is followed by a's first added again


@pytest.mark.parametrize("ids, count, expected", [
    ([0, 1, 2], 3, range(3)),          # every position in order: a range
    ([], 0, range(0)),
    ([0, 2], 3, {0, 2}),               # some: a set
    ([0, 1, 1], 3, {0, 1}),            # as many ids as positions, one twice: not every position
    ([2, 1, 0], 3, {0, 1, 2}),         # every one, out of order: a set, the same members
    ([0, 1, 2], 4, {0, 1, 2}),
])
def test_matched_positions_are_a_range_only_when_every_one_is_there(ids, count, expected) -> None:
    from cqlindex.output.pgn import _positions

    got = _positions(ids, count)
    assert type(got) is type(expected) and set(got) == set(expected) and len(got) == len(expected)
