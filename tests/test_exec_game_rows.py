"""GameRows reads as the dict of lists it stands for, and the result keeps it until it must write."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from cqlindex.cql.parser import parse
from cqlindex.exec.game_rows import GameRows, from_arrays, joined, positions_of
from cqlindex.exec.result import QueryResult

CASES = {
    "empty": {},
    "one game": {7: [0, 3, 4]},
    "several": {1: [0], 2: [5, 6], 40: [1, 2, 3, 90], 70000: [12]},
}


def _rows(expected: dict[int, list[int]]) -> GameRows:
    bounds = [0]
    for ids in expected.values():
        bounds.append(bounds[-1] + len(ids))
    flat = np.array([i for ids in expected.values() for i in ids], dtype=np.int32)
    return GameRows(list(expected), bounds, flat)


@pytest.mark.parametrize("expected", CASES.values(), ids=CASES.keys())
def test_reads_as_its_dict(expected: dict[int, list[int]]) -> None:
    rows = _rows(expected)
    assert rows == expected and expected == rows
    assert len(rows) == len(expected) and list(rows) == list(expected)
    assert list(rows.items()) == list(expected.items()) and len(rows.items()) == len(expected)
    assert list(rows.values()) == list(expected.values())
    assert positions_of(rows) == positions_of(expected) == sum(map(len, expected.values()))
    assert all(type(i) is int for ids in rows.values() for i in ids)  # Python ints, as JSON and SQL want
    for game, ids in expected.items():
        assert game in rows and rows[game] == ids and rows.get(game) == ids
        assert rows[np.int64(game)] == ids  # a numpy integer finds its game too
    assert pickle.loads(pickle.dumps(rows)) == expected  # PGN output sends parts to worker processes
    assert dict(rows.items()) == expected and repr(rows) == f"GameRows({expected!r})"


@pytest.mark.parametrize("missing", [0, 3, 41, 10**9, "1", None, 1.5])
def test_absent_games_are_absent(missing) -> None:
    rows = _rows(CASES["several"])
    assert missing not in rows and rows.get(missing) is None
    with pytest.raises(KeyError):
        rows[missing]


@pytest.mark.parametrize(("games", "bounds", "ids"), [
    ([1, 2], [0, 2], [0, 1]),  # a bound missing
    ([1], [0, 1], [0, 1]),  # the last bound short of the ids
    ([], [], []),
])
def test_inconsistent_arrays_are_refused(games, bounds, ids) -> None:
    with pytest.raises(ValueError):
        GameRows(games, bounds, np.array(ids))


def _result(text: str = "check") -> QueryResult:
    return QueryResult(parse(text), variations=False)


def test_an_exact_plans_rows_are_kept_as_they_came() -> None:
    result = _result()
    rows = _rows(CASES["several"])
    result.keep_all(rows)
    result.order()
    assert result.matches is rows and result.positions == 8 and result.matching_games == 4


def test_writing_into_kept_rows_turns_them_into_a_dict() -> None:
    result = _result()
    result.keep_all(_rows(CASES["several"]))
    result.keep(3, [1])  # after the rows, as a second range of a streamed run would
    result.keep_all(_rows({90: [4, 5]}))
    assert type(result.matches) is dict
    assert result.matches == {**CASES["several"], 3: [1], 90: [4, 5]}
    result.order()
    assert list(result.matches) == [1, 2, 3, 40, 90, 70000]


def test_a_matchcount_range_still_reads_every_game() -> None:
    result = _result("cql(matchcount 2 100) check")
    result.keep_all(_rows(CASES["several"]))
    assert result.matches == {2: [5, 6], 40: [1, 2, 3, 90]}


@pytest.mark.parametrize("expected", CASES.values(), ids=CASES.keys())
@pytest.mark.parametrize("shuffled", [False, True])
def test_made_from_two_arrays(expected: dict[int, list[int]], shuffled: bool) -> None:
    games = np.array([g for g, ids in expected.items() for _ in ids], dtype=np.int32)
    ids = np.array([i for ids in expected.values() for i in ids], dtype=np.int32)
    if shuffled:  # out of order: sorted first
        order = np.random.default_rng(3).permutation(len(ids))
        games, ids = games[order], ids[order]
    rows = from_arrays(games, ids)
    assert isinstance(rows, GameRows) and list(rows.items()) == list(expected.items())


#: Parts of a windowed plan's batches, games ascending from part to part: arrays, lists or both.
JOINED = {
    "arrays": [_rows({1: [0], 2: [5, 6]}), _rows({40: [1, 2, 3, 90]}), _rows({70000: [12]})],
    "an empty part": [_rows({1: [0]}), _rows({}), {}, _rows({9: [3, 4]})],
    "lists too": [_rows({1: [0], 2: [5, 6]}), {40: [1, 2]}, _rows({41: [7]})],
    "one part": [{3: [1, 2]}],
    "none": [],
}


@pytest.mark.parametrize("parts", JOINED.values(), ids=JOINED.keys())
def test_joined_parts_read_as_one_dict(parts) -> None:
    expected = {g: ids for part in parts for g, ids in part.items()}
    out = joined(parts)
    assert list(out.items()) == list(expected.items()) and positions_of(out) == positions_of(expected)
    assert isinstance(out, GameRows) is (all(isinstance(p, GameRows) for p in parts if len(p))
                                         and sum(1 for p in parts if len(p)) > 1)
