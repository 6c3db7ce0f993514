"""PGN written by worker processes is the one-process PGN, byte for byte, in the result's order.

:func:`cqlindex.output.pgn_workers.write_pgn_games` hands parts of a result to spawned workers
once it has seen ``MIN_GAMES`` games; here that floor is lowered, and the parts made small, so
that shared files with variations, comments, sort values, query comments and tag edits go
through several workers' parts. A worker that dies must cost nothing but time, an interrupt must
end the workers at once, and an index other processes cannot open is written in this process.
"""

from __future__ import annotations

import io
import multiprocessing
import os
import time
from dataclasses import replace
from pathlib import Path

import duckdb
import pytest

from cqlindex.exec.result import QueryResult
from cqlindex.exec.run import run
from cqlindex.output import pgn_workers
from cqlindex.output.pgn import write_pgn
from cqlindex.output.pgn_workers import Label, parts, write_pgn_games
from cqlindex.store.database import connect

EDGE = "data/edge/pgn-extract_test_infiles/"
CASES = [  # (files of one index, query, variations)
    (("data/studies/cql6-sample.pgn",), 'check sort "ply" ply', True),
    (("data/studies/cql6-sample.pgn",), 'check comment("checked here") settag("Annotator" "cqlindex")', True),
    (("data/annotated/chess-informant-sample.pgn", "data/annotated/world-matches.pgn"), "check", True),
    (("data/games/lichess-474.pgn",), "true", False),
    # Result "*" and broken games: some go through python-chess inside the workers
    ((EDGE + "test-allownullmoves.pgn", EDGE + "test-setup-in.pgn", EDGE + "nested-comment.pgn",
      "data/edge/pgn4web/test.pgn"), "true", True),
]


@pytest.fixture
def small_parts(monkeypatch):
    """Workers from the first game on, in parts of 7 games."""
    monkeypatch.setattr(pgn_workers, "MIN_GAMES", 0)
    monkeypatch.setattr(pgn_workers, "BATCH", 7)


def written(db: Path, result, workers: int, **options) -> tuple[str, object]:
    con = connect(db)
    try:
        out = io.StringIO()
        summary = write_pgn_games(con, result, out, workers=workers, variations=result.variations, **options)
        return out.getvalue(), summary
    finally:
        con.close()


def reference(db: Path, result, **options) -> tuple[str, object]:
    con = connect(db)
    try:
        out = io.StringIO()
        summary = write_pgn(con, result, out, variations=result.variations, **options)
        return out.getvalue(), summary
    finally:
        con.close()


def no_workers_left(timeout: float = 10.0) -> bool:
    """Whether every child process has ended (they are killed asynchronously)."""
    deadline = time.monotonic() + timeout
    while multiprocessing.active_children():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.parametrize("files, query, variations", CASES)
def test_workers_write_the_same_bytes(build_db, small_parts, files, query, variations) -> None:
    db = build_db(*files)
    result = run(db, query, variations=variations)
    assert len(result.matches) > 2 * 7  # several parts
    expected, summary = reference(db, result, matchstring="MATCH")
    text, parallel = written(db, result, 2, matchstring="MATCH")
    assert text == expected
    assert (parallel.games, parallel.rebuilt, parallel.reference) == (summary.games, summary.rebuilt,
                                                                       summary.reference)
    assert no_workers_left()


def test_silent_and_without_header_too(build_db, small_parts) -> None:
    db = build_db("data/studies/cql6-sample.pgn")
    result = run(db, 'check sort "ply" ply', variations=True)
    for options in ({"silent": True}, {"with_header": False}):
        assert written(db, result, 2, **options)[0] == reference(db, result, **options)[0]


def test_a_streamed_result_starts_the_workers_once_it_is_big(build_db, monkeypatch) -> None:
    """The first batches are written here, the rest by the workers, in order; each batch's
    comments are read before the result lets go of them."""
    db = build_db("data/studies/cql6-sample.pgn")
    held = run(db, 'check comment("checked here")', variations=True)
    expected = reference(db, held)[0]
    numbers = list(held.matches)
    batches = [{n: held.matches[n] for n in numbers[i:i + 5]} for i in range(0, len(numbers), 5)]
    streamed = replace(held, matches={}, pending=iter(batches), comments=dict(held.comments))
    monkeypatch.setattr(pgn_workers, "MIN_GAMES", 12)  # batches 1-2 here, from batch 3 on in workers
    monkeypatch.setattr(pgn_workers, "BATCH", 2)
    started = []
    real = pgn_workers._pool
    monkeypatch.setattr(pgn_workers, "_pool", lambda *a: started.append(a) or real(*a))
    text, summary = written(db, streamed, 2)
    assert text == expected
    assert summary.games == len(numbers) and len(started) == 1
    assert not streamed.comments  # let go of as written


def _dies_after_the_first_part(part, options):
    """A worker that writes the first part of ``test_a_dead_worker_costs_nothing_but_time`` and
    then dies, as the out-of-memory killer would end it."""
    if min(part.matches) > int(os.environ["CQLINDEX_TEST_FIRST_GAME"]):
        os._exit(9)
    return _write_part(part, options)


