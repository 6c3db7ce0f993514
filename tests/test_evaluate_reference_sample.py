"""Mutated queries both engines accept, answered as the reference answers them, position by position.

The grammar test (test_cql_reference_grammar.py) checks that cqlindex accepts what CQL 6.2
accepts; this one checks that where both accept a query, they find the same positions. The
queries are a seeded sample of the mutated strings of tests/reference/verdicts.jsonl.zst (typos of
the parse cases: tokens dropped, swapped, doubled, moved across lines) that the reference runs,
drawn by ``scripts/reference_answers.py --sample``; each runs on studies/cql6-sample.pgn with
variations on both engines, against the reference's answers recorded by the same script (the
tree-walker on one row in four by default, on the others with -m slow: tests/conftest.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.filters.reference import RefRow, check_reference, ref_cases

SAMPLE = Path(__file__).resolve().parent / "reference" / "sample.jsonl"
REFERENCE = [RefRow(json.loads(line)["query"], "studies", True)
             for line in SAMPLE.read_text(encoding="utf-8").splitlines()] if SAMPLE.exists() else []


def test_the_sample_is_drawn() -> None:
    assert len(REFERENCE) >= 50, "draw it: python scripts/reference_answers.py --sample 80"


@pytest.mark.parametrize("row, engine", ref_cases(REFERENCE))
def test_sampled_query(build_db, row: RefRow, engine: str) -> None:
    check_reference(build_db, row, engine)
