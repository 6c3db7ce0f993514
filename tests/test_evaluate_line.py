"""The ``line`` filter (seeds/003_890e15bb321b9443.txt): parameters, repetition, variations, backward.

Small inline games, each with its position ids spelled out (numbering as in acceptance/FACTS.md
section 2: pre-order, child 0 = main continuation). The ``line`` cases of acceptance/visible.jsonl
(Q27, Q28, Q61, D17-D19b) run with the other acceptance cases in test_evaluate_acceptance.py.
"""

from __future__ import annotations

import pytest

import cqlindex.filters.sequences.line  # noqa: F401  (registers the handler)
from cqlindex.errors import CqlSyntaxError
from cqlindex.evaluate.engine import run
from tests.conftest import build_inline

GAMES = {
    # 0 start, 1 e4, 2 e5, 3 Nf3 (main line ends); 4 c5, 5 Nf3, 6 d6, 7 d4, 8 cxd4 (variation of 1...e5).
    "tree": "1. e4 e5 (1... c5 2. Nf3 d6 3. d4 cxd4) 2. Nf3 *",
    # acceptance/FACTS.md section 2: main 0..5 (e4 e5 Nf3 Nc6 Bb5); 6 d6, 7 d4 (variation of 2...Nc6);
    # 8 c5, 9 Nf3, 10 d6, 11 Nc3, 12 Nc6, 13 e6, 14 d4.
    "facts": "1. e4 e5 (1... c5 2. Nf3 (2. Nc3 Nc6) d6) (1... e6 2. d4) 2. Nf3 Nc6 (2... d6 3. d4) 3. Bb5 *",
    # The ladder: checks at 1 3 5 7 9, mate at 9; no variations.
    "ladder": ('[SetUp "1"]\n[FEN "8/8/8/8/4k3/8/1R6/R6K w - - 0 1"]\n',
               "1. Ra4+ Ke5 2. Rb5+ Ke6 3. Ra6+ Ke7 4. Rb7+ Ke8 5. Ra8# *"),
    # Move linearization (seed 003): 0 start, 1 e4, 2 e5; 3 d4, 4 d5.
    "linear": "1. e4 (1. d4 d5) e5 *",
}


@pytest.fixture(scope="module")
def dbs(tmp_path_factory) -> dict[str, object]:
    return build_inline(tmp_path_factory.mktemp("line"), GAMES)


