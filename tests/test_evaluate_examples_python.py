"""The CQL 6.2 example files on the Python engine, with -m slow (the checks: tests/examples.py)."""

from __future__ import annotations

import pytest

from tests.examples import check_file, check_tally, params


@pytest.mark.parametrize("case", params(all_slow=True))
def test_example_file(case: dict, build_db) -> None:
    check_file("python", case, build_db)


@pytest.mark.slow
def test_example_tally() -> None:
    """Runs last in this module, after every file above."""
    check_tally("python")
