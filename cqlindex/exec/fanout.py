"""The tree-walking evaluator on every core: a confirm step's games shared with forked children.

What the columnar engine cannot evaluate (functions, loops, dictionaries, paths that assign...)
the tree-walker does, at 50-100x the reference engine's cost per position, and on one core where
the reference runs ``-threads 2``. In a confirm step each game is evaluated on its own: a query
whose verdicts depend on other games (persistent variables, messages, writefile) never gets here
(:func:`cqlindex.exec.run.evaluates_every_game`). So once a run has spent :data:`SERIAL_SECONDS`
evaluating its games, the rest are loaded in chunks, and the rest of a chunk is shared from the
first game where what is left of it should take :data:`SHARED_SECONDS` at the pace so far
(evaluated here until then): this process and
``workers - 1`` children take its games one at a time from a shared counter (a heavy game does
not leave the others idle), and the children send back what they found. The caller sees the games
in their order, as from one process.

Children are forked, not spawned: a spawned worker costs ~0.4 CPU s to start and would read its
games again; a forked one starts in milliseconds with them in memory. A forked child inherits
this process's DuckDB instance without the threads that run it, so it must never call into it:
it evaluates games already loaded, writes one pickle to a pipe and leaves with ``os._exit`` (no
destructors, no atexit hooks), and ``gc.freeze()`` keeps the cyclic collector off every object it
inherited, DuckDB's included. While the children work on a chunk, this process loads the next.

A child that fails for any reason (an error, a time limit, killed, out of memory) leaves its
games to this process, which evaluates them again: the answer, or the error, is then the one a
single process gives.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where games are shared: a query that never shares starts without them
    from cqlindex.cql import ast
    from cqlindex.store.trees import GameTree

#: Seconds of evaluation in this process alone before games are shared: a fork and the results'
#: way back cost a few milliseconds, which a short run does not win back.
SERIAL_SECONDS = 0.1
#: Seconds the rest of a chunk's games are expected to take (at the pace of those evaluated here
#: so far) for them to be shared: a fork of a large process and its copied pages cost tens of
#: milliseconds, and where loading the games is most of the work (a cheap body over whole games:
#: 1 us a position to evaluate, 8 to load) sharing their evaluation gains nothing. 0.25 kept
#: bristol-universal's games here: its first ones are cheap (35 us a position), its last few
#: 300 us a position, so the prediction stayed below it however often it was looked at.
SHARED_SECONDS = 0.1
#: Positions per chunk: what this process and its children hold in memory at once (two chunks
#: while the next one loads), whatever the number of games.
CHUNK_POSITIONS = 50_000

@dataclass(slots=True)
class Outcome:
    """One game's matching positions and what the evaluator left about it."""

    ids: list[int]
    sort_values: dict = field(default_factory=dict)
    comments: dict = field(default_factory=dict)
    edits: list = field(default_factory=list)
    #: What its ``message`` filters said, in order (added to the evaluator's when the game is kept).
    messages: list[str] = field(default_factory=list)


def default_workers() -> int:
    """Processes that evaluate games: one per usable core on Linux (elsewhere one: macOS's system
    libraries may not survive a fork of a process with threads, and Windows has none)."""
    from cqlindex.output.threaded import usable_cores

    return usable_cores() if sys.platform.startswith("linux") else 1


def evaluate_games(trees: Iterable[GameTree], evaluator, only: Callable[[GameTree], list[int] | None], keep,
                   sort_nodes: tuple[ast.Node, ...] = (), workers: int | None = None) -> None:
    """``keep(gamenumber, ids, evaluated)`` for each of ``trees`` in order, ``ids`` its positions
    where the query matches (``evaluator.matches(tree, only(tree))``). ``sort_nodes``: the sort
    filters whose values ``keep`` reads (they cross from a child by their place in this tuple)."""
    workers = default_workers() if workers is None else workers
    games = iter(trees)
    pace = _Pace()
    for tree in games:
        pace.evaluate(tree, evaluator, only, keep)
        if workers > 1 and pace.seconds > SERIAL_SECONDS:
            break
    else:
        return
    chunk = _chunk(games)
    while chunk:
        # Games are evaluated here while the rest of the chunk looks cheap at the pace so far
        # (loading the games then costs more than evaluating them: a fork gains nothing), the
        # pace looked at again after each: a chunk whose first games are light and later ones
        # heavy is shared from where it turns heavy.
        left = sum(len(tree.positions) for tree in chunk)
        done = 0
        while done < len(chunk) and pace.per_position * left < SHARED_SECONDS:
            pace.evaluate(chunk[done], evaluator, only, keep)
            left -= len(chunk[done].positions)
            done += 1
        rest = chunk[done:]
        if not rest:
            chunk = _chunk(games)
            continue
        shared = _Shared(rest, evaluator, only, sort_nodes, workers)
        following = _chunk(games)  # loaded while the children start on this one
        for tree, outcome in zip(rest, shared.finish()):
            evaluator.messages += outcome.messages
            keep(tree.gamenumber, outcome.ids, outcome)
        chunk = following


