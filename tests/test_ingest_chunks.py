"""Pieces of text for the workers: cut anywhere, they give the games of the whole file, numbered alike."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import duckdb
import pytest

from conftest import shared_path
from cqlindex.ingest.chunks import chunk_games, chunks, find_cut
from cqlindex.ingest.pipeline import build
from cqlindex.ingest.source import open_binary, split_games
from test_ingest_source import CASES

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "gnuchess-300.pgn"

# Where the cheap rule could go wrong: each must split as one pass over the file does.
TRICKY = {
    # a header-only game with no Event tag, a blank line, then [Event: one header, not two games
    "header-gap-event": b'[Site "s"]\n[Round "1"]\n\n[Event "e"]\n\n1. e4 *\n\n[Event "f"]\n\n1. d4 *\n',
    # an unclosed comment ends at a tag line after a blank line, with a note naming that line
    "unclosed-comment": b'[Event "a"]\n\n1. e4 {never closed\n\n[Event "b"]\n\n1. d4 *\n\n[Event "c"]\n\n1. c4 *\n',
    # a comment line that looks like a tag, right after a blank line inside the comment
    "comment-tag-look": b'[Event "a"]\n\n1. e4 {x\n\n[not a tag\n} e5 *\n\n[Event "b"]\n\n1. d4 *\n',
    # escape lines between the movetext and the next header
    "escapes": b'[Event "a"]\n\n1. e4 *\n%escape\n\n; semi\n\n[Event "b"]\n\n1. d4 *\n',
    # the same tag twice: two header-only games
    "repeated-tag": b'[Event "a"]\n[Event "b"]\n\n1. e4 *\n\n[Event "c"]\n\n1. d4 *\n',
    # the same name after blanks inside the brackets, and a bracket alone
    "repeated-tag-spaced": b'[Event "a"]\n[ \tEvent "b"]\n[\n\n1. e4 *\n\n[Event "c"]\n[\n[Site "s"]\n\n1. d4 *\n',
    # tagless games after a result and a blank line, then a header
    "tagless": b"1. e4 e5 1-0\n\n1. d4 d5 *\n\n[Event \"x\"]\n\n1. c4 *\n",
    # CRLF, whitespace-only blank lines, no final newline
    "crlf": b'[Event "a"]\r\n\r\n1. e4 *\r\n \t\r\n[Event "b"]\r\n\r\n1. d4 *',
    # a BOM before the first tag
    "bom": b'\xef\xbb\xbf[Event "a"]\n\n1. e4 *\n\n[Event "b"]\n\n1. d4 *\n',
}
SIZES = (1, 7, 64, 1 << 20)


def _pieces(data: bytes, size: int) -> list:
    return [game for chunk in chunks(io.BufferedReader(io.BytesIO(data)), "t.pgn", 0, size)
            for game in chunk_games(chunk)]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("data", [c[1] for c in CASES] + list(TRICKY.values()),
                         ids=[c[0] for c in CASES] + list(TRICKY))
def test_pieces_give_the_games_of_one_pass(data: bytes, size: int) -> None:
    assert _pieces(data, size) == list(split_games(io.BytesIO(data), "t.pgn"))


def test_no_cut_inside_a_header_or_before_a_comment_line() -> None:
    assert find_cut(TRICKY["header-gap-event"], 0) == TRICKY["header-gap-event"].index(b'[Event "f"]')
    data = TRICKY["comment-tag-look"]
    assert find_cut(data, 0) == data.index(b'[Event "b"]')


def test_the_note_of_an_unclosed_comment_survives_a_cut() -> None:
    data = TRICKY["unclosed-comment"]
    size = data.index(b'[Event "b"]')  # the first piece ends right there
    games = _pieces(data, size)
    assert [len(g.notes) for g in games] == [1, 0, 0]
    assert "the next game starts on line 5" in games[0].notes[0][1]


#: The engine games' 528,811 positions are cut with -m slow (CI's slow stage): the seams are
#: the same kind in the other files, a seventh of the time.
REAL = ["data/studies/cql6-sample.pgn",
        pytest.param("data/engine/tcec-subset-3802.pgn.zst", marks=pytest.mark.slow),
        "data/annotated/world-matches.pgn", "data/edge/pgn4web", "data/edge/pgn-extract_test_infiles",
        "data/edge/python-chess", "data/edge/pychess", "data/edge/scalachess", "data/edge/tcec_line_endings"]


@pytest.mark.parametrize("relative", REAL)
def test_real_files_cut_anywhere(relative: str) -> None:
    root = shared_path(relative)
    paths = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
    for path in paths:
        with open_binary(path) as stream:
            whole = list(split_games(stream, str(path)))
        for size in (1, 500, 20_000):
            with open_binary(path) as stream:
                pieces = [g for c in chunks(stream, str(path), 0, size) for g in chunk_games(c)]
            assert pieces == whole, (path, size)


def test_a_cut_short_file_loses_the_game_in_progress(tmp_path: Path) -> None:
    data = gzip.compress(SAMPLE.read_bytes())
    source = tmp_path / "cut.pgn.gz"
    source.write_bytes(data[:len(data) * 2 // 3])
    whole = []
    with open_binary(source) as stream, pytest.raises(EOFError):
        for game in split_games(stream, str(source)):
            whole.append(game)
    for size in (1, 3000, 1 << 20):
        with open_binary(source) as stream:
            pieces = list(chunks(stream, str(source), 0, size))
        assert pieces[-1].end == "truncated"
        assert [g for c in pieces for g in chunk_games(c)] == whole
    assert 0 < len(whole) < 300


@pytest.mark.slow
def test_the_piece_size_does_not_change_the_index(tmp_path: Path) -> None:
    """Pieces as small as they can be, over files with errors of every kind: the same tables.
    A build per game (a minute): -m slow; the files cut anywhere above check the seams by default."""
    unclosed = tmp_path / "unclosed.pgn"
    unclosed.write_bytes(TRICKY["unclosed-comment"] + TRICKY["header-gap-event"])
    inputs = [str(shared_path("data/studies/cql6-sample.pgn")), str(unclosed),
              str(shared_path("data/edge/pgn-extract_test_infiles")) + "/*.pgn", str(SAMPLE)]
    build(inputs, tmp_path / "a.duckdb", workers=2, chunk_bytes=1)
    build(inputs, tmp_path / "b.duckdb", workers=1)
    assert not list(tmp_path.glob(".a.duckdb.building-*"))  # the database and the workers' spool are gone
    con = duckdb.connect(str(tmp_path / "a.duckdb"), read_only=True)
    con.execute("ATTACH ? AS b (READ_ONLY)", [str(tmp_path / "b.duckdb")])
    assert con.execute("SELECT count(*) FROM errors WHERE message LIKE '%never closed%'").fetchone()[0] >= 1
    for table in ("games", "positions", "errors"):
        for one, other in ((table, f"b.{table}"), (f"b.{table}", table)):
            assert con.execute(f"SELECT count(*) FROM (FROM {one} EXCEPT ALL FROM {other})").fetchone()[0] == 0
