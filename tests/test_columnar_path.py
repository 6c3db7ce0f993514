"""The columnar ``path`` kernel's machine, and which paths it leaves to the tree-walker.

Its answers are held to the tree-walker's at every position by the sequences family table
(tests/filters/test_sequences.py, the rows under "The columnar kernel").
"""

from __future__ import annotations

import pytest

from cqlindex.columnar.core import blocker
from cqlindex.columnar.path_machine import MAX_STATES, Machine
from cqlindex.columnar.values import NotColumnar
from cqlindex.cql import ast
from cqlindex.query.prepare import prepare


def _path(text: str) -> ast.Path:
    prepared = prepare(text, "<query>")
    return next(node for node in ast.walk(prepared.query.body) if isinstance(node, ast.Path))


def test_a_machine_has_a_state_per_rest_of_the_walk() -> None:
    assert sorted(step[0] for step in Machine(_path("path -- check")).steps) == ["end", "move", "test"]
    sizes = [len(Machine(_path(f"path (-- check){{{k}}}")).steps) for k in (2, 3, 4)]
    assert sizes[2] - sizes[1] == sizes[1] - sizes[0] > 0  # a round more, the same few states more


@pytest.mark.parametrize("text", ["path (-- check){2,} mate", "path ((check)? --){1,3} --", "path (check)* --",
                                  "path (-- check (mate)?)+ --"])
def test_a_machine_works_out_targets_at_the_same_position_first(text: str) -> None:
    """Tests and choices point to later states: the frame is filled from the last state back."""
    machine = Machine(_path(text))
    for index, step in enumerate(machine.steps):
        targets = step[1] if step[0] == "choose" else [step[2]] if step[0] == "test" else []
        assert all(target > index for target in targets), (index, step)
    assert sum(step[0] == "end" for step in machine.steps) == 1


def test_a_machine_too_large_is_refused() -> None:
    with pytest.raises(NotColumnar, match="too many states"):
        Machine(_path(f"path (-- check){{{MAX_STATES}}}"))


@pytest.mark.parametrize("text, why", [
    ("path max ply -- check", "max"),
    ("path firstmatch -- check", "firstmatch"),
    ("path -- x = ply", "change"),
    ("piece x in Q path nestban -- check", "nestban"),  # asked once per position, not per piece
    ("ply < path nestban -- check+", "nestban"),
    ("{path -- {w = #A w > 3} --} w > 3", "change"),  # w is read after the path: the walk's last value  # two operands asked: the columnar engine asks both everywhere
    ("path -- {path -- check}", "change"),  # the inner path sets what pathcount reads
])
def test_what_the_kernel_leaves_to_the_tree_walker(text: str, why: str) -> None:
    prepared = prepare(text, "<query>")
    found = blocker(prepared.query, prepared.expansions)
    assert found is not None and why in found[1], found


@pytest.mark.parametrize("text", ["path -- check", "sort path nestban -- check{2,}", "{check path nestban -- --}",
                                  "path primary -- secondary --", "path lastposition ({countmoves legal -- == 1} --)+",
                                  "path focus A -- check", "path singlecolor -- check", "path focus if wtm A else a --",
                                  "3 <= sort path focus capture [Aa] nestban -- check+", "path focus Q -- check",
                                  "piece x in Q path focus x -- check", "x = 3 path -- ply > x",
                                  "flip path nestban -- check", "path -- {w = #A w > 3} --",
                                  "function f(x){x attacks k} path -- f(N)"])
def test_what_the_kernel_takes(text: str) -> None:
    prepared = prepare(text, "<query>")
    assert blocker(prepared.query, prepared.expansions) is None