# (game, query, positions on the main line only, positions with variations); None = same as main.
CASES = [
    # -- plain sequences and lengths: every path through the visited tree is a candidate line
    ("tree", "line --> true --> true --> true", [0, 1], [0, 1, 4, 5, 6]),
    ("tree", "line --> true{1,} == 4", [0], [5]),
    ("tree", "line --> true{1,} == 7", [], [0]),
    ("tree", "line --> true{1,} == 6", [], [1]),
    ("facts", "line --> true{3}", [0, 1, 2, 3], [0, 1, 2, 3, 8]),
    ("facts", "line --> true --> {positionid == 14}", [], [13]),
    # -- range: the length of the selected (longest) sequence must lie in it
    ("tree", "line 2 3 --> true{1,}", [1, 2], [2, 6, 7]),
    ("tree", "line 3 --> true{1,}", [1], [6]),
    # -- lastposition: the last position; between equal lengths the lowest id ends the sequence
    ("tree", "line lastposition --> true{1,} == position 8", [], [0, 1, 4, 5, 6, 7, 8]),
    ("tree", "line lastposition --> true{2} == position 2", [1], [1]),
    ("tree", "line lastposition --> true{2} == position 4", [], []),
    ("facts", "line lastposition --> true{3} == position 10", [], [8]),
    # -- firstmatch: the shortest sequence
    ("tree", "line firstmatch --> true{2,} == 2", [0, 1, 2], [0, 1, 2, 4, 5, 6, 7]),
    ("tree", "line firstmatch lastposition --> true{2,} == position 2", [1], [1]),
    # -- primary / secondary: steps onto positions that do not / do start a variation
    ("tree", "line primary --> true{1,} == 4", [0], [0, 5]),
    ("tree", "line secondary --> true --> true", [], [1]),
    ("tree", "line secondary --> true{1,} == 2", [], [1]),
    ("facts", "line secondary --> true --> true", [], [1, 3, 8]),
    # -- singlecolor: two plies a step, only the start's side to move is matched
    ("tree", "line singlecolor --> true{3}", [], [0, 1, 4]),
    ("tree", "line singlecolor --> true{1,} == 4", [], [0]),
    ("tree", "line singlecolor --> true{1,} == 3", [], [1, 4]),
    ("ladder", "line singlecolor --> check{3,}", [1, 3, 5], None),
    ("ladder", "line singlecolor --> check{1,} == 5", [1], None),
    # -- nestban: positions of a match do not start a later match
    ("tree", "line nestban --> true{2,}", [0], [0, 2]),
    ("tree", "line --> true{2,}", [0, 1, 2], [0, 1, 2, 4, 5, 6, 7]),
    ("facts", "line nestban --> true{2,}", [0], [0, 6, 8, 11, 13]),
    # -- backward lines: the parent chain; identical main-line results in both modes
    ("tree", "line <-- true{1,} == 4", [3], [3, 5]),
    ("tree", "line <-- variation{1,} <-- mainline", [], [4, 5, 6, 7, 8]),
    ("tree", "line <-- variation{2,}", [], [5, 6, 7, 8]),
    ("tree", "line secondary <-- true <-- true", [], [5]),
    ("tree", "line primary <-- true{3}", [2, 3], [2, 3, 4, 7, 8]),
    ("tree", "line singlecolor <-- true{3}", [], [6, 7, 8]),
    ("ladder", "line <-- mate <-- (true <-- check){2,}", [9], None),
    ("ladder", "line lastposition <-- (check <-- true){1,} == position 0", [1, 3, 5, 7, 9], None),
    # -- repetition forms, greedy but never at the expense of the whole match
    ("ladder", "line --> check --> true --> check", [1, 3, 5, 7], None),
    ("ladder", "line --> check --> true --> check == 3", [1, 3, 5, 7], None),
    ("ladder", "line --> check{2,}", [], None),
    ("ladder", "line --> (check --> true){2,} --> mate", [1, 3, 5], None),
    ("ladder", "line --> (check --> true){2} --> mate", [5], None),
    ("ladder", "line --> (check --> true)* --> mate", [1, 3, 5, 7, 9], None),
    ("ladder", "line --> true* --> mate", list(range(10)), None),
    ("ladder", "line --> true+ --> mate", list(range(9)), None),
    ("ladder", "line --> true{,2} --> mate", [7, 8, 9], None),
    ("ladder", "line --> check? --> true --> mate", [7, 8], None),
    ("ladder", "line --> check{1,} == 1", [1, 3, 5, 7, 9], None),
    ("ladder", "line lastposition --> check{1,} : mate", [9], None),
    ("ladder", "line --> true{3,2}", [], None),
    # -- a match has at least one position: constituents that all repeat zero times do not match
    ("tree", "line --> check*", [], []),
    ("tree", "line --> check?", [], []),
    ("tree", "line --> check* --> true", [0, 1, 2, 3], list(range(9))),
    # -- move linearization: a move filter sees only the move on to the line's next position
    ("linear", "initial line --> move to e4 --> move to d5", [], []),
    ("linear", "initial line --> move to d4 --> move to d5", [], [0]),
    ("linear", "initial line --> move to e4 --> move to e5", [0], [0]),
    ("linear", "line --> move to d4", [], [0]),
    # -- seed 003's parameters: nolinearize lets the move filter see every move played (the
    #    seed's own "unhelpful" match), nonatomic changes nothing without assignments
    ("linear", "initial line nolinearize --> move to e4 --> move to d5", [], [0]),
    ("linear", "initial line nolinearize --> move to e4 --> move to e5", [0], [0]),
    ("linear", "initial line --> find move to d5 --> true", [], [0]),  # find's body is not linearized
    ("tree", "line nonatomic --> true --> true --> true", [0, 1], [0, 1, 4, 5, 6]),
    # -- a line nested inside a constituent (seed 003 "nested line filters"): checks at 1 3 5 7 9
    ("ladder", "line --> {line --> check --> true} --> not check", [1, 3, 5, 7], None),
    ("ladder", "line --> line --> check --> true", [1, 3, 5, 7], None),  # the inner line takes every arrow
    ("linear", "initial line nolinearize --> {line --> move to e4 --> move to d5}", [], []),
]


@pytest.mark.parametrize("variations", [False, True], ids=["main", "var"])
@pytest.mark.parametrize(("game", "query", "main", "var"), CASES, ids=[f"{c[0]}: {c[1]}" for c in CASES])
def test_line(dbs, game: str, query: str, main: list[int], var: list[int] | None, variations: bool) -> None:
    expected = (var if var is not None else main) if variations else main
    got = run(dbs[game], query, variations=variations).matches
    assert got == ({1: expected} if expected else {})


def test_nestban_backward_is_rejected(dbs) -> None:
    with pytest.raises(CqlSyntaxError, match="nestban"):
        run(dbs["tree"], "line nestban <-- true", variations=False)
