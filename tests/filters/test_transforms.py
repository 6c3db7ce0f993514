"""Transforms: SQL against Python on every position of the filter indexes (see differential.py).

Covers flipcolor reversecolor flip fliphorizontal flipvertical rotate90 shift shifthorizontal
shiftvertical, with count, around pieces, moves, directions and attacks.
"""

from __future__ import annotations

import pytest

from tests.filters.differential import EXACT, NARROWED, Row, cases, check

TABLE = [
    Row("rotate45 up 1 K", NARROWED),
    Row("flip notransform Ka1", EXACT),
    Row("flipcolor {notransform Ka1 wtm}", EXACT),
    Row("rotate45 count {up 1 K} == 8", EXACT),
    Row("rotate90 2 4 Ra1", EXACT),
    Row("flip 3 8 [Aa]a1", EXACT),
    Row("shift 10 20 [Pp]a4", EXACT),
    Row("rotate90 4 find Ra1", EXACT),
    Row("flipcolor {Q == 0 q == 1}", EXACT),
    Row("flipcolor Ka1 kh8", EXACT),
    Row("reversecolor {wtm K == 1}", EXACT),
    Row("flip {Ka1 kh8}", EXACT),
    Row("fliphorizontal Pa2", EXACT),
    Row("flipvertical {Ra1 Kg1}", EXACT),
    Row("rotate90 Kh1", EXACT),
    Row("shift Pd4", EXACT),
    Row("shifthorizontal Ke1", EXACT),
    Row("shiftvertical Pd4", EXACT),
    Row("shift {Kg1 Rf1}", EXACT),
    # a pattern of one-square designators moved about: shifted boards (filters/transforms/sql.py)
    Row("shift {Qd4 [Aa]e4 qf4}", EXACT),
    Row("4 == rotate90 count find shift {Qd4 [Aa]e4 qf4}", EXACT),
    Row("shift {Pe4 pe5 _e6}", EXACT),  # an empty square in the pattern
    Row("shift {ra8 Kh1}", EXACT),  # the pattern spans the board: one place
    Row("shifthorizontal {Kg1 [RQ]h1}", EXACT),
    Row("flip shift {Bc1 Nd2}", EXACT),
    Row("shift {Kg1 Rf1 a-h2}", EXACT),  # a designator of many squares: the members written out
    Row("flipcolor count check", EXACT),
    Row("flip count {Kb1 kg8}", EXACT),
    Row("flipcolor {move from K to g1}", EXACT),
    Row("flip {up 1 K & P}", NARROWED),
    Row("flipcolor {A attacks k}", EXACT),
    Row("shiftvertical {#Pa-h2 == 8}", EXACT),
    Row('flipvertical {Ka-d1-8 currenttransform == "<reflect_v>"}', NARROWED),
]


@pytest.mark.parametrize("row, cell", cases(TABLE))
def test_sql_against_python(filter_indexes, row: Row, cell: tuple[str, bool]) -> None:
    check(filter_indexes, row, cell)
