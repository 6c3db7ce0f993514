"""The PGN written from the index's columns is python-chess's export of the same games, byte for byte.

:func:`cqlindex.output.pgn.write_pgn` writes most games with :mod:`cqlindex.output.movetext`
and the rest through python-chess (``reference=True`` sends every game there). On shared files
with variations, comments, NAGs, FEN starts, Chess960, null moves and broken games, with and
without variations and with matches marked, both must write the same text; the games the fast
writer leaves to python-chess are counted, so a writer that stopped taking games would fail.
"""

from __future__ import annotations

import io

import pytest

from cqlindex.exec.run import run
from cqlindex.output.pgn import write_pgn
from cqlindex.store.database import connect

EDGE = "data/edge/pgn-extract_test_infiles/"
STUDIES = "data/annotated/lichess-studies/"
# (files of one index, query, variations, the most games the fast writer may leave to python-chess)
CASES = [
    (("data/studies/cql6-sample.pgn",), "check", True, 0),
    (("data/studies/cql6-sample.pgn",), "initial", False, 0),
    pytest.param(("data/annotated/chess-informant-sample.pgn", "data/annotated/world-matches.pgn"),
                 "check", True, 0, marks=pytest.mark.slow),  # 14 s: CI's slow stage
    (("data/annotated/dortmund.pgn", "data/annotated/immortal-games.pgn"), "mate or stalemate", True, 0),
    (("data/games/lichess-474.pgn",), "check", False, 0),
    (("data/games/lichess-474.pgn",), "check", True, 0),
    ((EDGE + "test-allownullmoves.pgn", EDGE + "test-setup-in.pgn", EDGE + "test-promotion-in.pgn",
      EDGE + "nested-comment.pgn", EDGE + "test-long-line.pgn", EDGE + "test-nagcomments.pgn"),
     "true", True, 11),  # 12 of 15 have no Result tag, or "*"; one of them is read from its text
    (("data/edge/pychess/fenSetup.pgn", "data/edge/pgn4web/chess960wch06.pgn", "data/edge/pgn4web/tactics.pgn",
      "data/edge/pgn4web/test.pgn"), "true", True, 7),  # 11 of 950 have Result "*", 4 read from their text
    # Result "*" in all 42 games, FEN set-ups, one line each: the Result from each text's result token
    ((STUDIES + "lichess_study_lichess-practice-checkmate-patterns-ii_by_arex_2017.01.25.pgn",
      STUDIES + "lichess_study_lichess-practice-checkmate-patterns-iii_by_arex_2017.01.27.pgn"), "true", True, 0),
]


@pytest.mark.parametrize("files, query, variations, most_left", CASES)
def test_fast_writer_is_python_chess_byte_for_byte(build_db, files, query, variations, most_left) -> None:
    db = build_db(*files)
    result = run(db, query, variations=variations)
    con = connect(db)
    fast, slow = io.StringIO(), io.StringIO()
    summary = write_pgn(con, result, fast, variations=variations, matchstring="MATCH")
    reference = write_pgn(con, result, slow, variations=variations, matchstring="MATCH", reference=True)
    assert summary.games == reference.games == len(result.matches) > 0
    assert reference.reference == reference.games
    assert fast.getvalue() == slow.getvalue()
    print(f"{files[0]}: {summary.reference} of {summary.games} games left to python-chess")
    assert summary.reference <= most_left


@pytest.mark.parametrize("silent, with_header", [(True, True), (False, False)])
def test_silent_and_without_header_are_the_same_too(build_db, silent, with_header) -> None:
    db = build_db("data/studies/cql6-sample.pgn")
    result = run(db, 'check sort "ply" ply', variations=True)
    con = connect(db)
    fast, slow = io.StringIO(), io.StringIO()
    summary = write_pgn(con, result, fast, variations=True, silent=silent, with_header=with_header)
    write_pgn(con, result, slow, variations=True, silent=silent, with_header=with_header, reference=True)
    assert fast.getvalue() == slow.getvalue() and summary.reference == 0


