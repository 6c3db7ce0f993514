"""The compiled build path against the python-chess path: the same index, every column.

Each dataset is built twice, ``--reader python-chess`` and ``--reader compiled``, and DuckDB
compares the two ``games`` and ``positions`` tables row for row (``EXCEPT ALL`` both ways), so
game numbers, position ids and every fact must agree. The slices are real files of ../shared:
engine games with comments and Chess960, online blitz, master games, and the main lines (with
their comments) of annotated world-championship games. Each test also checks that the compiled
reader really took most games, so a router that sent everything to python-chess cannot pass.
"""

from __future__ import annotations

import io
import itertools
import re
from pathlib import Path

import chess.pgn
import duckdb
import pytest

from conftest import shared_path
from cqlindex.ingest.pipeline import build
from cqlindex.ingest.route import route
from cqlindex.ingest.source import open_binary, split_games
from cqlindex.ingest.worker import decode, prepare

GNUCHESS = "data/large/gnuchess-book-145716.pgn.zst"
TCEC = "data/engine/tcec-subset-3802.pgn.zst"


def _games(relative: str, first: int | None = None) -> list[bytes]:
    """The file's games (its ``first`` ones only: read no further, the large files are 100 MB)."""
    path = shared_path(relative)
    with open_binary(path) as stream:
        return [raw.data for raw in itertools.islice(split_games(stream, str(path)), first)]


def _tcec_games(standard: int, chess960: int) -> list[bytes]:
    """The first ``standard`` games of the TCEC file and its first ``chess960`` Chess960 games."""
    path = shared_path(TCEC)
    first, fischer = [], []
    with open_binary(path) as stream:
        for raw in split_games(stream, str(path)):
            if len(first) < standard:
                first.append(raw.data)
            if len(fischer) < chess960 and re.search(rb'\[Variant "fischerandom"\]', raw.data):
                fischer.append(raw.data)
            if len(first) == standard and len(fischer) == chess960:
                break
    return first + fischer


def _write(path: Path, games: list[bytes]) -> Path:
    path.write_bytes(b"\n".join(g.rstrip(b"\r\n") + b"\n" for g in games))
    return path


def _main_lines(relative: str) -> list[bytes]:
    """Each game's main line with its comments, exported by python-chess (no variations, NAGs)."""
    out = []
    for data in _games(relative):
        game = chess.pgn.read_game(io.StringIO(prepare(decode(data))[0]))
        if game is None:
            continue
        for node in game.mainline():
            node.nags.clear()
        game.nags.clear()
        exporter = chess.pgn.StringExporter(headers=True, variations=False, comments=True)
        out.append(game.accept(exporter).encode("utf-8"))
    return out


def _slice(name: str, tmp: Path) -> Path:
    if name == "gnuchess":
        return _write(tmp / "gnuchess.pgn", _games(GNUCHESS, 1000))
    if name == "lichess-blitz":
        return _write(tmp / "blitz.pgn", _games("data/games/lichess-blitz-3970.pgn", 1000))
    if name == "tcec":
        return _write(tmp / "tcec.pgn", _tcec_games(400, 200))
    if name == "world-matches-main-lines":
        return _write(tmp / "world.pgn", _main_lines("data/annotated/world-matches.pgn"))
    if name == "edge":  # every malformed and unusual file, as one input
        return _write(tmp / "edge.pgn", [g for path in sorted(shared_path("data/edge").rglob("*.pgn"))
                                         for g in _games(str(path.relative_to(shared_path("."))))])
    raise ValueError(name)


def _assert_same_index(pgn: Path, tmp: Path, min_compiled: float) -> None:
    reference, compiled = tmp / "python.duckdb", tmp / "compiled.duckdb"
    build([str(pgn)], reference, workers=2, reader="python-chess")
    summary = build([str(pgn)], compiled, workers=2, reader="compiled")
    with open_binary(pgn) as stream:
        texts = [prepare(decode(raw.data))[0] for raw in split_games(stream, str(pgn))]
    routed = sum(route(t) is not None for t in texts)
    assert routed >= min_compiled * len(texts), (routed, len(texts))
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH '{reference}' AS a (READ_ONLY)")
        con.execute(f"ATTACH '{compiled}' AS b (READ_ONLY)")
        assert con.execute("SELECT value FROM b.build_info WHERE key = 'reader'").fetchall() == [("compiled",)]
        for table in ("games", "positions", "errors"):
            counts = con.execute(f"SELECT (SELECT count(*) FROM a.{table}), (SELECT count(*) FROM b.{table})").fetchall()
            assert counts[0][0] == counts[0][1], (table, counts)
            for left, right in (("a", "b"), ("b", "a")):
                extra = con.execute(f"SELECT * FROM {left}.{table} EXCEPT ALL SELECT * FROM {right}.{table} "
                                    "LIMIT 3").fetchall()
                assert not extra, (table, left, extra)
    finally:
        con.close()
    assert summary.positions > 10_000


#: Blitz games and the edge files (errors of every kind) by default; the larger collections with
#: -m slow (CI's slow stage runs them).
@pytest.mark.parametrize("name, min_compiled", [
    pytest.param("gnuchess", 0.99, marks=pytest.mark.slow), ("lichess-blitz", 0.95),
    pytest.param("tcec", 0.95, marks=pytest.mark.slow),
    pytest.param("world-matches-main-lines", 0.95, marks=pytest.mark.slow), ("edge", 0.3)])
def test_compiled_path_builds_the_same_index(name: str, min_compiled: float, tmp_path: Path) -> None:
    _assert_same_index(_slice(name, tmp_path), tmp_path, min_compiled)


@pytest.mark.slow
def test_compiled_path_builds_the_same_index_whole_gnuchess(tmp_path: Path) -> None:
    _assert_same_index(shared_path(GNUCHESS), tmp_path, 0.99)
