"""Sources: byte ranges of plain and compressed files, read forward and back, against the bytes."""

from __future__ import annotations

import bz2
import gzip
import random
from pathlib import Path

import pytest
import zstandard

from cqlindex.errors import InputError
from cqlindex.output import sources as module
from cqlindex.output.sources import Sources

TEXT = b"".join(b'[Event "game %d"]\n\n1. e4 e5 2. Nf3 *\n\n' % k for k in range(3000))

FORMATS = {
    "plain": lambda data: data,
    "gzip": gzip.compress,
    "bzip2": bz2.compress,
    "zstd": zstandard.ZstdCompressor().compress,
}


@pytest.fixture(params=sorted(FORMATS))
def source(request, tmp_path: Path) -> Path:
    path = tmp_path / f"games.{request.param}"
    path.write_bytes(FORMATS[request.param](TEXT))
    return path


# (offset, end) reads one after the other, the reopenings a compressed file then needs with
# 4 KiB kept, and the same with nothing kept to go back into
READS = [
    ("forward", [(0, 100), (100, 250), (5000, 5100), (60000, None)], 1),
    ("back into the kept bytes", [(5000, 5100), (4000, 4100), (4050, 5200), (4990, 7000)], 1),
    ("back across the kept end", [(9000, 9100), (8500, 9500)], 1),
    ("back to the end of the file", [(len(TEXT) - 50, None), (len(TEXT) - 80, None)], 1),
    ("back beyond the kept bytes", [(20000, 20100), (100, 200)], 2),
    ("empty and past the end", [(300, 300), (len(TEXT) + 10, None), (10, 20)], 2),
    ("another order", [(30000, 30010), (29000, 29010), (1000, 1010), (28000, 28010), (1200, 1300)], 3),
]


@pytest.mark.parametrize("name, reads, compressed_opens", READS, ids=[r[0] for r in READS])
def test_every_read_gives_the_texts_bytes(source: Path, monkeypatch, name, reads, compressed_opens) -> None:
    monkeypatch.setattr(module, "KEPT", 4096)
    sources = Sources()
    try:
        for offset, end in reads:
            assert sources.read(str(source), offset, end) == TEXT[offset:end], (offset, end)
        assert sources.opened == (1 if source.suffix == ".plain" else compressed_opens)
    finally:
        sources.close()


def test_random_reads_with_the_default_kept_bytes(source: Path) -> None:
    """Reads that mostly go forward, sometimes back a little, as the PGN writer's batches do."""
    rng = random.Random(7)
    sources = Sources()
    offset = 0
    try:
        for _ in range(300):
            offset = max(0, offset + rng.randint(-3000, 6000)) % len(TEXT)
            end = None if rng.random() < 0.02 else offset + rng.randint(0, 400)
            assert sources.read(str(source), offset, end) == TEXT[offset:end]
        assert sources.opened == 1  # the text is 120 KB: every step back is in the kept bytes
    finally:
        sources.close()


def test_kept_bytes_stay_bounded(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(module, "KEPT", 1000)
    path = tmp_path / "games.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress(TEXT))
    sources = Sources()
    try:
        for offset in range(0, len(TEXT) - 100, 700):
            assert sources.read(str(path), offset, offset + 100) == TEXT[offset:offset + 100]
            assert len(sources.kept) <= 2 * 1000
    finally:
        sources.close()


def test_two_files_and_a_missing_one(tmp_path: Path) -> None:
    first, second = tmp_path / "a.pgn.gz", tmp_path / "b.pgn"
    first.write_bytes(gzip.compress(TEXT))
    second.write_bytes(TEXT[::-1])
    sources = Sources()
    try:
        assert sources.read(str(first), 10, 20) == TEXT[10:20]
        assert sources.read(str(second), 10, 20) == TEXT[::-1][10:20]
        assert sources.read(str(first), 5, 15) == TEXT[5:15]  # the other file was open: read anew
        assert sources.opened == 3
        with pytest.raises(InputError):
            sources.read(str(tmp_path / "gone.pgn"), 0, 10)
    finally:
        sources.close()


def test_a_relative_name_is_found_beside_the_index(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "games.pgn").write_bytes(TEXT)
    monkeypatch.chdir(tmp_path.parent)
    assert Sources(tmp_path).locate("elsewhere/games.pgn") == tmp_path / "games.pgn"
    assert Sources(tmp_path).read("games.pgn", 0, 5) == TEXT[:5]
