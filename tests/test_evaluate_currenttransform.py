"""``currenttransform`` on real games (studies/cql6-sample.pgn), on both engines.

Its value is the manual's string: the transforms acting on the copy of the filter being
evaluated, between angle brackets, outermost first (``<>`` outside every transform,
``<reflect_v>`` under ``flipvertical``). Each row states, by a filter without
``currenttransform``, which positions must match: a member of a transform filter is told apart
from the others only through the string, so a wrong name, a wrong order or a missing member
changes the positions found.
"""

from __future__ import annotations

import pytest

from cqlindex.exec.run import run

#: (query with currenttransform, a query without it that finds the same positions)
TABLE = [
    ('currenttransform == "<>"', "."),
    ('flipvertical {Ka-d1-8 currenttransform == "<reflect_v>"}', "Ke-h1-8"),
    ('fliphorizontal {Pa-h2 currenttransform == "<reflect_h>"}', "Pa-h7"),
    ('flipcolor {wtm currenttransform == "<colorswap>"}', "btm"),
    ('reversecolor {wtm currenttransform == "<colorswap>"}', "btm"),
    ('rotate90 {Ka1 currenttransform == "<counterclockwise90>"}', "Kh1"),
    ('rotate90 {Ka1 currenttransform == "<clockwise90>"}', "Ka8"),
    ('rotate90 {Ka1 currenttransform == "<rotate180>"}', "Kh8"),
    ('flip {Ka1 currenttransform == "<reflect_a8h1>"}', "Kh8"),
    ('flip {Kb1 currenttransform == "<reflect_a1h8>"}', "Ka2"),
    ('shifthorizontal {Ka1 currenttransform == "<U_4>"}', "Ke1"),
    ('shift {Ka1 currenttransform == "<U_4 V_2>"}', "Ke3"),
    # composed: the outer transform first, whichever way the orbit is built
    ('flipcolor flipvertical {wtm Ka-d1-8 currenttransform == "<colorswap reflect_v>"}', "btm ke-h1-8"),
    ('1 == flipcolor rotate90 count {wtm currenttransform == "<colorswap counterclockwise90>"}', "btm"),
    # notransform: what it holds is not transformed, so it sees no transform
    ('flipvertical {notransform {currenttransform == "<>"} Ka-d1-8}', "K"),
    ('flipvertical {currenttransform == "<>"}', "."),
    ('2 == flipvertical count {currenttransform}', "."),
]


@pytest.fixture(scope="module")
def sample(build_db):
    return build_db("data/studies/cql6-sample.pgn")


#: The answers of the rows' plain filters, by (filter, variations): each is asked by four cells.
_EXPECTED: dict[tuple[str, bool], dict[int, list[int]]] = {}


def _expected(db, same_as: str, variations: bool) -> dict[int, list[int]]:
    """A plain filter's matches, by the default engine: SQL decides each of them exactly, and the
    family tables hold those plans to the evaluator."""
    if (same_as, variations) not in _EXPECTED:
        _EXPECTED[same_as, variations] = run(db, same_as, variations=variations).matches
    return _EXPECTED[same_as, variations]


@pytest.mark.parametrize("variations", [False, True], ids=["mainline", "variations"])
@pytest.mark.parametrize("engine", ["python", "sql"])
@pytest.mark.parametrize("query, same_as", TABLE, ids=[q for q, _ in TABLE])
def test_currenttransform_names_the_member(sample, query: str, same_as: str, engine: str, variations: bool) -> None:
    expected = _expected(sample, same_as, variations)
    assert expected, f"{same_as!r} finds nothing: the row cannot fail"
    assert run(sample, query, variations=variations, engine=engine).matches == expected


def test_currenttransform_value_in_a_message(sample) -> None:
    """The string itself, as 'message currenttransform' prints it (the manual's own example)."""
    result = run(sample, 'gamenumber == 1 initial flipvertical {Ka-h1-8 message currenttransform}',
                 engine="python")
    assert sorted({message.rpartition(": ")[2] for message in result.messages}) == ["<>", "<reflect_v>"]
