"""The 90 example files shipped with CQL 6.2, run as they are on studies/cql6-sample.pgn.

Each file gives, on each engine, exactly the positions the reference engine matched
(acceptance/examples.jsonl, game by game), or is refused with an "unsupported" message naming
what it uses; never a different answer or a syntax error. The ASCII copies run by default;
the Unicode copies (the same queries in CQL 6.2's symbols) run with -m slow and must be
answered as their ASCII twins are.

The checks live here; test_evaluate_examples.py (default engine) and
test_evaluate_examples_python.py (Python engine) run them, one module per engine so that
xdist's loadfile runs the two in parallel.
"""

from __future__ import annotations

import json

import pytest

from cqlindex.errors import CqlUnsupportedError
from cqlindex.exec.run import run
from tests.conftest import SHARED, shared_path

#: Example files answered exactly, position by position, on each engine; losing one fails.
EXACT_FLOOR = 41

CASES = [json.loads(line) for line in (SHARED / "acceptance/examples.jsonl").read_text().splitlines()] \
    if (SHARED / "acceptance/examples.jsonl").exists() else []
#: Outcome per (engine, spelling) and file name: "exact", "unsupported" or "different".
_OUTCOMES: dict[tuple[str, str], dict[str, str]] = {}


def params() -> list:
    """One pytest param per example case; the Unicode copies are marked slow."""
    return [pytest.param(case, id=case["file"].split("cql-examples/")[-1],
                         marks=[pytest.mark.slow] if "/unicode/" in case["file"] else [])
            for case in CASES]


def _spelling(case: dict) -> str:
    return "unicode" if "/unicode/" in case["file"] else "ascii"


def check_file(engine: str, case: dict, build_db) -> None:
    """Run one example file on ``engine`` and compare its matches, position by position."""
    db = build_db(case["dataset"])
    path = shared_path(case["file"])
    outcomes = _OUTCOMES.setdefault((engine, _spelling(case)), {})
    outcomes[path.name] = "different"
    try:
        result = run(db, path.read_text(encoding="utf-8"), source=case["file"], engine=engine)
    except CqlUnsupportedError as error:
        outcomes[path.name] = "unsupported"
        assert "does not evaluate yet" in str(error)
        return
    expected = {int(game): ids for game, ids in case["positions"].items()}
    assert sorted(result.matches) == sorted(case["games"]), f"{engine} {case['file']}: other games"
    different = {g: (expected[g], result.matches[g]) for g in expected if result.matches[g] != expected[g]}
    assert not different, f"{engine} {case['file']}: other positions (expected, got) {dict(list(different.items())[:3])}"
    outcomes[path.name] = "exact"


def check_tally(engine: str) -> None:
    """After the files of this engine ran: the floor, and Unicode answered as ASCII."""
    if len(CASES) != 180:
        shared_path("acceptance/examples.jsonl")
        pytest.fail(f"expected 180 example cases, found {len(CASES)}")
    ascii_ = _OUTCOMES.get((engine, "ascii"), {})
    exact = sorted(name for name, outcome in ascii_.items() if outcome == "exact")
    refused = sorted(name for name, outcome in ascii_.items() if outcome == "unsupported")
    print(f"\nexamples ({engine}): {len(exact)} of 90 ASCII files exact, {len(refused)} refused: {refused}")
    # The tally cannot judge files that did not run in this session (deselected, or -m slow alone).
    if not ascii_:
        pytest.skip("no ASCII example file ran in this session: nothing to tally")
    assert len(ascii_) == 90, f"only {len(ascii_)} of the 90 ASCII example files ran before the tally"
    assert len(exact) >= EXACT_FLOOR, f"{len(exact)} ASCII example files exact, below the floor of {EXACT_FLOOR}"
    unicode_ = _OUTCOMES.get((engine, "unicode"))
    if unicode_:
        assert unicode_ == ascii_, sorted(set(unicode_.items()) ^ set(ascii_.items()))
