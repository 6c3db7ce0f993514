"""CQL 5's relation (seed 001) against the reference engine, position for position, both engines.

Every case of acceptance/relation.jsonl (17 queries x 4 dataset/modes) must give exactly the
reference's matching SOURCE positions with the reference evaluator (``engine="python"``) and
with the default engine (the SQL self-join narrows, the evaluator confirms). Mirrors
tests/test_evaluate_acceptance.py, with no "unsupported" way out: every case runs. The
cql6-sample main-line cases run in the default suite; the larger dataset/modes with -m slow.
"""

from __future__ import annotations

import json

import pytest

from cqlindex.exec.run import run
from tests.conftest import SHARED, shared_path

_FILE = SHARED / "acceptance/relation.jsonl"
_CASES = [json.loads(line) for line in _FILE.read_text().splitlines()] if _FILE.exists() else []
ENGINES = ("python", "sql")
#: (dataset, variations) cells cheap enough for the default suite.
DEFAULT_CELLS = {("data/studies/cql6-sample.pgn", False)}


def _case_id(case: dict) -> str:
    return f"{case['id']}-{case['dataset'].split('/')[-1].removesuffix('.pgn')}-{'var' if case['variations'] else 'main'}"


def test_cases_are_present() -> None:
    shared_path("acceptance/relation.jsonl")
    assert len(_CASES) == 68
    assert len({_case_id(c) for c in _CASES}) == 68


_PARAMS = [pytest.param(engine, c, id=f"{engine}-{_case_id(c)}",
                        marks=[] if (c["dataset"], c["variations"]) in DEFAULT_CELLS else [pytest.mark.slow])
           for engine in ENGINES for c in _CASES]


@pytest.mark.parametrize("engine, case", _PARAMS)
def test_relation_case(engine: str, case: dict, build_db) -> None:
    db = build_db(case["dataset"])
    result = run(db, case["query"], variations=case["variations"], engine=engine)
    expected = {int(g): ids for g, ids in case["positions"].items()}
    pairs = {(g, i) for g, ids in result.matches.items() for i in ids}
    wanted = {(g, i) for g, ids in expected.items() for i in ids}
    assert pairs == wanted, (f"{engine} {_case_id(case)}: {case['query']!r}: positions missing "
                             f"{sorted(wanted - pairs)[:8]}, extra {sorted(pairs - wanted)[:8]}")
    assert result.matches == expected  # and in the reference's order
