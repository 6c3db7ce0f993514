"""The columnar runner: batches, threads, the way back to the tree-walker, and what --explain says."""

from __future__ import annotations

import numpy as np
import pytest

from cqlindex.columnar import run as columnar_run
from cqlindex.exec.run import plan_for, postfilter, run

QUERIES = [
    "flipcolor { piece x in N { x attacks k x attacks [qr] } }",
    "line --> check {2,} --> mate",
    "square s in [qrbn] { #(A attacks s) >= 2 }",
    "x = power A - power a find (power A - power a >= x + 2)",
    "sort power A wtm",
]


@pytest.fixture(scope="module")
def db(filter_indexes):
    return filter_indexes["plain"]


def _answer(db, query: str, engine: str = "sql") -> tuple:
    result = run(db, query, variations=True, engine=engine)
    return list(result.matches.items()), result.sort_values


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("batch_games, batch_positions, chunk_positions, threads",
                         [(1, 50_000, 1, 1), (3, 50_000, 1, 2), (1000, 50_000, 1, 2), (1000, 150, 1, 2),
                          (3, 50_000, 250_000, 2), (1000, 150, 250_000, 1), (1000, 150, 600, 2)])
def test_batches_and_threads_give_the_tree_walkers_answer(db, monkeypatch, query, batch_games, batch_positions,
                                                          chunk_positions, threads) -> None:
    monkeypatch.setattr(columnar_run, "BATCH_GAMES", batch_games)
    monkeypatch.setattr(columnar_run, "BATCH_POSITIONS", batch_positions)  # cut by rows: a few games a batch
    monkeypatch.setattr(columnar_run, "CHUNK_POSITIONS", chunk_positions)  # a batch a scan, or several
    monkeypatch.setattr(columnar_run, "THREADS", threads)
    assert _answer(db, query) == _answer(db, query, "python")


def _every_chunk(batches, sizes, games) -> list:
    return list(iter(columnar_run._Chunker(batches, sizes, games, sparse=False).take, None))


def test_chunks_group_consecutive_batches_by_rows() -> None:
    games = list(range(1, 8))
    sizes = [40, 40, 200, 10, 10, 90, 5]
    batches = [[1, 2], [3], [4, 5], [6, 7]]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(columnar_run, "CHUNK_POSITIONS", 100)
        assert _every_chunk(batches, sizes, games) == [[[1, 2]], [[3]], [[4, 5]], [[6, 7]]]
        patch.setattr(columnar_run, "CHUNK_POSITIONS", 300)
        assert _every_chunk(batches, sizes, games) == [[[1, 2], [3], [4, 5]], [[6, 7]]]  # 300 fits
        patch.setattr(columnar_run, "CHUNK_POSITIONS", 10_000)
        assert _every_chunk(batches, sizes, games) == [batches]
        assert _every_chunk(batches, None, games) == [[b] for b in batches]


def test_a_scan_of_a_wheres_rows_covers_as_many_positions_as_the_rows_read_allow() -> None:
    """Where a WHERE selects the rows, a scan's positions follow the rows read per position so
    far: ten in a hundred read, the next scan covers ten times the rows' allowance (within the
    bound); every row read, one batch; the games left after a refusal are the batch's on."""
    games = list(range(1, 41))
    sizes = [100] * 40
    batches = [games[i:i + 2] for i in range(0, 40, 2)]  # 200 positions each
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(columnar_run, "CHUNK_POSITIONS", 300)
        patch.setattr(columnar_run, "SCANNED_CHUNK_POSITIONS", 2000)
        chunker = columnar_run._Chunker(batches, sizes, games, sparse=True)
        assert chunker.take() == batches[:1]  # nothing read yet: by the positions alone
        chunker.seen(0, 20)  # 20 rows of 200 positions
        assert chunker.take() == batches[1:11]  # 300 rows' worth is 3,000 positions: the bound, 2,000
        chunker.seen(1, 2000)  # every row
        assert chunker.take() == batches[11:12]
        assert chunker.left(1, 3) == [g for b in batches[4:] for g in b]
        dense = columnar_run._Chunker(batches, sizes, games, sparse=False)
        dense.take()
        dense.seen(0, 2)
        assert dense.take() == batches[1:2]  # rows known in advance: nothing read changes them


