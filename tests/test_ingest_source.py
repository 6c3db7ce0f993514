"""split_games: where one game ends and the next begins, byte offsets, start lines, input opening."""

from __future__ import annotations

import bz2
import gzip
import io
from pathlib import Path

import pytest
import zstandard

from cqlindex.errors import InputError
from cqlindex.ingest.source import RawGame, expand_inputs, open_binary, split_games

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "gnuchess-300.pgn"


def _split(data: bytes, file: str = "t.pgn") -> list[RawGame]:
    return list(split_games(io.BytesIO(data), file))


# Each case: (id, input bytes, expected list of (1-based start line, game bytes)).
CASES = [
    (
        "tags-and-moves",
        b'[Event "a"]\n[Site "s"]\n\n1. e4 e5 2. Nf3 1-0\n',
        [(1, b'[Event "a"]\n[Site "s"]\n\n1. e4 e5 2. Nf3 1-0\n')],
    ),
    (
        "two-games-blank-line",
        b'[Event "a"]\n\n1. e4 e5 1-0\n\n[Event "b"]\n\n1. d4 d5 0-1\n',
        [(1, b'[Event "a"]\n\n1. e4 e5 1-0\n\n'), (5, b'[Event "b"]\n\n1. d4 d5 0-1\n')],
    ),
    (
        "two-games-no-blank-line",
        b'[Event "a"]\n1. e4 1-0\n[Event "b"]\n1. d4 *\n',
        [(1, b'[Event "a"]\n1. e4 1-0\n'), (3, b'[Event "b"]\n1. d4 *\n')],
    ),
    (
        "header-only-games",
        b'[Event "a"]\n[Round "1"]\n\n[Event "b"]\n[Round "2"]\n\n[Event "c"]\n[Round "3"]\n',
        [
            (1, b'[Event "a"]\n[Round "1"]\n\n'),
            (4, b'[Event "b"]\n[Round "2"]\n\n'),
            (7, b'[Event "c"]\n[Round "3"]\n'),
        ],
    ),
    (
        "header-only-then-full-game",
        b'[Event "a"]\n\n[Event "b"]\n\n1. e4 *\n',
        [(1, b'[Event "a"]\n\n'), (3, b'[Event "b"]\n\n1. e4 *\n')],
    ),
    (
        "chessbase-blank-line-inside-header",
        b'[Event "a"]\n[Site "s"]\n\n[White "w"]\n[Black "b"]\n\n1. e4 e5 *\n',
        [(1, b'[Event "a"]\n[Site "s"]\n\n[White "w"]\n[Black "b"]\n\n1. e4 e5 *\n')],
    ),
    (
        "tag-like-line-inside-multiline-comment",
        b'[Event "a"]\n\n1. e4 {a comment\n[Event "not a tag"]\nstill the comment} e5 *\n\n[Event "b"]\n\n1. d4 *\n',
        [
            (1, b'[Event "a"]\n\n1. e4 {a comment\n[Event "not a tag"]\nstill the comment} e5 *\n\n'),
            (7, b'[Event "b"]\n\n1. d4 *\n'),
        ],
    ),
    (
        "blank-line-inside-comment-is-not-a-boundary",
        b'[Event "a"]\n\n1. e4 {first paragraph\n\nsecond paragraph} e5 *\n',
        [(1, b'[Event "a"]\n\n1. e4 {first paragraph\n\nsecond paragraph} e5 *\n')],
    ),
    (
        "blank-line-inside-movetext-before-result",
        b'[Event "a"]\n\n1. e4 e5 {comment}\n\n2. Nf3 Nc6 *\n',
        [(1, b'[Event "a"]\n\n1. e4 e5 {comment}\n\n2. Nf3 Nc6 *\n')],
    ),
    (
        "tagless-games",
        b"1. e4 e5 1-0\n\n1. d4 d5 *\n",
        [(1, b"1. e4 e5 1-0\n\n"), (3, b"1. d4 d5 *\n")],
    ),
    (
        "tagless-games-draw-result",
        b"1. e4 e5 1/2-1/2\n\n1. d4 d5 0-1\n\n1. c4 *\n",
        [(1, b"1. e4 e5 1/2-1/2\n\n"), (3, b"1. d4 d5 0-1\n\n"), (5, b"1. c4 *\n")],
    ),
    (
        "leading-blank-lines",
        b'\n\n[Event "a"]\n\n1. e4 *\n',
        [(3, b'[Event "a"]\n\n1. e4 *\n')],
    ),
    (
        "no-final-newline",
        b'[Event "a"]\n\n1. e4 *\n\n[Event "b"]\n\n1. d4 *',
        [(1, b'[Event "a"]\n\n1. e4 *\n\n'), (5, b'[Event "b"]\n\n1. d4 *')],
    ),
    (
        "crlf",
        b'[Event "a"]\r\n[Site "s"]\r\n\r\n1. e4 e5 1-0\r\n\r\n[Event "b"]\r\n\r\n1. d4 *\r\n',
        [(1, b'[Event "a"]\r\n[Site "s"]\r\n\r\n1. e4 e5 1-0\r\n\r\n'), (6, b'[Event "b"]\r\n\r\n1. d4 *\r\n')],
    ),
    (
        "crlf-tagless",
        b"1. e4 e5 1-0\r\n\r\n1. d4 d5 *\r\n",
        [(1, b"1. e4 e5 1-0\r\n\r\n"), (3, b"1. d4 d5 *\r\n")],
    ),
    (
        "only-blank-lines",
        b"\n\n  \n",
        [],
    ),
    (
        "empty",
        b"",
        [],
    ),
]


