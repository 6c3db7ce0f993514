"""The 90 example files shipped with CQL 6.2, run as they are on studies/cql6-sample.pgn.

Each file gives exactly the games the reference engine found (acceptance/examples.jsonl), or
is refused with an "unsupported" message naming what it uses; never a different answer or a
syntax error. The ASCII copies run by default; the Unicode copies (the same queries in CQL
6.2's symbols) run with -m slow.
"""

from __future__ import annotations

import json

import pytest

from cqlindex.errors import CqlUnsupportedError
from cqlindex.evaluate.engine import run
from tests.conftest import SHARED, shared_path

#: Example files answered exactly so far (per spelling); losing one fails.
EXACT_FLOOR = 48

_CASES = [json.loads(line) for line in (SHARED / "acceptance/examples.jsonl").read_text().splitlines()] \
    if (SHARED / "acceptance/examples.jsonl").exists() else []
_PARAMS = [pytest.param(c, id=c["file"].split("cql-examples/")[-1],
                        marks=[pytest.mark.slow] if "/unicode/" in c["file"] else []) for c in _CASES]
_EXACT: dict[str, set[str]] = {"ascii": set(), "unicode": set()}
#: Example files run in this session (answered, refused or failed), per spelling.
_RAN: dict[str, set[str]] = {"ascii": set(), "unicode": set()}


def _spelling(case: dict) -> str:
    return "unicode" if "/unicode/" in case["file"] else "ascii"


@pytest.mark.parametrize("case", _PARAMS)
def test_example_file(case: dict, build_db) -> None:
    db = build_db(case["dataset"])
    path = shared_path(case["file"])
    _RAN[_spelling(case)].add(path.name)
    try:
        result = run(db, path.read_text(encoding="utf-8"), source=case["file"])
    except CqlUnsupportedError as error:
        assert "does not evaluate yet" in str(error)
        return
    assert sorted(result.matches) == sorted(case["games"]), case["file"]
    _EXACT[_spelling(case)].add(path.name)


def test_example_tally() -> None:
    if len(_CASES) != 180:
        shared_path("acceptance/examples.jsonl")
        pytest.fail(f"expected 180 example cases, found {len(_CASES)}")
    print(f"\nexamples: {len(_EXACT['ascii'])} ASCII and {len(_EXACT['unicode'])} Unicode files exact, of 90 each")
    # The floor holds whenever the files ran, however many of them regressed (none exact fails too).
    # The tally cannot judge files that did not run in this session (deselected, or -m slow alone).
    if not _RAN["ascii"]:
        pytest.skip("no ASCII example file ran in this session: nothing to tally")
    assert len(_RAN["ascii"]) == 90, f"only {len(_RAN['ascii'])} of the 90 ASCII example files ran before the tally"
    assert len(_EXACT["ascii"]) >= EXACT_FLOOR, \
        f"{len(_EXACT['ascii'])} ASCII example files exact, below the floor of {EXACT_FLOOR}"
    if _RAN["unicode"]:
        assert _EXACT["unicode"] == _EXACT["ascii"], sorted(_EXACT["unicode"] ^ _EXACT["ascii"])