@pytest.mark.parametrize("variations", [True, False])
@pytest.mark.parametrize("boards", [True, False], ids=["boards", "boards-later"])
@pytest.mark.parametrize("candidate_rows", [False, True])
def test_a_chunks_frames_are_the_frames_of_their_batches(db, variations, candidate_rows, boards) -> None:
    """A chunk is read by one scan and cut into frames: each frame holds what its batch read
    alone would (rows, boards, tree links as rows of its own, facts, and the columns read later,
    the boards too where the scan left them out)."""
    import duckdb

    from cqlindex.columnar.frame import load, planes_of, read

    con = duckdb.connect(str(db), read_only=True)
    try:
        every = [g for (g,) in con.execute("SELECT gamenumber FROM games ORDER BY 1").fetchall()]
        rows = None
        if candidate_rows:
            rows = {}
            for game, position in con.execute("SELECT gamenumber, positionid FROM positions "
                                              "WHERE positionid % 3 = 1 ORDER BY 1, 2").fetchall():
                rows.setdefault(game, []).append(position)
        batches = [every[i:i + 3] for i in range(0, len(every), 3)][1::2]  # gaps between batches
        facts = {"check": "p.is_check"}
        chunk = read(con, [g for b in batches for g in b], variations, facts, rows=rows, boards=boards,
                     planes=not boards)
        for batch in batches:
            cut = chunk.frame(*chunk.rows_of(batch[0], batch[-1]))
            alone = load(con, batch, variations, facts, rows=rows)
            assert cut.size == alone.size > 0
            assert cut.has_boards() is boards and alone.has_boards()
            names = ["gamenumber", "positionid", "ply", "boards", "move_to", "wtm", "material"]
            if not candidate_rows:
                names += ["start", "end", "parent", "last"]
            for name in names:
                assert np.array_equal(getattr(cut, name), getattr(alone, name)), name
            assert np.array_equal(cut.facts["check"], alone.facts["check"])
            assert np.array_equal(cut.board_planes(), planes_of(alone.boards))  # DuckDB's planes are numpy's
        assert chunk.boards_read_later is not boards
    finally:
        con.close()
    assert len(batches) > 2


@pytest.mark.parametrize(("query", "later"), [
    ("x = power A - power a find (power A - power a >= x + 2)", False),  # the material column alone
    ("x = #[Qq] find quiet (#[Qq] < x)", False),
    ("square s in [qrbn] { #(A attacks s) >= 2 }", True),
    ("x = power A find quiet (Ra1 or power A <= x - 5)", True),
    ("echo (s t) { s & t == . t > s }", "planes"),  # the board's planes alone
])
def test_the_boards_are_read_with_the_scan_once_a_kernel_asked(db, monkeypatch, query, later) -> None:
    """The run's first scan leaves the boards out; once a kernel has read them (or their planes
    alone), every later scan reads them with the rest; a query that never asks never reads them.
    The answer is the same."""
    from cqlindex.columnar import frame as frame_module

    asked: list[bool | str] = []

    def reading(*args, **kwargs):
        asked.append("planes" if kwargs["planes"] else kwargs["boards"])
        return frame_module.read(*args, **kwargs)

    monkeypatch.setattr(columnar_run, "read", reading)
    monkeypatch.setattr(columnar_run, "BATCH_POSITIONS", 150)
    monkeypatch.setattr(columnar_run, "CHUNK_POSITIONS", 600)
    monkeypatch.setattr(columnar_run, "SCANNED_POSITIONS", 150)  # a row-local query scans its plan's WHERE
    monkeypatch.setattr(columnar_run, "SCANNED_CHUNK_POSITIONS", 600)
    monkeypatch.setattr(columnar_run, "THREADS", 1)
    assert _answer(db, query) == _answer(db, query, "python")
    assert len(asked) > 2
    assert asked == ([False] + [later] * (len(asked) - 1) if later else [False] * len(asked))


def test_batches_hold_their_rows_and_every_game_once() -> None:
    games = list(range(1, 11))
    sizes = [40, 40, 200, 10, 10, 10, 90, 5, 5, 5]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(columnar_run, "BATCH_POSITIONS", 100)
        patch.setattr(columnar_run, "BATCH_GAMES", 3)
        batches = columnar_run._batches(games, sizes)
        assert batches == [[1, 2], [3], [4, 5, 6], [7, 8, 9], [10]]
        assert columnar_run._batches(games, None) == [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10]]
        # a WHERE's scan counts a short game as no rows: it never closes a batch on its own
        assert columnar_run._batches([1, 2, 3, 4, 5], [0, 0, 120, 0, 100]) == [[1, 2], [3], [4, 5]]


