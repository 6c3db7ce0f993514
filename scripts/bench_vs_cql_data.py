"""The PGN and the index that ``bench_vs_cql.py`` gives its two engines, kept in a cache folder.

The reference engine reads a plain PGN, cqlindex its index of the same file: both come from
one slice, the first N games of the large gnuchess collection, streamed out of its ``.zst``
(the whole file is never written out), or from a PGN given as it is. The index is built once by
``cqlindex build`` (a process of its own, timed like the queries) and reused by later runs
while it is newer than its PGN and cqlindex still opens it (a schema change asks for a rebuild).
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path

from bench_vs_cql_engines import measure

LARGE = Path("data/large/gnuchess-book-145716.pgn.zst")


def first_games(source: Path, target: Path, limit: int) -> int:
    """Write the first ``limit`` games of the zstandard-compressed PGN ``source`` to ``target``;
    how many were written. A game starts at a tag line that follows anything but a tag line."""
    import zstandard  # a dependency of cqlindex itself

    partial = target.with_name(target.name + ".partial")
    written, in_tags = 0, False
    with source.open("rb") as raw, io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(raw)) as lines, \
            partial.open("wb") as out:
        for line in lines:
            is_tag = line.startswith(b"[")
            if is_tag and not in_tags:
                if written == limit:
                    break
                written += 1
            if line.strip():
                in_tags = is_tag
            out.write(line)
    partial.replace(target)
    return written


@dataclass
class Dataset:
    """A PGN for the reference engine, its index for cqlindex, and how the index was built."""

    pgn: Path
    index: Path
    games: int
    build: dict  # wall_seconds, cpu_seconds, peak_rss_mb of `cqlindex build`; cached: whether reused

    def to_json(self) -> dict:
        return {"pgn": str(self.pgn), "index": str(self.index), "games": self.games, "build": self.build}


def gnuchess_slice(shared: Path, games: int, cache: Path) -> Path:
    """The first ``games`` games of the gnuchess collection as a PGN in ``cache`` (cut once)."""
    pgn = cache / f"gnuchess-{games}.pgn"
    if not pgn.exists():
        cache.mkdir(parents=True, exist_ok=True)
        first_games(shared / LARGE, pgn, games)
    return pgn


def indexed(pgn: Path, cache: Path, cqlindex: list[str]) -> Dataset:
    """``pgn`` and its index in ``cache``, built now unless a usable one is there."""
    digest = hashlib.sha1(str(pgn.resolve()).encode()).hexdigest()[:8]
    index = cache / f"{pgn.stem}-{digest}.duckdb"
    record = index.with_suffix(".build.json")
    if index.exists() and record.exists() and index.stat().st_mtime >= pgn.stat().st_mtime:
        info = measure([*cqlindex, "info", str(index), "--format", "json"])
        if info.status == 0:
            return Dataset(pgn, index, json.loads(info.stdout)["games"], {**json.loads(record.read_text()), "cached": True})
    cache.mkdir(parents=True, exist_ok=True)
    run = measure([*cqlindex, "build", str(pgn), "-o", str(index)])
    if run.status != 0:
        raise SystemExit(f"bench_vs_cql: {run.failure('cqlindex build')}")
    figures = {"wall_seconds": round(run.wall, 2), "cpu_seconds": round(run.cpu, 2), "peak_rss_mb": round(run.rss_mb, 1)}
    record.write_text(json.dumps(figures))
    info = measure([*cqlindex, "info", str(index), "--format", "json"])
    return Dataset(pgn, index, json.loads(info.stdout)["games"], {**figures, "cached": False})
