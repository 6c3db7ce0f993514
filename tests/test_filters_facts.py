"""Facts of the position declared with their Python value and their SQL: the two agree everywhere.

For every declaration that carries both (``python=`` and ``sql_of=``), its example runs on the
SQL engine (where the fact is decided in SQL) and on the Python evaluator, main line and
variations, over a small index with a null move, castling both ways, en passant, a mate and
variations; the matches must be the same position for position. A new fact is covered here
without a line of test code.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cqlindex.exec.run import run
from cqlindex.filters import catalogue
from cqlindex.ingest.pipeline import build

PGN = """[Event "null move and variations"]
[Result "*"]

1. e4 e5 2. Nf3 -- 3. Bc4 (3. d4 exd4 4. Nxd4) 3... Nc6 4. O-O Nf6 5. d3 Bc5 6. Bg5 d6 7. Nc3 Bg4 8. Qd2 Qd7
9. Rab1 O-O-O *

[Event "mate"]
[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 (2... g6 3. Qxe5+) 3. Bc4 Nf6 4. Qxf7# 1-0

[Event "en passant"]
[Result "*"]

1. e4 Nf6 2. e5 d5 3. exd6 -- 4. d4 *
"""

FACTS = [decl for decl in catalogue.declarations() if decl.python is not None and decl.sql_of is not None]


def build_index(directory: Path) -> Path:
    """The index of :data:`PGN` in ``directory``."""
    path = directory / "facts.pgn"
    path.write_text(PGN, encoding="utf-8")
    db = path.with_suffix(".duckdb")
    build([str(path)], db, workers=1)
    return db


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    return build_index(tmp_path_factory.mktemp("facts"))


def test_there_are_facts() -> None:
    assert {"check", "wtm", "ply", "sidetomove"} <= {decl.name for decl in FACTS}


@pytest.mark.parametrize("variations", [False, True], ids=["mainline", "variations"])
@pytest.mark.parametrize("decl", FACTS, ids=lambda d: f"{d.family}:{d.where}:{d.name}")
def test_sql_equals_python(index, decl, variations: bool) -> None:
    by_sql = run(index, decl.example, variations=variations)
    by_python = run(index, decl.example, variations=variations, engine="python")
    assert by_sql.candidates is not None  # the SQL engine answered
    assert by_sql.matches == by_python.matches


def test_nullmove(index) -> None:
    """CQL 6.2's nullmove: the position a null move ('--' in the PGN) led to."""
    assert run(index, "nullmove").matches == {1: [4], 3: [6]}