@pytest.mark.parametrize("query", [
    "flipcolor { #(a attacks K) == 2 }",
    "pin from [RQ] through [qr] to k",  # the pinned column bounds it; the pinners are the engine's to check
    "#(A attacks (. attackedby k)) >= 2",
    "shift {Kg1 Rf1} ray (R k)",  # refused by a kernel at run time: the rest by candidates
])
@pytest.mark.parametrize("chunk_rows", [250_000, 100])
def test_a_row_local_plan_read_by_its_where_gives_the_tree_walkers_answer(db, monkeypatch, query, chunk_rows) -> None:
    """The columnar engine reading a row-local plan's candidates by its WHERE, batches of a few
    games (a scan of several, grown as the rows read per position allow), and where it gives
    up, the rest confirmed from fetched candidates."""
    monkeypatch.setattr(columnar_run, "BATCH_POSITIONS", 150)
    monkeypatch.setattr(columnar_run, "SCANNED_POSITIONS", 300)
    monkeypatch.setattr(columnar_run, "CHUNK_POSITIONS", chunk_rows)
    monkeypatch.setattr(columnar_run, "SCANNED_CHUNK_POSITIONS", 2000)
    wheres = []
    original = columnar_run.confirm

    def spy(*args, **kwargs):
        wheres.append(kwargs.get("where"))
        return original(*args, **kwargs)

    monkeypatch.setattr(columnar_run, "confirm", spy)
    for variations in (False, True):
        fast = run(db, query, variations=variations)
        assert list(fast.matches.items()) == list(run(db, query, variations=variations, engine="python").matches.items())
        assert fast.candidates >= fast.positions
    assert wheres and wheres[0] is not None


def test_a_transform_member_defined_nowhere_in_a_batch_adds_no_kind(db, monkeypatch) -> None:
    """A game a batch: in a 1-0 game the colour-swapped member ({result 0-1 ...}) matches at no
    row, so it has no number; the transform is the other member's number, not refused."""
    query = 'flipcolor {result 1-0 sort "material" power A}'
    refusals = []
    original = columnar_run.confirm

    def spy(*args, **kwargs):
        left, refusal = original(*args, **kwargs)
        refusals.append(refusal)
        return left, refusal

    monkeypatch.setattr(columnar_run, "BATCH_GAMES", 1)
    monkeypatch.setattr(columnar_run, "confirm", spy)
    assert _answer(db, query) == _answer(db, query, "python")
    assert refusals == [None]


def test_a_value_no_kernel_takes_sends_the_rest_to_the_tree_walker(db, monkeypatch) -> None:
    """The if's branches are a set and a bare match: the kernel refuses at run time, and the
    games from that batch on are answered by the tree-walker, the same as it answers them."""
    query = "piece x in N {if check x attacks k else wtm}"
    calls = []
    original = columnar_run.confirm

    def spy(*args, **kwargs):
        left, refusal = original(*args, **kwargs)
        calls.append((len(left), refusal))
        return left, refusal

    monkeypatch.setattr(columnar_run, "confirm", spy)
    assert _answer(db, query) == _answer(db, query, "python")
    assert calls and calls[0][0] > 0 and calls[0][1] is not None


@pytest.mark.parametrize("query, engine", [
    ("piece x in N { x attacks k }", "the columnar engine"),
    ("echo (s t) { s & t == . t > s }", "the columnar engine"),
    ("path --", "the columnar engine"),
    ("path focus Q --", "the columnar engine"),
    ("path max ply --", "the tree-walking evaluator: 'path max' has no columnar kernel yet"),
    ('tag "White" ~~ "Ka"', "the tree-walking evaluator"),
])
def test_explain_names_the_engine_that_confirms(db, query, engine) -> None:
    assert postfilter(plan_for(db, query, variations=True)).startswith(engine)


@pytest.mark.parametrize("query, rows_only", [
    ("flipcolor { piece x in N { x attacks k x attacks [qr] } }", True),  # the position alone
    ("square s in [qrbn] { #(A attacks s) >= 2 }", True),
    ("flipcolor { wtm #(a attacks K) == 2 }", True),  # a fact computed in the read, then the moves' columns
    ("parent : {Q attacks k}", False),  # another position: whole games
    ("line --> check {2,} --> mate", False),
])
def test_a_query_of_the_position_alone_reads_its_candidate_rows_alone(db, monkeypatch, query, rows_only) -> None:
    """A frame of whole games costs every position of each candidate game; a query that looks at
    no other position needs its candidate rows alone, and gets the same answer from them."""
    sizes = []
    original = columnar_run.read

    def spy(*args, **kwargs):
        chunk = original(*args, **kwargs)
        sizes.append((chunk.rows_only, chunk.size))
        return chunk

    monkeypatch.setattr(columnar_run, "read", spy)
    assert _answer(db, query) == _answer(db, query, "python")
    assert sizes and all(only == rows_only for only, _ in sizes)