class _Pace:
    """The seconds this process spent evaluating games, and on how many positions."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.positions = 0

    @property
    def per_position(self) -> float:
        return self.seconds / max(self.positions, 1)

    def evaluate(self, tree: GameTree, evaluator, only, keep) -> None:
        began = time.perf_counter()
        keep(tree.gamenumber, evaluator.matches(tree, only(tree)), evaluator)
        self.seconds += time.perf_counter() - began
        self.positions += len(tree.positions)


def _chunk(games: Iterator[GameTree]) -> list[GameTree]:
    """The next games of ``games``, up to about :data:`CHUNK_POSITIONS` positions."""
    chunk: list[GameTree] = []
    size = 0
    for tree in games:
        chunk.append(tree)
        size += len(tree.positions)
        if size >= CHUNK_POSITIONS:
            break
    return chunk


class _Shared:
    """One chunk's games, taken one at a time by this process and its forked children."""

    def __init__(self, chunk: list[GameTree], evaluator, only, sort_nodes: tuple[ast.Node, ...],
                 workers: int) -> None:
        import multiprocessing

        self.chunk, self.evaluator, self.only, self.sort_nodes = chunk, evaluator, only, sort_nodes
        context = multiprocessing.get_context("fork")
        self.next = context.RawValue("q", 0)
        self.lock = context.Lock()
        self.children: list[tuple[int, int]] = []  # (pid, read end of its pipe)
        try:
            for _ in range(min(workers, len(chunk)) - 1):
                try:
                    self.children.append(self._fork())
                except OSError:  # no process to be had (a limit on processes, on memory): fewer share
                    break
        except BaseException:
            self._end_children()
            raise

    def _take(self) -> int | None:
        """The next game's index in the chunk, or None when every game is taken."""
        with self.lock:
            index = self.next.value
            if index >= len(self.chunk):
                return None
            self.next.value = index + 1
        return index

    def _evaluate(self, index: int) -> Outcome:
        tree = self.chunk[index]
        ev = self.evaluator
        said = len(ev.messages)
        ids = ev.matches(tree, self.only(tree))
        messages = ev.messages[said:]
        del ev.messages[said:]  # said again in the games' order, when the game is kept
        return Outcome(ids, ev.sort_values, ev.comments, ev.edits, messages)

    def _fork(self) -> tuple[int, int]:
        read, write = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(read)
            os.close(write)
            raise
        if pid:
            os.close(write)
            return pid, read
        # the child: nothing here may return to the caller or call into DuckDB
        status = 1
        try:
            import pickle

            os.close(read)
            gc.freeze()  # Ctrl-C: a KeyboardInterrupt here like the parent's, or ignored where the parent ignores it
            done = []
            while (index := self._take()) is not None:
                outcome = self._evaluate(index)
                values = {i: outcome.sort_values[node] for i, node in enumerate(self.sort_nodes)
                          if node in outcome.sort_values}
                done.append((index, outcome.ids, values, outcome.comments, outcome.edits, outcome.messages))
            with os.fdopen(write, "wb") as out:
                pickle.dump(done, out, protocol=pickle.HIGHEST_PROTOCOL)
            status = 0
        except BaseException:  # its games go back to the parent, which meets the same error itself
            pass
        finally:
            os._exit(status)  # unflushed: what the parent had buffered is the parent's to write

    def finish(self) -> list[Outcome]:
        """Every game's outcome, in the chunk's order: this process's, its children's, and those of
        any game a child took and did not send back, evaluated here."""
        outcomes: list[Outcome | None] = [None] * len(self.chunk)
        try:
            while (index := self._take()) is not None:
                outcomes[index] = self._evaluate(index)
            while self.children:
                pid, read = self.children.pop()
                for index, ids, values, comments, edits, messages in _received(pid, read):
                    outcomes[index] = Outcome(ids, {self.sort_nodes[i]: v for i, v in values.items()},
                                              comments, edits, messages)
            for index, outcome in enumerate(outcomes):
                if outcome is None:
                    outcomes[index] = self._evaluate(index)
        finally:
            self._end_children()
        return outcomes  # type: ignore[return-value]

    def _end_children(self) -> None:
        """Stop and reap any child still running (this process is leaving on an error)."""
        for pid, read in self.children:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
            try:
                os.close(read)
            except OSError:
                pass
        self.children = []


def _received(pid: int, read: int) -> list[tuple]:
    """What a child sent (nothing if it failed), once it has ended; its pipe closed."""
    import pickle

    try:
        with os.fdopen(read, "rb") as source:
            data = source.read()
    finally:
        _, status = os.waitpid(pid, 0)
    if status != 0 or not data:
        return []
    try:
        return pickle.loads(data)
    except Exception:  # a child cut off mid-write: its games are evaluated again here
        return []
