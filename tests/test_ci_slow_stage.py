"""CI's slow stage runs the cells the default suite leaves to -m slow.

tests/conftest.py marks slow all but one in N of the tree-walker's cells of some modules; those
cells are checked in CI only if ``.ci/run``'s slow stage names the module. A module added to the
share and not to the stage would lose its cells silently: this fails instead.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import TREE_WALKER_SHARE

CI = Path(__file__).resolve().parents[1] / ".ci" / "run"


def test_every_shared_module_is_in_the_slow_stage() -> None:
    stage = CI.read_text(encoding="utf-8").split("-m pytest -q -m slow", 1)[1].split("\n    status=", 1)[0]
    named = {word.removeprefix("tests/") for word in stage.split() if word.startswith("tests/")}
    missing = [m for m in TREE_WALKER_SHARE if m not in named and not any(m.startswith(d + "/") for d in named)]
    assert not missing, f".ci/run's slow stage does not run {missing}"