_write_part = pgn_workers._write_part


def test_a_dead_worker_costs_nothing_but_time(build_db, small_parts, monkeypatch) -> None:
    db = build_db("data/games/lichess-474.pgn")
    result = run(db, "true", variations=False)
    expected, summary = reference(db, result)
    monkeypatch.setenv("CQLINDEX_TEST_FIRST_GAME", str(min(result.matches) + 6))  # the workers inherit it
    monkeypatch.setattr(pgn_workers, "_write_part", _dies_after_the_first_part)
    text, parallel = written(db, result, 2)
    assert text == expected
    assert (parallel.games, parallel.rebuilt) == (summary.games, summary.rebuilt)
    assert no_workers_left()


def _sleeps(part, options):
    """A worker busy for longer than any test waits."""
    time.sleep(120)


def test_an_interrupt_ends_the_workers_at_once(build_db, small_parts, monkeypatch) -> None:
    """Ctrl-C while the workers are busy: they are killed, not waited for."""
    db = build_db("data/games/lichess-474.pgn")
    held = run(db, "true", variations=False)
    numbers = list(held.matches)

    def batches():
        yield {n: held.matches[n] for n in numbers[:28]}  # four parts: all in flight, none collected
        time.sleep(1.0)
        raise KeyboardInterrupt

    monkeypatch.setattr(pgn_workers, "_write_part", _sleeps)
    with pytest.raises(KeyboardInterrupt):
        written(db, replace(held, matches={}, pending=batches()), 2)
    assert no_workers_left(timeout=3.0)


def test_an_index_open_for_writing_is_written_here(build_db, small_parts, tmp_path: Path, monkeypatch) -> None:
    """DuckDB lets no other process open a file one process has open for writing."""
    db = build_db("data/games/lichess-474.pgn")
    result = run(db, "true", variations=False)
    copy = tmp_path / "writable.duckdb"
    copy.write_bytes(db.read_bytes())
    monkeypatch.setattr(pgn_workers, "_pool", lambda *a: pytest.fail("no workers for a writable index"))
    con = duckdb.connect(str(copy))
    try:
        here, there = io.StringIO(), io.StringIO()
        write_pgn_games(con, result, here, workers=2, variations=False)
        write_pgn(con, result, there, variations=False)
    finally:
        con.close()
    assert here.getvalue() == there.getvalue() != ""


def test_workers_that_cannot_open_the_index_leave_the_parts_here_quietly(build_db, small_parts, capfd,
                                                                          tmp_path: Path) -> None:
    """The index gone or replaced between the query and the workers' start: the parent writes."""
    db = build_db("data/games/lichess-474.pgn")
    result = run(db, "true", variations=False)
    expected = reference(db, result)[0]
    con = connect(db)
    try:
        here = pgn_workers._Here(con, dict(matchstring="CQL", variations=False, silent=False, with_header=True),
                                 pgn_workers.Sources(pgn_workers.index_directory(con)))
        pool = pgn_workers._pool(str(tmp_path / "gone.duckdb"), 2)
        out, summary = io.StringIO(), pgn_workers.PgnSummary()
        try:
            for part in parts(result, result.matches, 2):
                here.collect(part, here.submit(pool, part), out, summary)
        finally:
            pool.shutdown(wait=True)
            here.sources.close()
    finally:
        con.close()
    assert here.broken and out.getvalue() == expected
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.parametrize("games, workers, sizes", [
    (0, 2, []),
    (300, 2, [300]),                       # never below BATCH games a part
    (1_200, 2, [500, 500, 200]),
    (12_000, 2, [3_000] * 4),              # two parts per worker
    (12_001, 4, [1_501] * 7 + [1_494]),
    (100_000, 2, [10_000] * 10),           # never above HEADS
])
def test_parts_are_consecutive_and_carry_their_games_only(games, workers, sizes) -> None:
    numbers = list(range(5, 5 + games))
    result = QueryResult(query=None, variations=False, keys=(), matches={n: [0, n % 3] for n in numbers},
                         sort_values={n: (n,) for n in numbers[::2]}, comments={n: {0: ["x"]} for n in numbers[::3]},
                         edits={n: [("settag", "A", "b")] for n in numbers[::5]})
    cut = parts(result, result.matches, workers)
    assert [len(p.matches) for p in cut] == sizes
    assert [n for p in cut for n in p.matches] == numbers
    for part in cut:
        assert part.keys == ()
        for name in ("sort_values", "comments", "edits"):
            mine = getattr(part, name)
            assert mine == {n: v for n, v in getattr(result, name).items() if n in part.matches}


def test_parts_carry_the_sort_labels_only() -> None:
    class Key:
        label, minimum, node = "checks", False, object()

    result = QueryResult(query=None, variations=False, keys=(Key(),), matches={1: [0]})
    assert parts(result, result.matches, 2)[0].keys == (Label("checks"),)
