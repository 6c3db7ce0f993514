"""The small real indexes every family table runs on, built once per session (per xdist worker).

The fixture is registered by tests/conftest.py (a second conftest.py here would shadow the
root one for modules that import from ``conftest``).

Two indexes, so that both of the planner's modes for castling are exercised:

- ``plain``: the first games of studies/cql6-sample.pgn (FEN set-ups, promotions, variations
  nested four deep, comments) and of annotated/world-matches.pgn (real games with annotated
  variations, players, years, ECO codes) in one index, searched in both modes;
- ``chess960``: Chess960 games of engine/tcec-subset-3802.pgn.zst (with a few standard games of
  the same file first), so the index is flagged Chess960 and the castling rules of both kinds of
  game are searched.

``CQLINDEX_FILTER_GAMES=large`` takes a few hundred games of each instead (the slow run); the
default keeps each index to a few thousand positions so every table row stays cheap.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

#: (studies, world matches, standard TCEC, Chess960 TCEC) games per index size.
SIZES = {"small": (20, 6, 2, 10), "large": (253, 200, 40, 300)}


def _games(text_lines, wanted) -> list[str]:
    """Split a PGN stream into games at '[Event ' lines, keeping those ``wanted(index, text)`` accepts."""
    games: list[str] = []
    current: list[str] = []
    index = 0

    def flush() -> bool:
        nonlocal index
        if current:
            text = "".join(current)
            verdict = wanted(index, text)
            index += 1
            if verdict is None:
                return False
            if verdict:
                games.append(text)
        return True

    started = False
    for line in text_lines:
        if line.startswith("[Event "):
            if started and not flush():
                return games
            started, current = True, []
        if started:
            current.append(line)
    flush()
    return games


def _first(path: Path, count: int) -> list[str]:
    with path.open(encoding="utf-8", errors="replace") as handle:
        return _games(handle, lambda i, text: True if i < count else None)


def _tcec(path: Path, standard: int, chess960: int) -> list[str]:
    """The first ``standard`` games of the file and its first ``chess960`` Chess960 games (streamed: it is large)."""
    import zstandard

    picked = {"standard": 0, "chess960": 0}

    def wanted(_: int, text: str) -> bool | None:
        kind = "chess960" if '[Variant "fischerandom"]' in text else "standard"
        limit = chess960 if kind == "chess960" else standard
        if picked["chess960"] >= chess960:
            return None
        picked[kind] += 1
        return picked[kind] <= limit

    with path.open("rb") as raw:
        reader = zstandard.ZstdDecompressor().stream_reader(raw)
        return _games(io.TextIOWrapper(reader, encoding="utf-8", errors="replace", newline=""), wanted)


@pytest.fixture(scope="session")
def filter_indexes(tmp_path_factory) -> dict[str, Path]:
    """``{"plain": path, "chess960": path}``: the indexes every family table runs on."""
    import cqlindex
    from tests.conftest import anchored, built_once, shared_path  # here, not at the top: tests/conftest.py imports this module

    size = os.environ.get("CQLINDEX_FILTER_GAMES", "small")
    studies, matches, standard, chess960 = SIZES[size]
    paths = {name: shared_path(relative) for name, relative in (
        ("studies", "data/studies/cql6-sample.pgn"), ("matches", "data/annotated/world-matches.pgn"),
        ("tcec", "data/engine/tcec-subset-3802.pgn.zst"))}

    def make(folder: Path) -> None:
        sources = {
            "plain": _first(paths["studies"], studies) + _first(paths["matches"], matches),
            "chess960": _tcec(paths["tcec"], standard, chess960),
        }
        for name, games in sources.items():
            pgn = folder / f"{name}.pgn"
            pgn.write_text("".join(games), encoding="utf-8")
            cqlindex.build([pgn], folder / f"{name}.duckdb", workers=1)

    folder = built_once(tmp_path_factory, f"filters-{size}", make)
    return {name: anchored(folder / f"{name}.duckdb") for name in ("plain", "chess960")}
