"""The tree-walker's games shared with forked children (cqlindex.exec.fanout): the same answers,
in the same order, as one process, whoever evaluates a game and whatever happens to a child."""

from __future__ import annotations

import os
import signal
import sys
import time
from dataclasses import dataclass, field

import pytest

from cqlindex.exec import fanout
from cqlindex.exec.run import run

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="games are shared on Linux")

SAMPLE = "data/studies/cql6-sample.pgn"


@dataclass
class Tree:
    gamenumber: int
    positions: list = field(default_factory=lambda: [None] * 40)


class Counting:
    """An evaluator whose answer for a game is a function of its number, with a sort value,
    a comment and a message per game; ``fails`` decides, per (game, process), to raise or die."""

    def __init__(self, fails=lambda game, child: None) -> None:
        self.parent = os.getpid()
        self.fails = fails
        self.messages: list[str] = []
        self.sort_values, self.comments, self.edits = {}, {}, []

    def matches(self, tree: Tree, only) -> list[int]:
        game = tree.gamenumber
        time.sleep(0.002)  # long enough that the children take games too
        what = self.fails(game, os.getpid() != self.parent)
        if what == "raise":
            raise ValueError(f"game {game}")
        if what == "die":
            os._exit(9)
        self.sort_values, self.comments, self.edits = {SORT: game % 7}, {0: [f"c{game}"]}, [("settag", game)]
        self.messages.append(f"m{game}")
        return [i for i in range(game % 5)]


SORT = object()


def expected(games: range) -> list[tuple]:
    return [(g, list(range(g % 5)), g % 7, {0: [f"c{g}"]}, [("settag", g)]) for g in games]


@pytest.fixture
def shared_at_once(monkeypatch):
    """Games shared from the first one, in small chunks: every path of the module taken."""
    monkeypatch.setattr(fanout, "SERIAL_SECONDS", -1.0)
    monkeypatch.setattr(fanout, "SHARED_SECONDS", -1.0)
    monkeypatch.setattr(fanout, "CHUNK_POSITIONS", 400)


def evaluated(evaluator: Counting, games: range, workers: int) -> list[tuple]:
    kept = []
    fanout.evaluate_games((Tree(g) for g in games), evaluator, lambda tree: None,
                          lambda game, ids, ev: kept.append((game, ids, ev.sort_values.get(SORT), ev.comments, ev.edits)),
                          (SORT,), workers)
    return kept


@pytest.mark.parametrize("workers", [1, 2, 3])
@pytest.mark.parametrize("fails", [
    pytest.param(lambda game, child: None, id="nothing fails"),
    pytest.param(lambda game, child: "die" if child and game == 23 else None, id="a child dies"),
    pytest.param(lambda game, child: "raise" if child and game % 11 == 0 else None, id="a child raises"),
])
def test_the_games_come_back_in_order_whoever_evaluated_them(shared_at_once, workers, fails) -> None:
    evaluator = Counting(fails)
    assert evaluated(evaluator, range(1, 61), workers) == expected(range(1, 61))
    assert evaluator.messages == [f"m{g}" for g in range(1, 61)]


def test_where_no_process_can_be_forked_this_one_does_the_work(shared_at_once, monkeypatch) -> None:
    def refused():
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(fanout.os, "fork", refused)
    evaluator = Counting()
    assert evaluated(evaluator, range(1, 61), 2) == expected(range(1, 61))


def test_an_error_is_raised_as_one_process_raises_it(shared_at_once) -> None:
    evaluator = Counting(lambda game, child: "raise" if game == 37 else None)
    with pytest.raises(ValueError, match="game 37"):
        evaluated(evaluator, range(1, 61), 2)




class Signals:
    """An evaluator that matches where SIGINT is handled as where it was made."""

    def __init__(self) -> None:
        self.handler = signal.getsignal(signal.SIGINT)
        self.messages: list[str] = []
        self.sort_values, self.comments, self.edits = {}, {}, []

    def matches(self, tree: Tree, only) -> list[int]:
        time.sleep(0.005)  # long enough that the children take games too
        return [0] if signal.getsignal(signal.SIGINT) is self.handler else []