def test_writing_a_game_leaves_no_garbage_cycle(build_db) -> None:
    """The writer runs once per game: a reference cycle there (a recursive closure, say) would
    leave each game's lists to the garbage collector, a fifth of the output time (issue 16)."""
    import gc

    from cqlindex.output.movetext import exact, fetch, write_game

    db = build_db("data/studies/cql6-sample.pgn")  # variations, nested ones, comments
    con = connect(db)
    numbers = [n for (n,) in con.execute("SELECT gamenumber FROM games WHERE positions > mainline_positions "
                                         "ORDER BY gamenumber LIMIT 20").fetchall()]
    rows = [r for r in fetch(con, numbers).values() if exact(r)]
    assert rows and any(r.depth > 1 for r in rows)
    automatic = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        texts = [write_game(r, "Game number 1", {1, 2}, {3: ["note"]}, "CQL") for r in rows]
        assert all("(" in t for t in texts)  # the variations were written
        assert gc.collect() == 0
    finally:
        if automatic:
            gc.enable()


def test_with_the_source_gone_the_fast_writer_takes_what_the_rebuild_would_write(tmp_path) -> None:
    """A game whose file is gone is rebuilt from the index by python-chess's path, so the Result
    tag and the tag values are the index's own: the columns' writer takes the games it otherwise
    leaves (Result "*", a tag value with a backslash or a quote) and writes the same bytes."""

    from cqlindex.ingest.pipeline import build
    from tests.conftest import INLINE_HEADERS, shared_path

    source = tmp_path / "games.pgn"
    studies = shared_path("data/annotated/lichess-studies/"
                          "lichess_study_beautiful-chess-studies-1_by_thijscom_2018.03.05.pgn").read_text()
    quoted = INLINE_HEADERS.replace('"?"', r'"a\\b \"c\""')  # Site: a\b "c"
    source.write_text(studies + "\n\n" + quoted + "\n1. e4 {x} e5 (1... c5 $1) 2. Nf3 1-0\n\n"
                      + INLINE_HEADERS.replace('"*"', '"1-0"').replace('"?"', r'"d\\e"') + "\n1. d4 d5 1-0\n")
    db = tmp_path / "games.duckdb"
    build([str(source)], db, workers=1)
    result = run(db, "check or initial", variations=True)
    con = connect(db)
    with_source = write_pgn(con, result, io.StringIO(), variations=True)
    source.unlink()
    fast, slow = io.StringIO(), io.StringIO()
    summary = write_pgn(con, result, fast, variations=True, matchstring="MATCH")
    reference = write_pgn(con, result, slow, variations=True, matchstring="MATCH", reference=True)
    assert fast.getvalue() == slow.getvalue()
    assert reference.rebuilt == list(result.matches)
    # the columns' writer looks for the file of the games it would otherwise leave, and says so
    assert set(summary.rebuilt) <= set(reference.rebuilt) and len(summary.rebuilt) >= 60
    assert '[Site "a\\\\b \\"c\\""]' in fast.getvalue() and '[Site "d\\\\e"]' in fast.getvalue()
    print(f"with the source: {with_source.reference} left to python-chess; without: {summary.reference}")
    assert with_source.reference >= 60 and summary.reference <= with_source.reference - 60


def _tokens(seed: int) -> list[str]:
    """Movetext-like tokens: numbers, moves, comments short and long (spaces, a newline, and for
    one seed in four a NUL, which sends :func:`_wrap` to its loop)."""
    import random

    pick = random.Random(seed)
    words = ["12.", "7...", "Nbxd7+", "O-O-O", "$14", "(", ")", "e8=Q#", "--", "1-0"]
    out = []
    for _ in range(pick.randrange(1, 120)):
        if pick.random() < 0.2:
            kinds = ["x", "long" * pick.randrange(1, 25), "a\nb", "tab\there"] + (["nul\x00"] if seed % 4 == 0 else [])
            text = " ".join(pick.choice(kinds)
                            for _ in range(pick.randrange(1, 6)))
            out.append("{ " + text + " }")
        else:
            out.append(pick.choice(words))
    return out


