"""Both engines against the reference CQL engine, position for position.

Every case of acceptance/visible.jsonl (query × dataset × mode) gives exactly the reference's
matching positions: a wrong answer fails, and so does a refusal ("does not evaluate yet"), since
every case is answered exactly now (the floor is all of them, checked case by case, so a run of
some cells, such as the Python engine's slow ones, checks it too). That holds for the reference
evaluator (``engine="python"``) and for the default engine (the SQL planner, with the columnar
engine confirming its candidates), so the two also agree with each other on every case. The
last test prints the tally per engine and every difference.
"""

from __future__ import annotations

import collections
import json

import pytest

from cqlindex.errors import CqlUnsupportedError
from cqlindex.exec.run import run
from tests.conftest import SHARED, shared_path

_CASES = [json.loads(line) for line in (SHARED / "acceptance/visible.jsonl").read_text().splitlines()] \
    if (SHARED / "acceptance/visible.jsonl").exists() else []
_OUTCOMES: dict[str, dict[str, str]] = {"python": {}, "sql": {}}
ENGINES = ("python", "sql")


def _case_id(case: dict) -> str:
    return f"{case['id']}-{case['dataset'].split('/')[-1].removesuffix('.pgn')}-{'var' if case['variations'] else 'main'}"


def test_cases_are_present() -> None:
    shared_path("acceptance/visible.jsonl")
    assert len(_CASES) == 593


#: The default engine runs every case by default. The Python engine, the tree-walking oracle that
#: costs twice the default engine's time here, runs by default on every other case of the studies
#: file (variations nested deep, both modes; tests/conftest.py TREE_WALKER_SHARE), and on the rest
#: and the other collections with -m slow; its floor is checked then.
PYTHON_BY_DEFAULT = ("data/studies/cql6-sample.pgn",)


def _marks(engine: str, case: dict) -> list:
    return [pytest.mark.slow] if engine == "python" and case["dataset"] not in PYTHON_BY_DEFAULT else []


_PARAMS = [pytest.param(engine, c, id=f"{engine}-{_case_id(c)}", marks=_marks(engine, c))
           for engine in ENGINES for c in _CASES]


@pytest.mark.parametrize("engine, case", _PARAMS)
def test_visible_case(engine: str, case: dict, build_db) -> None:
    db = build_db(case["dataset"])
    key = _case_id(case)
    outcomes = _OUTCOMES[engine]
    try:
        result = run(db, case["query"], variations=case["variations"], engine=engine)
    except CqlUnsupportedError as error:
        outcomes[key] = "unsupported"
        pytest.fail(f"{engine} {key}: {case['query']!r} is refused, and every case was answered exactly: {error}")
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
    if not outcomes:
        pytest.skip(f"no case ran on the {engine} engine (run without -k)")
    tally = collections.Counter(outcomes.values())
    print(f"\nvisible.jsonl, engine {engine}: {tally['exact']} exact, {tally['unsupported']} unsupported, "
          f"{tally['different']} different, of {len(outcomes)} run ({len(_CASES)} in all)")
    for key, outcome in sorted(outcomes.items()):
        if outcome != "exact":
            print(f"  {outcome}: {key}")
    assert tally["exact"] == len(outcomes)
