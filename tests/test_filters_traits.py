"""The catalogue's traits hold to what the evaluator does with each declaration's example.

* ``reads_other_positions`` False: the example gives the same matches when the evaluator sees
  each position's own row alone (as on the candidate-rows path, :func:`load_positions`) as over
  whole game trees; the engine takes that path on the strength of the trait. (A dash target's
  words are left out: their examples are dashes, which read the next position.)
* ``pure``: evaluating the example leaves no comment, message or sort value behind.
"""

from __future__ import annotations

import os
from dataclasses import replace

import pytest

from cqlindex.evaluate.core import Evaluator
from cqlindex.exec.run import with_collection_size
from cqlindex.filters import catalogue
from cqlindex.filters.spec import FILTER
from cqlindex.query.prepare import prepare
from cqlindex.store.database import connect
from cqlindex.store.trees import load_games, load_positions
from tests.test_filters_facts import build_index

SUPPORTED = [decl for decl in catalogue.declarations() if decl.supported and decl.is_filter]


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    folder = tmp_path_factory.mktemp("traits")
    (folder / "a.txt").write_text("x")  # what the file filters' examples read and write
    (folder / "x.pgn").write_text('[Event "e"]\n[Result "*"]\n\n1. e4 e5 2. Nf3 *\n')  # similarposition's
    connection = connect(build_index(folder))
    was = os.getcwd()
    os.chdir(folder)
    yield connection
    os.chdir(was)
    connection.close()


class Left:
    """What the evaluator left behind over a run: comments, messages, sort values."""

    def __init__(self) -> None:
        self.comments: dict = {}
        self.messages: list = []
        self.sort_values: dict = {}

    def add(self, evaluator: Evaluator, gamenumber: int) -> None:
        if evaluator.comments:
            self.comments[gamenumber] = dict(evaluator.comments)
        if evaluator.sort_values:
            self.sort_values[gamenumber] = dict(evaluator.sort_values)
        self.messages = list(evaluator.messages)

    def __bool__(self) -> bool:
        return bool(self.comments or self.messages or self.sort_values)


def evaluate(con, text: str, *, rows_only: bool) -> tuple[dict[int, list[int]], Left]:
    """The example's matches over whole trees, or with each position seeing its own row alone."""
    prepared = with_collection_size(con, prepare(text, variations=True))  # as run() does: lastgamenumber
    evaluator = Evaluator(prepared.query, True, prepared.expansions)
    evaluator.allow_files = True
    every = {game: list(range(count)) for game, count in
             con.execute("SELECT gamenumber, count(*) FROM positions GROUP BY 1").fetchall()}
    found: dict[int, list[int]] = {}
    left = Left()
    trees = load_positions(con, every) if rows_only else load_games(con, every, variations=True)
    for tree in trees:
        if rows_only:
            ids = []
            for position in tree.positions:
                alone = [None] * len(tree.positions)
                alone[position.id] = position
                ids += evaluator.matches(replace(tree, positions=alone), [position.id])
        else:
            ids = evaluator.matches(tree)
        left.add(evaluator, tree.gamenumber)
        if ids:
            found[tree.gamenumber] = ids
    return found, left


@pytest.mark.parametrize("decl", [d for d in SUPPORTED if not d.traits.reads_other_positions and d.where == FILTER],
                         ids=lambda d: f"{d.family}:{d.name}")
def test_a_filter_that_reads_only_its_position_needs_only_its_row(con, decl) -> None:
    whole, _ = evaluate(con, decl.example, rows_only=False)
    rows, _ = evaluate(con, decl.example, rows_only=True)
    assert rows == whole


@pytest.mark.parametrize("name", ["terminal", "parent", "child"])
def test_the_check_tells_a_filter_that_reads_the_tree(con, name: str) -> None:
    """The comparison above can fail: these read other positions, and their rows alone say otherwise."""
    decl = catalogue.lookup(name)
    assert decl.traits.reads_other_positions
    whole, _ = evaluate(con, decl.example, rows_only=False)
    rows, _ = evaluate(con, decl.example, rows_only=True)
    assert rows != whole


@pytest.mark.parametrize("decl", [d for d in SUPPORTED if d.traits.pure], ids=lambda d: f"{d.family}:{d.name}")
def test_a_pure_filter_leaves_nothing_behind(con, decl) -> None:
    _, left = evaluate(con, decl.example, rows_only=False)
    assert not left


@pytest.mark.parametrize("name", ["comment", "message", "sort"])
def test_an_impure_filter_does(con, name: str) -> None:
    decl = catalogue.lookup(name)
    assert not decl.traits.pure
    _, left = evaluate(con, decl.example, rows_only=False)
    assert left
