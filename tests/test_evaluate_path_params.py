"""CQL 6.2's path parameters and path filters, one rule per row, on both engines.

``focus`` (and ``focus capture``, ``singlecolor``), ``max``, a range, ``lastposition``,
``firstmatch``, the comment-only parameters, ``pathcount`` / ``pathcountunfocused`` /
``pathstart`` / ``pathlastposition`` inside and after a path, and chains of attack arrows.
The rules are those path.py and path_focus.py state (the reference engine's, build 9.493);
the example files that use them are checked position by position by test_evaluate_examples.py.
"""

from __future__ import annotations

import pytest

from cqlindex.exec.run import run
from tests.conftest import build_inline

GAMES = {
    # 0 start, 1 Rh2, 2 Kd7, 3 Rh8, 4 Kc6, 5 Ra8, 6 Kb5, 7 Ke2, 8 Kb4 (main line only).
    "rook": ('[SetUp "1"]\n[FEN "4k3/8/8/8/8/8/R7/4K3 w - - 0 1"]\n',
             "1. Rh2 Kd7 2. Rh8 Kc6 3. Ra8 Kb5 4. Ke2 Kb4 *"),
    # Checks at 1 3 5 7 9, mate at 9.
    "ladder": ('[SetUp "1"]\n[FEN "8/8/8/8/4k3/8/1R6/R6K w - - 0 1"]\n',
               "1. Ra4+ Ke5 2. Rb5+ Ke6 3. Ra6+ Ke7 4. Rb7+ Ke8 5. Ra8# *"),
    # 0 start, 1 e4, 2 d5, 3 exd5, 4 Qxd5, 5 Nc3, 6 Qa5.
    "takes": "1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 *",
    # A queen behind a rook behind a king, on a file: e1 Q, e4 r, e8 k; a knight on b1.
    "arrows": ('[SetUp "1"]\n[FEN "4k3/8/8/8/4r3/8/8/1N2Q2K w - - 0 1"]\n', "1. Kg1 *"),
}

BEFORE_MATE = list(range(9))

# (game, query, matching positions)
CASES = [
    # -- focus: only the focused pieces' moves count; others in between are skipped
    ("rook", "path focus R -- --", [0, 2]),
    ("rook", "path focus R -- + == 3", [0]),
    ("rook", "path focus R -- -- --", [0]),
    ("rook", "path focus k -- --", [1, 3, 5]),
    ("rook", "path focus K -- --", []),  # the first focused move must be the next move
    ("rook", "path focus R -- + pathcountunfocused == 2", [0]),  # Rh2 Rh8 Ra8: two moves skipped
    ("rook", "path focus R R--h8 --a8", [2]),
    ("rook", "path focus R --h8", [2]),
    ("rook", "path focus R -- --a8", [2]),  # the next focused move, not any later one: Rh8 is not to a8
    # -- singlecolor: a focus on the side to move's pieces
    ("rook", "path singlecolor -- + == 4", [0, 1]),
    # -- focus capture: a capture of a focused piece is a focused move too
    ("takes", "path focus Pe2 -- --", [0]),
    ("takes", "path focus Pe2 -- -- --", []),
    ("takes", "path focus capture Pe2 -- -- --", [0]),
    ("takes", "path focus capture Pe2 -- -- q[x]P", [0]),
    # -- max: the walk whose end gives the filter its largest value (which must match there)
    ("ladder", "path max ply -- + == 9", BEFORE_MATE),
    ("ladder", "path max 100 - ply -- + == 97", [2]),
    ("ladder", "path max {not check ply} -- + == 8", list(range(8))),
    # -- a range bounds the value (the count, or the max)
    ("ladder", "path 2 3 -- +", [6, 7]),
    ("ladder", "path 9 max ply -- +", BEFORE_MATE),
    # -- lastposition: the value is the walk's last position
    ("ladder", "(path lastposition -- check):mate", [8]),
    ("ladder", "(path lastposition -- +):mate", BEFORE_MATE),
    # -- firstmatch: the first walk found (a repetition tries to stop first)
    ("ladder", "path firstmatch -- + == 1", BEFORE_MATE),
    # -- comments only: these change no match
    ("ladder", 'path quiet title "t" verbose keepallbest -- check', [0, 2, 4, 6, 8]),
    ("rook", "path focus R piecepath -- --", [0, 2]),
    # -- the path filters inside a path: the walk under way
    ("ladder", "path -- + pathcount == 2", list(range(8))),
    ("ladder", "path -- + ply == {pathstart:ply + 2}", list(range(8))),  # braces: a top-level + repeats
    ("ladder", "path -- -- pathlastposition", []),  # no walk kept yet when the first one ends
    # -- and after it: the game's last matched path, whichever position it matched at
    ("ladder", "{path -- check} pathcount == 1", [0, 2, 4, 6, 8]),
    ("ladder", "{path -- +} pathlastposition:mate", BEFORE_MATE),
    ("ladder", "pathcount == 9 or path 9 -- +", list(range(10))),
    ("ladder", "pathstart", []),
    ("rook", "{path focus R -- --} pathcountunfocused == -2", [0, 2]),
    # -- a chain of attack arrows: a ray of attacks from a line piece
    ("arrows", "Q -> r -> k", [0, 1]),
    ("arrows", "e1 & (Q -> r -> k)", [0, 1]),
    ("arrows", "e8 & (k <- r <- Q)", [0, 1]),
    ("arrows", "Q -> k -> r", []),
    ("arrows", "N -> r -> k", []),
    ("arrows", "[QN] -> [rk] -> [rk] == e1", [0, 1]),
]


@pytest.fixture(scope="module")
def dbs(tmp_path_factory) -> dict[str, object]:
    return build_inline(tmp_path_factory.mktemp("pathparams"), GAMES)


@pytest.mark.parametrize("engine", ["python", "sql"])
@pytest.mark.parametrize(("game", "query", "expected"), CASES, ids=[f"{c[0]}: {c[1]}" for c in CASES])
def test_path_parameter(dbs, game: str, query: str, expected: list[int], engine: str) -> None:
    got = run(dbs[game], query, engine=engine).matches
    assert got == ({1: expected} if expected else {})