@pytest.mark.parametrize("handler", [signal.SIG_IGN, signal.default_int_handler], ids=["ignored", "interrupts"])
def test_a_child_handles_ctrl_c_as_its_parent(shared_at_once, handler) -> None:
    """A query run where SIGINT is ignored (a background job) is not stopped in its children."""
    before = signal.signal(signal.SIGINT, handler)
    try:
        kept = []
        fanout.evaluate_games((Tree(g) for g in range(1, 41)), Signals(), lambda tree: None,
                              lambda game, ids, ev: kept.append(ids), (), 2)
    finally:
        signal.signal(signal.SIGINT, before)
    assert kept == [[0]] * 40


class Where(Signals):
    """An evaluator whose answer says which process evaluated the game (0: the parent)."""

    def __init__(self) -> None:
        super().__init__()
        self.parent = os.getpid()

    def matches(self, tree: Tree, only) -> list[int]:
        time.sleep(0.005)
        return [0 if os.getpid() == self.parent else 1]


@pytest.mark.parametrize("serial_seconds, shared_seconds, children_take_games", [
    pytest.param(-1.0, -1.0, True, id="shared"),
    pytest.param(-1.0, 60.0, False, id="a cheap chunk stays here"),
    pytest.param(60.0, -1.0, False, id="a short run stays here"),
])
def test_a_chunk_is_shared_where_its_games_take_long_enough(shared_at_once, monkeypatch, serial_seconds,
                                                            shared_seconds, children_take_games) -> None:
    """A fork gains nothing on a short run, nor where loading the games costs more than evaluating them."""
    monkeypatch.setattr(fanout, "SERIAL_SECONDS", serial_seconds)
    monkeypatch.setattr(fanout, "SHARED_SECONDS", shared_seconds)
    kept = []
    fanout.evaluate_games((Tree(g) for g in range(1, 41)), Where(), lambda tree: None,
                          lambda game, ids, ev: kept.extend(ids), (), 2)
    assert len(kept) == 40 and (1 in kept) == children_take_games


class Heavier(Where):
    """:class:`Where`, with the games from the 20th on fifty times as slow as those before."""

    def matches(self, tree: Tree, only) -> list[int]:
        time.sleep(0.05 if tree.gamenumber >= 20 else 0.001)
        return [0 if os.getpid() == self.parent else 1]


def test_a_chunk_turning_heavy_is_shared_from_there(monkeypatch) -> None:
    """The pace is looked at again after each game kept here: at the first games' pace the
    whole chunk looks cheap, at the later games' it does not (bristol-universal's heavy games
    come last in cql6-sample)."""
    monkeypatch.setattr(fanout, "SERIAL_SECONDS", -1.0)
    monkeypatch.setattr(fanout, "SHARED_SECONDS", 0.2)
    kept: dict[int, list[int]] = {}
    fanout.evaluate_games((Tree(g) for g in range(1, 61)), Heavier(), lambda tree: None,
                          lambda game, ids, ev: kept.__setitem__(game, ids), (), 2)
    assert sorted(kept) == list(range(1, 61))
    assert all(kept[g] == [0] for g in range(1, 20)) and any(kept[g] == [1] for g in range(20, 61))


# Each runs on the tree-walker (a dictionary, a path that assigns, a function with a loop) with
# sort values, comments or messages to carry back from the children.
QUERIES = [
    'local dictionary D  D[fen]=ply  sort "ply" D[fen]  check',
    'piece T=[QRBN]--(from)  sort "long" path focus T piecepath -- x=to -- y=to&~x  comment("here")',
    'function f(z){ z+1 }  i=0  loop { i+=1 i<f(2) }  message("at" ply " " i)  check',
    'sort min "moves" countmoves legal --  stalemate or mate',
]


@pytest.mark.parametrize("text", QUERIES)
@pytest.mark.parametrize("engine", ["sql", "python"])
def test_sharing_changes_no_answer(build_db, shared_at_once, monkeypatch, text, engine) -> None:
    db = build_db(SAMPLE)
    answers = []
    for workers in (1, 2):
        monkeypatch.setattr(fanout, "default_workers", lambda workers=workers: workers)
        result = run(db, text, variations=True, engine=engine)
        answers.append((dict(result.matches), result.sort_values, result.comments, result.messages))
    assert answers[0][0], "the query finds something"
    assert answers[0] == answers[1]
