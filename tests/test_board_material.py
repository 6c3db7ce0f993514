"""The ``material`` column (:mod:`cqlindex.board.material`): every stored count equals the
number of pieces on the board python-chess rebuilds from the row, for both readers; and counts
the planner reads from it find exactly what the reference evaluator finds."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from cqlindex.board import material
from cqlindex.exec.run import plan_for, run
from tests.conftest import board_of, built_rows

#: Set-ups and promotions (studies), and ordinary games with captures of every kind.
DATA = ("data/studies/cql6-sample.pgn", "data/games/lichess-474.pgn")

#: Material and imbalance filters of the kinds researchers write; each must find something.
QUERIES = [
    "cql(quiet) #Q - #q == 1 #r - #R == 1 #P == #p",
    "cql(quiet) #[RBN] > 4",
    "cql(quiet) #[Pp] <= 3 #[Qq] == 0",
    "cql(quiet) #q == 2",  # a promoted queen beside the first
    "cql(quiet) #N + #B == #n + #b + 1",
    "cql(variations quiet) #[Pp] == 0 #[QqRr] == 1",
]


def test_the_fields_do_not_overlap() -> None:
    assert sorted(material.SHIFTS.values()) == list(range(0, 40, 4))
    assert set(material.SHIFTS) == set("PNBRQpnbrq")


def test_a_full_field_stays_in_its_own_bits() -> None:
    # Fifteen of one kind (the most a side can have besides its king) next to a kind with none.
    bitboards = {column: np.zeros(1, np.int64) for column in material.COUNTED}
    bitboards["wq"] = np.array([0x7FFF], np.int64)  # fifteen queens
    bitboards["bq"] = np.array([np.int64(-2**63)], np.int64)  # h8: the sign bit
    packed = int(material.packed(bitboards)[0])
    assert (packed >> material.SHIFTS["Q"]) & material.FIELD == 15
    assert (packed >> material.SHIFTS["q"]) & material.FIELD == 1
    assert (packed >> material.SHIFTS["p"]) & material.FIELD == 0


@pytest.mark.parametrize("reader", ["compiled", "python-chess"])
def test_every_stored_count_is_the_boards(tmp_path_factory, reader: str) -> None:
    checked = 0
    for row in built_rows(tmp_path_factory.mktemp("material"), DATA, reader):
        board = board_of(row)
        for letter, shift in material.SHIFTS.items():
            piece = chess.Piece.from_symbol(letter)
            assert (row["material"] >> shift) & material.FIELD == len(board.pieces(piece.piece_type, piece.color))
        checked += 1
    assert checked > 30_000


@pytest.mark.parametrize("query", QUERIES)
def test_counts_from_the_column_find_what_the_evaluator_finds(build_db, query: str) -> None:
    db = build_db(*DATA)
    assert "material" in plan_for(db, query).select.sql(dialect="duckdb")  # the column, not bit counts
    sql = run(db, query)
    assert sql.matches, "the comparison means something only where the query finds positions"
    assert sql.matches == run(db, query, engine="python").matches