@pytest.mark.parametrize("data, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_split_games_boundaries(data: bytes, expected: list[tuple[int, bytes]]) -> None:
    games = _split(data)
    assert [(g.line, g.data) for g in games] == expected
    for game in games:
        assert game.file == "t.pgn"
        assert data[game.offset:game.offset + len(game.data)] == game.data


@pytest.mark.parametrize("data", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_offsets_and_lines_point_into_the_original(data: bytes) -> None:
    for game in _split(data):
        assert data[game.offset:game.offset + len(game.data)] == game.data
        # the 1-based start line is the number of line breaks before the offset, plus one
        assert game.line == data[:game.offset].count(b"\n") + 1


def test_games_cover_the_input_after_the_first_game_start() -> None:
    data = b'\n[Event "a"]\n\n1. e4 *\n\n\n[Event "b"]\n\n1. d4 {x\n\ny} *\n\n1. c4 1-0\n'
    games = _split(data)
    assert b"".join(g.data for g in games) == data[games[0].offset:]
    assert [g.offset for g in games] == sorted(g.offset for g in games)


def test_utf8_bom_is_skipped_but_counted_in_offsets() -> None:
    data = b'\xef\xbb\xbf[Event "a"]\n\n1. e4 *\n\n[Event "b"]\n\n1. d4 *\n'
    games = _split(data)
    assert [(g.offset, g.line) for g in games] == [(3, 1), (25, 5)]
    assert games[0].data == b'[Event "a"]\n\n1. e4 *\n\n'
    assert not games[0].data.startswith(b"\xef\xbb\xbf")
    for game in games:
        assert data[game.offset:game.offset + len(game.data)] == game.data


def test_bom_before_tagless_game() -> None:
    data = b"\xef\xbb\xbf1. e4 e5 1-0\n\n1. d4 *\n"
    games = _split(data)
    assert [(g.offset, g.line, g.data) for g in games] == [(3, 1, b"1. e4 e5 1-0\n\n"), (17, 3, b"1. d4 *\n")]


def test_offsets_and_lines_of_several_games() -> None:
    data = (b'[Event "a"]\n[Site "x"]\n\n1. e4 e5 1-0\n\n'
            b'[Event "b"]\n\n1. d4 {multi\nline\n[bracket]} d5 0-1\n\n\n'
            b'[Event "c"]\n\n*\n')
    games = _split(data, "some/file.pgn")
    assert [g.line for g in games] == [1, 6, 13]
    assert games[0].offset == 0
    assert games[1].offset == data.index(b'[Event "b"]')
    assert games[2].offset == data.index(b'[Event "c"]')
    assert all(g.file == "some/file.pgn" for g in games)
    for game in games:
        assert data[game.offset:game.offset + len(game.data)] == game.data


def test_escape_and_semicolon_lines_do_not_start_games() -> None:
    data = b'% produced by a tool\n[Event "a"]\n\n1. e4 ; comment [Event "x"]\ne5 *\n'
    games = _split(data)
    assert len(games) == 1
    assert games[0].line == 1


def test_tag_after_movetext_without_result_starts_a_new_game() -> None:
    data = b'[Event "a"]\n\n1. e4 e5\n[Event "b"]\n\n1. d4\n'
    assert [g.line for g in _split(data)] == [1, 4]


# --- compressed input -------------------------------------------------------------------------

def _compressors():
    return {
        "gz": gzip.compress,
        "bz2": bz2.compress,
        "zst": lambda b: zstandard.ZstdCompressor().compress(b),
    }


@pytest.mark.parametrize("kind", ["gz", "bz2", "zst"])
def test_open_binary_decompresses_to_the_same_games(tmp_path: Path, kind: str) -> None:
    raw = SAMPLE.read_bytes()
    plain = list(split_games(open_binary(SAMPLE), "f"))
    assert len(plain) == 300
    compressed = tmp_path / f"sample.pgn.{kind}"
    compressed.write_bytes(_compressors()[kind](raw))
    with open_binary(compressed) as stream:
        games = list(split_games(stream, "f"))
    assert [(g.offset, g.line, g.data) for g in games] == [(g.offset, g.line, g.data) for g in plain]
    # offsets are in the decompressed bytes
    for game in games[:20]:
        assert raw[game.offset:game.offset + len(game.data)] == game.data


@pytest.mark.parametrize("kind", ["gz", "bz2", "zst"])
def test_open_binary_detects_compression_by_magic_not_name(tmp_path: Path, kind: str) -> None:
    data = b'[Event "a"]\n\n1. e4 *\n\n[Event "b"]\n\n1. d4 *\n'
    path = tmp_path / "misnamed.pgn"
    path.write_bytes(_compressors()[kind](data))
    with open_binary(path) as stream:
        assert stream.read() == data


def test_open_binary_plain_file(tmp_path: Path) -> None:
    path = tmp_path / "plain.pgn"
    path.write_bytes(b"1. e4 *\n")
    with open_binary(path) as stream:
        assert stream.read() == b"1. e4 *\n"


def test_open_binary_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        open_binary(tmp_path / "nope.pgn")


# --- expand_inputs ----------------------------------------------------------------------------

def test_expand_inputs_glob_sorted_and_files_only(tmp_path: Path) -> None:
    for name in ("b.pgn", "a.pgn", "c.txt"):
        (tmp_path / name).write_bytes(b"1. e4 *\n")
    (tmp_path / "d.pgn").mkdir()  # a directory matching the glob is not an input
    paths = expand_inputs([str(tmp_path / "*.pgn")])
    assert paths == [tmp_path / "a.pgn", tmp_path / "b.pgn"]


def test_expand_inputs_keeps_the_given_order(tmp_path: Path) -> None:
    for name in ("a.pgn", "b.pgn"):
        (tmp_path / name).write_bytes(b"1. e4 *\n")
    paths = expand_inputs([str(tmp_path / "b.pgn"), str(tmp_path / "a.pgn")])
    assert paths == [tmp_path / "b.pgn", tmp_path / "a.pgn"]


def test_expand_inputs_recursive_glob(tmp_path: Path) -> None:
    (tmp_path / "sub" / "deeper").mkdir(parents=True)
    (tmp_path / "top.pgn").write_bytes(b"1. e4 *\n")
    (tmp_path / "sub" / "deeper" / "x.pgn").write_bytes(b"1. e4 *\n")
    paths = expand_inputs([str(tmp_path / "**" / "*.pgn")])
    assert set(paths) == {tmp_path / "top.pgn", tmp_path / "sub" / "deeper" / "x.pgn"}


@pytest.mark.parametrize("pattern", ["missing.pgn", "*.nothing-matches"])
def test_expand_inputs_missing_is_an_input_error(tmp_path: Path, pattern: str) -> None:
    (tmp_path / "present.pgn").write_bytes(b"1. e4 *\n")
    with pytest.raises(InputError):
        expand_inputs([str(tmp_path / "present.pgn"), str(tmp_path / pattern)])


def test_expand_inputs_directory_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="directory"):
        expand_inputs([str(tmp_path)])


def test_expand_inputs_nothing_is_an_input_error() -> None:
    with pytest.raises(InputError):
        expand_inputs([])


# --- an unclosed brace comment ------------------------------------------------------------------

def _games(count: int, broken: int) -> bytes:
    """``count`` games; game ``broken`` (1-based) opens a comment it never closes."""
    games = []
    for number in range(1, count + 1):
        moves = "1. e4 {never closed e5 2. Nf3 Nc6 *" if number == broken else "1. e4 e5 2. Nf3 Nc6 *"
        games.append(f'[Event "g{number}"]\n[White "w"]\n\n{moves}\n')
    return "\n".join(games).encode()


def test_unclosed_comment_recovers_at_the_next_tag_section() -> None:
    games = _split(_games(11, broken=4))
    assert len(games) == 11
    assert [g.data.split(b'"')[1] for g in games] == [f"g{n}".encode() for n in range(1, 12)]
    assert [g.notes for g in games if g.notes] == [((4, "comment '{' on line 19 is never closed; the game "
                                                        "is read up to it, the next game starts on line 21"),)]


def test_unclosed_comment_at_the_end_of_the_file_is_noted() -> None:
    games = _split(_games(2, broken=2))
    assert [g.notes for g in games] == [(), ((4, "comment '{' on line 9 is never closed before the end of the file"),)]


@pytest.mark.parametrize("data", [
    b'[Event "a"]\n\n1. e4 {a comment\n[Event "no blank line before it"]\nstill} e5 *\n',
    b'[Event "a"]\n\n1. e4 {a comment\n\n[Event "a"] is quoted here} e5 *\n',
    b'[Event "a"]\n\n1. e4 {a comment\n\n[not a tag]\nstill} e5 *\n',
], ids=["no-blank-line", "not-a-whole-tag-line", "not-a-tag-pair"])
def test_a_comment_keeps_tag_like_lines_that_do_not_start_a_tag_section(data: bytes) -> None:
    games = _split(data)
    assert len(games) == 1 and games[0].notes == ()
