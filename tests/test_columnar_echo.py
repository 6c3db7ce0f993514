"""The columnar echo's pairs kept by the letters of mapped squares: a hash per board, so two
boards may share a key (two games' boards too); the pairs are cut to the source's own game and
the body still decides. With every key forced equal, the answers are still the tree-walker's."""

from __future__ import annotations

import numpy as np
import pytest

from cqlindex.columnar import kernels_echo
from cqlindex.exec.run import run

QUERIES = [
    "echo (s t) { s < t  square all x in . piecename x == s:piecename makesquare(9 - file x rank x) }",
    "echo (s t) { square all x in a-h1-2 typename x == s:typename makesquare(file x 9 - rank x) }",
]


@pytest.fixture(scope="module")
def db(build_db):
    return build_db("data/studies/cql6-sample.pgn")


#: Games with matches of both (flipverticalecho's 37 and 67 among them), few enough that every
#: pair of every game is tried in seconds when every key is one.
GAMES = (30, 70)


@pytest.mark.parametrize("query", QUERIES)
def test_colliding_keys_cost_time_never_an_answer(db, query: str, monkeypatch) -> None:
    expected = run(db, query, variations=True, gamenumbers=GAMES, engine="python")
    assert expected.positions > 0
    assert run(db, query, variations=True, gamenumbers=GAMES).matches == expected.matches
    monkeypatch.setattr(kernels_echo, "_mix_letters", lambda keys, codes, name, squares: None)
    monkeypatch.setattr(kernels_echo, "_in_game", lambda cm, keys: np.zeros_like(keys))  # one key for all
    assert run(db, query, variations=True, gamenumbers=GAMES).matches == expected.matches


SAME_BOARD = [
    "echo (s t) { s & t == . t > s }",
    "echo (s t) s & t == .",
    "echo (s t) { t & s == . }",
    "echo (s t) { s & t == . check }",
    "echo (s t) { s & t == . t:btm }",
    "echo (s t) { s & t == . distance(s t) }",
    "echo (s t) in all { s & t == . distance(s t) }",
    "echo (s t) in all s & t == .",
]


@pytest.mark.parametrize("query", SAME_BOARD)
def test_same_board_pairs_checked_on_planes(db, query: str, monkeypatch) -> None:
    """``s & t == .`` first: pairs grouped by a hash of the board's planes and checked on the
    planes, the rest of the body evaluated alone; with every hash one, still the tree-walker's
    answers, and the boards are never read."""
    from cqlindex.columnar import frame as frame_module

    expected = run(db, query, variations=True, gamenumbers=GAMES, engine="python")
    assert expected.positions > 0
    assert run(db, query, variations=True, gamenumbers=GAMES).matches == expected.matches
    monkeypatch.setattr(kernels_echo, "_board_keys", lambda planes: np.zeros(planes.shape[1], np.uint64))
    monkeypatch.setattr(kernels_echo, "_in_game", lambda cm, keys: np.zeros_like(keys))
    stacked = frame_module._stacked
    monkeypatch.setattr(frame_module, "_stacked", lambda columns, names=frame_module.BITBOARDS: (
        pytest.fail("the boards were read") if names == frame_module.BITBOARDS else stacked(columns, names)))
    assert run(db, query, variations=True, gamenumbers=GAMES).matches == expected.matches