@pytest.mark.parametrize("seed", range(40))
def test_wrapping_is_python_chess_write_token(seed: int) -> None:
    """:func:`_wrap`'s regular expression (and its loop, for a token with a NUL) lays tokens out
    as python-chess's exporter does, each written with a space after it."""
    import chess.pgn

    from cqlindex.output.movetext import _wrap

    tokens = _tokens(seed)
    exporter = chess.pgn.StringExporter(columns=80)
    for token in tokens:
        exporter.write_token(token + " ")
    lines: list[str] = []
    _wrap(tokens, lines)
    assert "\n".join(lines) == exporter.result()


def test_a_result_the_tags_lack_comes_from_the_text(tmp_path) -> None:
    """Result "*" or no Result tag: python-chess takes the movetext's result token, and so does
    the columns' writer, reading the tags from the text; a game with a variation stays with
    python-chess (its unplayed reading cannot tell a variation's tokens)."""
    from cqlindex.ingest.pipeline import build

    source = tmp_path / "results.pgn"
    source.write_text('[Event "a"]\n[Result "*"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n'
                      '[Event "b"]\n\n1. d4 d5 0-1\n\n'
                      '[Event "c"]\n[Result "*"]\n\n1. e4 (1. d4 d5) 1... e5 1/2-1/2\n')
    db = tmp_path / "results.duckdb"
    build([str(source)], db, workers=1)
    result = run(db, "true", variations=True)
    con = connect(db)
    fast, slow = io.StringIO(), io.StringIO()
    summary = write_pgn(con, result, fast, variations=True)
    write_pgn(con, result, slow, variations=True, reference=True)
    assert fast.getvalue() == slow.getvalue()
    assert summary.reference == 1 and summary.rebuilt == []
    assert [line for line in fast.getvalue().splitlines() if line.startswith("[Result")] == [
        '[Result "1-0"]', '[Result "0-1"]', '[Result "1/2-1/2"]']


def test_games_whose_rows_disagree_with_the_games_table_go_to_python_chess(tmp_path) -> None:
    """An index edited by hand (a position row deleted): the columns' writer stops at the game
    whose rows are not where the games table says, and python-chess's path writes it and the rest."""
    import duckdb

    from cqlindex.ingest.pipeline import build

    source = tmp_path / "three.pgn"
    source.write_text("".join(f'[Event "{name}"]\n[Result "1-0"]\n\n{moves} 1-0\n\n' for name, moves in (
        ("a", "1. e4 e5 2. Nf3 Nc6"), ("b", "1. d4 d5 2. c4 e6"), ("c", "1. c4 c5 2. Nc3 Nc6"))))
    db = tmp_path / "three.duckdb"
    build([str(source)], db, workers=1)
    with duckdb.connect(str(db)) as edit:
        edit.execute("DELETE FROM positions WHERE gamenumber = 2 AND positionid = 4")
    result = run(db, "true")
    con = connect(db)
    fast, slow = io.StringIO(), io.StringIO()
    summary = write_pgn(con, result, fast, variations=False)
    write_pgn(con, result, slow, variations=False, reference=True)
    assert summary.reference == 2 and summary.games == 3
    assert fast.getvalue() == slow.getvalue()


@pytest.mark.parametrize("sliced", [False, True])
def test_tag_pairs_are_cut_per_game_even_from_a_sliced_column(sliced) -> None:
    """A game's tag names and values are paired game by game, also when a column is a slice
    whose offsets do not start at 0 (its child holds rows before the slice)."""
    import pyarrow as pa

    from cqlindex.output.movetext import _pairs

    names = pa.array([["Event", "Site"], [], ["White"]])
    values = pa.array([["skip"], ["E", "S"], [], ["W"]]).slice(1) if sliced else pa.array([["E", "S"], [], ["W"]])
    table = pa.table({"gamenumber": [1, 2, 3], "names": names, "values": values})
    assert _pairs(table) == [[("Event", "E"), ("Site", "S")], [], [("White", "W")]]