def test_a_kernel_that_walks_the_tree_gets_whole_games_after_all(db, monkeypatch) -> None:
    """Were the analysis wrong about a query (said to read its own row alone while it reads its
    parent's), the frame of candidate rows refuses the tree walk and the batch is read whole."""
    from cqlindex.query.prepare import prepare
    from cqlindex.store.database import connect

    query = "parent : {Q attacks k}"
    con = connect(db)
    try:
        candidates: dict[int, list[int]] = {}
        for game, position in con.execute("SELECT gamenumber, positionid FROM positions ORDER BY 1, 2").fetchall():
            candidates.setdefault(game, []).append(position)
        found: dict[int, list[int]] = {}
        left, refusal = columnar_run.confirm(con, prepare(query, "<query>", variations=True), True, candidates,
                                             lambda game, ids, _: ids and found.__setitem__(game, ids),
                                             row_local=True)
    finally:
        con.close()
    assert not left and refusal is None
    assert found and found == dict(run(db, query, variations=True, engine="python").matches)


def test_a_frame_comes_in_order_whatever_order_its_scan_reads(db) -> None:
    """Frames are read without an ORDER BY (an index's insertion order is already theirs). From a
    positions table stored in another order, a frame still comes out in (gamenumber, positionid)
    order, with the columns read later (the moves') lined up with the first ones."""
    import duckdb
    import numpy as np

    from cqlindex.columnar.frame import load

    con = duckdb.connect()
    try:
        con.execute(f"ATTACH '{db}' AS src (READ_ONLY)")
        con.execute("CREATE TABLE positions AS SELECT * FROM src.positions ORDER BY hash(gamenumber * 7919 + positionid)")
        games = [g for (g,) in con.execute("SELECT DISTINCT gamenumber FROM positions ORDER BY 1").fetchall()]
        frame = load(con, games, True, {})
        moves = frame.move_to  # read now, by a second scan
        expected = con.execute("SELECT gamenumber, positionid, wk, coalesce(move_to::INTEGER, -1) AS move_to FROM positions "
                               "ORDER BY gamenumber, positionid").fetchnumpy()
    finally:
        con.close()
    assert not (np.diff(expected["gamenumber"]) == 0).all()
    assert np.array_equal(frame.gamenumber, expected["gamenumber"])
    assert np.array_equal(frame.positionid, expected["positionid"])
    assert np.array_equal(frame.boards[0], expected["wk"].view(np.uint64))
    assert np.array_equal(moves, expected["move_to"])


@pytest.mark.parametrize("pick", [
    lambda games: games,                    # consecutive: read by the range alone
    lambda games: games[::2],               # gaps: the range and the list
    lambda games: games[:1] + games[-1:],   # the ends of a range, nothing between
    lambda games: [],
])
@pytest.mark.parametrize("variations", [True, False])
def test_a_frame_holds_its_batchs_games_and_no_other(db, pick, variations) -> None:
    import duckdb

    from cqlindex.columnar.frame import load

    con = duckdb.connect(str(db), read_only=True)
    try:
        every = [g for (g,) in con.execute("SELECT gamenumber FROM games ORDER BY 1").fetchall()]
        batch = pick(every)
        frame = load(con, batch, variations, {}, games=True)
        mainline = "" if variations else " AND mainline"
        rows = con.execute(f"SELECT count(*) FROM positions WHERE list_contains(?, gamenumber){mainline}",
                           [batch]).fetchone()[0]
    finally:
        con.close()
    assert len(every) > 3
    assert sorted(set(frame.gamenumber.tolist())) == batch
    assert frame.size == rows
    assert sorted(frame.games) == batch


@pytest.mark.parametrize("games, ids", [
    ([], []),
    ([5], [2]),
    ([1, 1, 1, 4, 4, 9], [0, 3, 7, 1, 2, 0]),   # game by game, as frames give them
    ([4, 1, 4, 1, 9], [1, 0, 2, 3, 0]),         # not: still each game's hits in their order
])
def test_hits_grouped_by_game(games: list[int], ids: list[int]) -> None:
    from cqlindex.columnar.run import _by_game

    expected: dict[int, list[int]] = {}
    for game, pid in zip(games, ids):
        expected.setdefault(game, []).append(pid)
    got = _by_game(np.array(games, np.int64), np.array(ids, np.int64))
    assert got == expected and list(got) == list(expected)


