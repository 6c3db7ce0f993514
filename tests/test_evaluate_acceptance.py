"""Both engines against the reference CQL engine, position for position.

Every case of acceptance/visible.jsonl (query × dataset × mode) either gives exactly the
reference's matching positions or stops with an "unsupported" message naming what is not
evaluated yet; a wrong answer fails. That holds for the reference evaluator
(``engine="python"``) and for the default engine (the SQL planner, with the evaluator
confirming its candidates), so the two also agree with each other on every case. The last
test prints the tally per engine and every difference.
"""

from __future__ import annotations

import collections
import json

import pytest

from cqlindex.errors import CqlUnsupportedError
from cqlindex.exec.run import run
from tests.conftest import SHARED, shared_path

#: Exact matches reached so far (all cases); losing one fails test_tally.
EXACT_FLOOR = 593

_CASES = [json.loads(line) for line in (SHARED / "acceptance/visible.jsonl").read_text().splitlines()] \
    if (SHARED / "acceptance/visible.jsonl").exists() else []
_OUTCOMES: dict[str, dict[str, str]] = {"python": {}, "sql": {}}
ENGINES = ("python", "sql")


def _case_id(case: dict) -> str:
    return f"{case['id']}-{case['dataset'].split('/')[-1].removesuffix('.pgn')}-{'var' if case['variations'] else 'main'}"


def test_cases_are_present() -> None:
    shared_path("acceptance/visible.jsonl")
    assert len(_CASES) == 593


#: Every case runs by default (echo, once quadratic and run with -m slow, now tries only the
#: pairs its body allows: cqlindex.filters.output.echo_pairs).
_PARAMS = [pytest.param(engine, c, id=f"{engine}-{_case_id(c)}") for engine in ENGINES for c in _CASES]


@pytest.mark.parametrize("engine, case", _PARAMS)
def test_visible_case(engine: str, case: dict, build_db) -> None:
    db = build_db(case["dataset"])
    key = _case_id(case)
    outcomes = _OUTCOMES[engine]
    try:
        result = run(db, case["query"], variations=case["variations"], engine=engine)
    except CqlUnsupportedError as error:
        outcomes[key] = "unsupported"
        assert "does not evaluate yet" in str(error)
        return
    expected = {int(g): ids for g, ids in case["positions"].items()}
    got = result.matches
    if got != expected:
        outcomes[key] = "different"
        missing = sorted(set(expected) - set(got))[:5]
        extra = sorted(set(got) - set(expected))[:5]
        changed = [g for g in sorted(set(got) & set(expected)) if got[g] != expected[g]][:3]
        pytest.fail(f"{engine} {key}: {case['query']!r}\n  games expected {len(expected)} got {len(got)}; "
                    f"positions expected {case['n_positions']} got {result.positions}\n  "
                    f"missing games {missing}, extra games {extra}, games with other positions "
                    + ", ".join(f"{g}: expected {expected[g][:8]} got {got[g][:8]}" for g in changed))
    outcomes[key] = "exact"


@pytest.mark.parametrize("engine", ENGINES)
def test_tally(engine: str) -> None:
    """Print the tally; runs last in this module, after every case above."""
    outcomes = _OUTCOMES[engine]
    if len(outcomes) < len(_CASES):
        pytest.skip("tally needs the whole module (run without -k)")
    tally = collections.Counter(outcomes.values())
    print(f"\nvisible.jsonl, engine {engine}: {tally['exact']} exact, {tally['unsupported']} unsupported, "
          f"{tally['different']} different, of {len(outcomes)} run ({len(_CASES)} in all)")
    for key, outcome in sorted(outcomes.items()):
        if outcome == "different":
            print(f"  different: {key}")
    assert tally["different"] == 0
    assert tally["exact"] >= EXACT_FLOOR
