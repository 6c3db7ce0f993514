"""Opening a source: compression and UTF-16 by their first bytes, binary refused, cuts noticed."""

from __future__ import annotations

import bz2
import codecs
import gzip
import os
from pathlib import Path

import pytest
import zstandard

from cqlindex.ingest.source import split_games
from cqlindex.ingest.streams import compression, decoded, not_text, open_binary, open_raw

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "gnuchess-300.pgn"
_HEAD = SAMPLE.read_bytes()[:20000].decode("utf-8")
TEXT = _HEAD[:_HEAD.rindex("[Event ")]  # whole games only
COMPRESS = {"gzip": gzip.compress, "bzip2": bz2.compress, "zstd": lambda b: zstandard.ZstdCompressor().compress(b)}


@pytest.mark.parametrize("encoding, bom", [("utf-16-le", codecs.BOM_UTF16_LE), ("utf-16-be", codecs.BOM_UTF16_BE),
                                           ("utf-16-le", b""), ("utf-16-be", b"")],
                         ids=["le-bom", "be-bom", "le-no-bom", "be-no-bom"])
def test_utf16_is_read_as_its_utf8_text(tmp_path: Path, encoding: str, bom: bytes) -> None:
    text = TEXT + '[Event "Café ♞"]\n\n1. e4 *\n'
    path = tmp_path / "u.pgn"
    path.write_bytes(bom + text.encode(encoding))
    with open_binary(path) as stream:
        assert stream.read() == text.encode("utf-8")
    with open_binary(path) as stream:
        games = list(split_games(stream, str(path)))
    assert len(games) == text.count("[Event ")
    assert games[-1].data.decode("utf-8").startswith('[Event "Café ♞"]')


@pytest.mark.parametrize("kind", sorted(COMPRESS))
def test_compression_is_known_by_its_magic_whatever_the_name(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "named-plain.pgn"
    path.write_bytes(COMPRESS[kind](TEXT.encode()))
    with open_raw(path) as raw:
        assert compression(raw.peek(4)[:4]) == kind
    with open_binary(path) as stream:
        assert stream.read() == TEXT.encode()


def test_a_text_file_named_gz_is_read_as_text(tmp_path: Path) -> None:
    path = tmp_path / "t.pgn.gz"
    path.write_bytes(TEXT.encode())
    with open_binary(path) as stream:
        assert stream.read() == TEXT.encode()


@pytest.mark.parametrize("kind", sorted(COMPRESS))
@pytest.mark.parametrize("keep", [40, 0.5, 0.97], ids=["header-only", "half", "almost-all"])
def test_a_cut_compressed_file_raises_eof(tmp_path: Path, kind: str, keep: float) -> None:
    data = COMPRESS[kind](SAMPLE.read_bytes())
    path = tmp_path / "cut"
    path.write_bytes(data[:keep] if isinstance(keep, int) else data[:int(len(data) * keep)])
    with pytest.raises(EOFError), open_binary(path) as stream:
        while stream.read(1 << 16):
            pass


def test_two_zstd_frames_are_read_one_after_the_other(tmp_path: Path) -> None:
    path = tmp_path / "frames.zst"
    path.write_bytes(COMPRESS["zstd"](b"first ") + COMPRESS["zstd"](b"second"))
    with open_binary(path) as stream:
        assert stream.read() == b"first second"


@pytest.mark.parametrize("data, binary", [
    (os.urandom(5000), True),
    (bytes(range(256)) * 4, True),
    (b"\x00" * 10, True),
    (TEXT.encode(), False),
    (TEXT.encode("cp1252", "replace") + b"\x1a", False),  # DOS end-of-file mark
    (b"plain words, not chess\n", False),
], ids=["random", "all-bytes", "zeros", "pgn", "dos-pgn", "prose"])
def test_binary_data_is_not_text(tmp_path: Path, data: bytes, binary: bool) -> None:
    path = tmp_path / "f"
    path.write_bytes(data)
    with open_raw(path) as raw:
        assert (not_text(decoded(raw)) is not None) is binary