@pytest.mark.parametrize("query", ["echo (s t) { s & t == . }", "echo (s t) in all { s & t == . s:ply != ply }"])
def test_echo_keys_that_collide_everywhere_cost_time_not_answers(db, monkeypatch, query) -> None:
    """The same-board echo groups rows by a hash of their game and board: with every row of a
    frame hashing alike (games with the same first board among them), only the cut where the
    game changes and the body's own test keep apart what differs."""
    from cqlindex.columnar import kernels_echo

    monkeypatch.setattr(kernels_echo, "_in_game", lambda cm, keys: np.zeros(cm.frame.size, np.uint64))
    monkeypatch.setattr(columnar_run, "BATCH_GAMES", 1000)
    assert _answer(db, query) == _answer(db, query, "python")


@pytest.mark.parametrize("size, distinct", [(0, 1), (1, 1), (50, 1), (5000, 40), (5000, 4000), (60_000, 59_000)])
def test_rows_of_equal_keys_come_together_in_ascending_order(size: int, distinct: int) -> None:
    """The same-board echo's order (rows alone with their key first, the rest sorted): a
    permutation in which each key's rows are one run, ascending, whatever the share of repeats."""
    from cqlindex.columnar.kernels_echo import _sorted_where_shared

    rng = np.random.default_rng(size + distinct)
    values = rng.integers(0, 2**63, distinct, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    keys = values[rng.integers(0, distinct, size)]
    order = _sorted_where_shared(keys)
    assert sorted(order.tolist()) == list(range(size))
    runs: dict[int, list[int]] = {}
    previous = None
    for row in order.tolist():
        key = int(keys[row])
        assert key == previous or key not in runs  # a key seen before comes back only in its run
        runs.setdefault(key, []).append(row)
        previous = key
    assert all(rows == sorted(rows) for rows in runs.values())


def test_games_whose_rows_are_not_whole_go_back_to_the_tree_walker(db) -> None:
    """A frame of whole games rebuilds each game's tree from its rows; where a game's first row is
    missing (a Spark task handed its candidate rows alone), the frame says it cannot."""
    import duckdb

    from cqlindex.columnar.frame import load
    from cqlindex.columnar.values import NotColumnar

    con = duckdb.connect()
    try:
        con.execute(f"ATTACH '{db}' AS source (READ_ONLY)")
        games = [g for (g,) in con.execute(
            "SELECT DISTINCT gamenumber FROM source.positions ORDER BY 1 LIMIT 3").fetchall()]
        con.execute("CREATE TABLE positions AS SELECT * FROM source.positions ORDER BY gamenumber, positionid")
        assert load(con, games, True, {}).size > 0  # whole: read
        con.execute("DELETE FROM positions WHERE gamenumber = ? AND positionid = 0", [games[1]])
        with pytest.raises(NotColumnar):
            load(con, games, True, {})
    finally:
        con.close()


def test_every_candidate_game_is_handed_on_hit_or_not(db) -> None:
    """``keep`` hears of every candidate game, a hit or not: a Spark executor counts the
    candidates it confirmed by these calls (tests/test_exec_spark.py compares the counts)."""
    import duckdb

    from cqlindex.query.prepare import prepare

    prepared = prepare("flipcolor { piece x in N { x attacks k } }", "<test>", variations=True)
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT gamenumber, positionid FROM positions WHERE positionid % 7 = 0").fetchall()
        candidates: dict[int, list[int]] = {}
        for game, position in rows:
            candidates.setdefault(game, []).append(position)
        heard: dict[int, list[int]] = {}
        left, _ = columnar_run.confirm(con, prepared, True, candidates, lambda g, ids, _: heard.__setitem__(g, ids))
    finally:
        con.close()
    assert not left and sorted(heard) == sorted(candidates)
    assert any(not ids for ids in heard.values()) and any(ids for ids in heard.values())


@pytest.mark.parametrize("query", ["flipcolor { #(a attacks K) == 2 }", "pin from [RQ] through [qr] to k"])
def test_a_where_scans_hits_are_kept_as_arrays(db, query) -> None:
    """Without sort values or a matchcount range, a WHERE scan hands its hits on as arrays (no
    list per game); with a range, game by game as before: the same matches, the tree-walker's."""
    from cqlindex.exec.game_rows import GameRows

    arrays = run(db, query, variations=True)
    assert isinstance(arrays.matches, GameRows) and arrays.positions > 5
    per_game = run(db, "cql(matchcount 1 100000) " + query, variations=True)
    assert not isinstance(per_game.matches, GameRows)
    expected = run(db, query, variations=True, engine="python").matches
    assert list(arrays.matches.items()) == list(per_game.matches.items()) == list(expected.items())
