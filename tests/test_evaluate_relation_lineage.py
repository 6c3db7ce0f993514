"""CQL 5's game-tree parameters of relation and echorotate45, on small games written here.

The expected sources are worked out by hand from CQL 5.2's definitions (cqlindex/filters/relation/
lineage.py says them): sd and td are the moves from the lowest common ancestor of source and
target down to each; (ancestor) is (lcatarget 0), (descendant) is (lcasource 0); lcasubstring is
the longest run of the same moves on the two branches below it. echorotate45 stops the run as
CQL 5.2 does where it would map a square, and holds 0 matches and 0 mismatches where the
comparison set is empty. Both engines must give the same answers.

The tree of TREE (positionids in pre-order, depth in brackets)::

    0 [0] -e4- 1 [1] -e5- 2 [2] -Nf3- 3 [3] -Nc6- 4 [4] -Bb5- 5 [5]
                                          \\-Nf6- 6 [4] -Nc3- 7 [5] -Nc6- 8 [6] -Bb5- 9 [7]
"""

from __future__ import annotations

import pytest

from cqlindex.errors import CqlError, CqlSyntaxError, CqlUnsupportedError
from cqlindex.exec.run import run
from cqlindex.ingest.pipeline import build

TREE = '[Event "t"]\n\n1. e4 e5 2. Nf3 Nc6 (2... Nf6 3. Nc3 Nc6 4. Bb5) 3. Bb5 *\n'
KINGS = '[Event "k"]\n[FEN "4k3/8/8/8/8/8/8/4K3 w - - 0 1"]\n[SetUp "1"]\n\n1. Kd1 Kd8 2. Ke1 Ke8 *\n'
NULL = '[Event "n"]\n\n1. e4 e5 (1... -- 2. d4) 2. Nf3 *\n'
ENGINES = ("python", "sql")


@pytest.fixture(scope="module")
def dbs(tmp_path_factory) -> dict[str, object]:
    out = {}
    for name, text in (("tree", TREE), ("kings", KINGS), ("null", NULL)):
        folder = tmp_path_factory.mktemp(name)
        (folder / "g.pgn").write_text(text)
        build([str(folder / "g.pgn")], folder / "index.duckdb", workers=1)
        out[name] = folder / "index.duckdb"
    return out


def sources(db, query: str, engine: str, variations: bool = True) -> list[int]:
    return run(db, query, variations=variations, engine=engine).matches.get(1, [])


CASES = [
    ("relation (ancestor)", list(range(1, 10)), "every position but the root has an ancestor"),
    ("relation (descendant)", [0, 1, 2, 3, 4, 6, 7, 8], "every position but the leaves 5 and 9"),
    ("relation (lcasum 7)", [0, 9], "only the root and 9 are 7 moves apart"),
    ("relation (lcasum 6)", [0, 1, 5, 8, 9], "0-8, 1-9 and 5-9 (5 up to 3, then down to 9: 2 + 4)"),
    ("relation (lcamax 3 3) (lcasource 1)", [4], "4 one move below 3, 8 three moves below it"),
    ("relation (lcatarget 4)", [0, 1, 2, 3, 4, 5], "a position 4 moves below the meeting point"),
    ("relation (lcasource 2 9) (lcatarget 2 9)", [5, 7, 8, 9], "two moves at least on both branches at 3"),
    ("relation (lcasubstring 1)", [4, 5, 8, 9], "...Nc6 on both branches below 3"),
    ("relation (lcasubstring 2)", [5, 9], "...Nc6 Bb5 on both branches"),
    ("relation (lcasubstring 2 5)", [5, 9], "a range"),
    ("relation (lcasubstring 3 9)", [], "no longer run"),
    ("relation (lcasubstring 1) (lcasum 4)", [4, 8], "4-8 are 4 moves apart (4-9 and 5-8 five)"),
    ("relation (tomove match) (lcasubstring 1)", [4, 8], "4 and 8, white to move in both (not 4-9, 5-8)"),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("query, expected, why", CASES, ids=[c[0] for c in CASES])
def test_tree_parameters(dbs, engine: str, query: str, expected: list[int], why: str) -> None:
    assert sources(dbs["tree"], query, engine) == expected, why


@pytest.mark.parametrize("engine", ENGINES)
def test_without_variations_the_main_line_alone(dbs, engine: str) -> None:
    """On the main line one position is always the other's ancestor: no branches to compare."""
    assert sources(dbs["tree"], "relation (lcasubstring 1)", engine, variations=False) == []
    assert sources(dbs["tree"], "relation (descendant) (lcasum 5)", engine, variations=False) == [0]
    assert sources(dbs["tree"], "relation (ancestor)", engine, variations=False) == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("engine", ENGINES)
def test_lcasubstring_meeting_a_null_move_stops_the_run(dbs, engine: str) -> None:
    with pytest.raises(CqlError) as info:
        sources(dbs["null"], "relation (lcasubstring 1)", engine)
    assert not isinstance(info.value, (CqlSyntaxError, CqlUnsupportedError)) and "null move" in str(info.value)
    assert sources(dbs["null"], "relation (lcasum 9)", engine) == []  # the other parameters read no move


@pytest.mark.parametrize("engine", ENGINES)
def test_echorotate45(dbs, engine: str) -> None:
    with pytest.raises(CqlError) as info:  # the whole board is compared: a square would be mapped
        sources(dbs["tree"], "relation echorotate45 (mismatch 0)", engine)
    assert not isinstance(info.value, (CqlSyntaxError, CqlUnsupportedError)) and "echorotate45" in str(info.value)
    with pytest.raises(CqlError):  # pawns on the board: the comparison set is not empty
        sources(dbs["tree"], "relation echorotate45 (sourcesquares [Pp] mismatch 0)", engine)
    # No pawn anywhere: nothing is compared, 0 matches and 0 mismatches at every other position.
    assert sources(dbs["kings"], "relation echorotate45 (sourcesquares [Pp] mismatch 0)", engine) == [0, 1, 2, 3, 4]
    assert sources(dbs["kings"], "relation echorotate45 (sourcesquares [Pp] match 1 64)", engine) == []
    # The parameters are tried in order: one after echorotate45 still applies ...
    assert sources(dbs["kings"], "relation echorotate45 (sourcesquares [Pp] mismatch 0) (tomove match) (lcasum 4)",
                   engine) == [0, 4]
    # ... and a target that fails an earlier one never reaches it: no square is mapped.
    assert sources(dbs["tree"], "relation (lcasum 99) echorotate45 (mismatch 0)", engine) == []
