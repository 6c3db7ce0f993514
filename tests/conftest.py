"""Shared fixtures: where ../shared is, and small builds reused across test modules.

Tests that read ../shared skip on a developer machine without it, but fail under CI=true:
a missing data set must never turn into a green run that tested nothing.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import chess
import pytest

from cqlindex.board.squares import to_unsigned

SHARED = Path(os.environ.get("CQLINDEX_SHARED", Path(__file__).resolve().parents[2] / "shared"))


def missing(message: str) -> None:
    """Something a test needs is not here: a failure under CI=true, a skip elsewhere."""
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def shared_path(relative: str) -> Path:
    """The path of a file under ../shared; fails (CI) or skips (elsewhere) when it is absent."""
    path = SHARED / relative
    if not path.exists():
        missing(f"shared data missing: {path}")
    return path


def artifacts() -> Path:
    """Where a test leaves what a person looks at after CI (screenshots): $CQLINDEX_ARTIFACTS, or a
    folder in the temporary directory."""
    folder = Path(os.environ.get("CQLINDEX_ARTIFACTS") or Path(tempfile.gettempdir()) / "cqlindex-artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def program(names: tuple[str, ...], what: str) -> str:
    """The first of ``names`` on PATH (a browser, its driver); :func:`missing` when none is."""
    for name in names:
        if path := shutil.which(name):
            return path
    missing(f"no {what} on PATH (looked for {', '.join(names)}); install Debian's package")
    raise AssertionError("unreachable")


#: The modules that take longest on 2 cores (measured over a whole run), in that order. pytest-xdist
#: hands out whole modules (--dist loadfile) in collection order (--no-loadscope-reorder), so these
#: start first and the short ones fill the gaps at the end: no long module starts last and runs
#: alone while the other core idles. A path that no longer exists fails the collection.
LONGEST_FIRST = (
    "test_evaluate_acceptance.py", "test_ingest_pipeline.py", "filters/test_moves.py",
    "test_evaluate_refusals_lifted.py", "test_evaluate_reference_sample.py", "test_evaluate_examples.py",
    "test_exec_spark.py", "test_evaluate_similarposition.py", "filters/test_sets.py",
    "test_ingest_compiled.py", "test_output_movetext.py", "filters/test_sequences.py",
    "test_seed_000_transforms.py", "test_evaluate_relation.py", "test_output_pgn.py",
    "test_plan_property.py", "test_output_stream.py", "test_exec_run.py", "test_plan_offsets.py",
    "test_cql_limits.py", "filters/test_position.py", "test_board_material.py",
)


#: Modules whose tables run each case on both engines, and the share of the tree-walker's cells
#: (parameter ``engine="python"``) the default suite runs: one in N of each test function's, in
#: collection order, so every table keeps cells spread over its rows. The tree-walker is the
#: oracle the default engine is held to; it costs 2-5 times the default engine's time on these
#: cases (a fifth of the default suite's time), so its other cells run with -m slow, which CI
#: runs after the suite: together they run every cell.
TREE_WALKER_SHARE = {
    "test_evaluate_acceptance.py": 2, "test_evaluate_reference_sample.py": 4, "filters/test_moves.py": 4,
    "filters/test_sequences.py": 4, "filters/test_variables.py": 4, "filters/test_strings.py": 4,
    "test_seed_000_transforms.py": 4, "test_evaluate_dash.py": 4, "test_evaluate_currenttransform.py": 4,
    "test_evaluate_similarposition.py": 4, "test_evaluate_strings.py": 4,
    "test_evaluate_path_params.py": 4,
}


def _tree_walker_share(items, here: Path) -> None:
    """Mark slow the tree-walker cells of :data:`TREE_WALKER_SHARE`'s modules but one in N."""
    share = {str(here / name): n for name, n in TREE_WALKER_SHARE.items()}
    seen: dict[tuple[str, str], int] = {}
    for item in items:
        n = share.get(str(item.path))
        params = getattr(getattr(item, "callspec", None), "params", {})
        if n is None or params.get("engine") != "python" or item.get_closest_marker("slow"):
            continue
        key = (str(item.path), item.originalname)
        seen[key] = i = seen.get(key, -1) + 1
        if i % n:
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(tryfirst=True)  # before pytest's own -m selection reads the marks
def pytest_collection_modifyitems(config, items) -> None:
    """The modules of :data:`LONGEST_FIRST` first, in its order, the rest as collected; the
    tree-walker's cells of :data:`TREE_WALKER_SHARE` but one in N marked slow."""
    here = Path(__file__).parent
    missing = [name for name in (*LONGEST_FIRST, *TREE_WALKER_SHARE) if not (here / name).exists()]
    if missing:
        raise pytest.UsageError(f"tests/conftest.py names modules that do not exist: {missing}")
    _tree_walker_share(items, here)
    rank = {str(here / name): i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(str(item.path), len(rank)))  # stable: the rest keep their order


@pytest.fixture(autouse=True, scope="session")
def _plan_cache_folder(tmp_path_factory):
    """The plans the command line keeps (cqlindex.exec.plan_cache) go to this session's own folder,
    not the user's; subprocesses inherit it."""
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))


def built_once(tmp_path_factory, name: str, make) -> Path:
    """The folder ``name`` of this test run, filled by ``make(folder)`` once for all xdist workers.

    Workers share the run's base temporary folder; a lock file makes the first one build while
    the others wait, and a marker written last says the build is whole. Indexes built here are
    only read by the tests (the engine opens them read-only), so workers may share them."""
    import fcntl

    base = tmp_path_factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "shared-builds"
    root.mkdir(exist_ok=True)
    folder, done = root / name, root / f"{name}.done"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # a worker that died half-way
            folder.mkdir()
            make(folder)
            done.touch()
    return folder


#: Read-only connections held for the whole session, one per shared index (see :func:`anchored`).
_ANCHORS: dict[Path, object] = {}


def anchored(index: Path) -> Path:
    """``index``, kept open read-only by this process until the session ends, and returned.

    Creating a DuckDB database instance costs 20-40 ms, and every ``run()`` connects (often
    twice); while one connection to a file is open, DuckDB hands each new connection to it the
    same instance in well under a millisecond. The shared indexes are only read, so one held
    connection makes the thousands of runs on them cheap. A test that locks an anchored
    instance's configuration (the SQL sandbox does) would break the runs after it: the check
    below fails that test by name."""
    if index not in _ANCHORS:
        import duckdb

        _ANCHORS[index] = duckdb.connect(str(index), read_only=True)
    return index


#: How many times this process opened the SQL sandbox (the one code path that locks an
#: instance's configuration), counted by :func:`_count_sandboxes`.
_SANDBOXES = [0]


@pytest.fixture(autouse=True, scope="session")
def _count_sandboxes():
    """Count :func:`cqlindex.store.sandbox.open_sandboxed` calls, so that the check below runs
    only after a test that opened one: asking every anchored instance after every test cost
    30-70 ms a test once a worker held a few dozen indexes (a sixth of the suite's time)."""
    from cqlindex.store import sandbox

    opened = sandbox.open_sandboxed

    def counted(*args, **kwargs):
        _SANDBOXES[0] += 1
        return opened(*args, **kwargs)

    sandbox.open_sandboxed = counted
    yield
    sandbox.open_sandboxed = opened


@pytest.fixture(autouse=True)
def _anchors_stay_unlocked(request):
    """Fail the test that left a shared index's instance with its configuration locked (the SQL
    sandbox locks it; a test that opened none is not asked about)."""
    before = _SANDBOXES[0]
    yield
    if _SANDBOXES[0] == before:
        return
    for index, con in list(_ANCHORS.items()):
        if con.execute("SELECT current_setting('lock_configuration')").fetchone()[0]:
            del _ANCHORS[index]
            con.close()  # DuckDB drops the locked instance with its last connection: later tests get a fresh one
            pytest.fail(f"{request.node.nodeid} locked the configuration of the shared index {index}: "
                        "open the SQL sandbox on an index of the test's own")


@pytest.fixture(scope="session")
def build_db(tmp_path_factory):
    """Build (once per test run and input, whatever the number of workers) an index of shared
    files; returns its path."""
    import hashlib

    from cqlindex.ingest.pipeline import build

    cache: dict[tuple[str, ...], Path] = {}

    def _build(*relative: str, workers: int = 2) -> Path:
        key = (*relative, str(workers))
        if key not in cache:
            paths = [str(shared_path(r)) for r in relative]
            name = "db-" + hashlib.sha1("\0".join(key).encode()).hexdigest()[:16]
            folder = built_once(tmp_path_factory, name,
                                lambda out: build(paths, out / "index.duckdb", workers=workers))
            cache[key] = anchored(folder / "index.duckdb")
        return cache[key]

    return _build


def plan_candidates(db: Path, query: str, variations: bool) -> set[tuple[int, int]]:
    """The (game, position) pairs the SQL of ``query``'s plan returns: its candidates."""
    import duckdb

    from cqlindex.exec.run import plan_for

    plan = plan_for(db, query, variations=variations)
    con = duckdb.connect(str(db), read_only=True)
    try:
        return set(con.execute(plan.sql).fetchall())
    finally:
        con.close()


def narrowed_soundly(db: Path, query: str, variations: bool) -> set[tuple[int, int]]:
    """The plan's candidates of ``query``, once the default engine has given the tree-walker's
    matches (some) and every match is among the candidates: what a narrowing must keep."""
    from cqlindex.exec.run import run

    fast = run(db, query, variations=variations)
    slow = run(db, query, variations=variations, engine="python")
    assert fast.matches == slow.matches and fast.positions > 0
    candidates = plan_candidates(db, query, variations)
    assert {(game, pid) for game, ids in slow.matches.items() for pid in ids} <= candidates
    return candidates


BITBOARDS = ("wk", "wq", "wr", "wb", "wn", "wp", "bk", "bq", "br", "bb", "bn", "bp")


def board_of(row: dict) -> chess.Board:
    """A python-chess board rebuilt from a positions row, written independently of store/trees.py."""
    board = chess.Board(None)
    for name in BITBOARDS:
        color = chess.WHITE if name[0] == "w" else chess.BLACK
        piece = chess.Piece.from_symbol(name[1]).piece_type
        for square in chess.SquareSet(to_unsigned(row[name])):
            board.set_piece_at(square, chess.Piece(piece, color))
    board.turn = row["wtm"]
    board.castling_rights = to_unsigned(row["castling_rights"])
    board.ep_square = row["ep_square"]
    board.halfmove_clock = row["halfmove_clock"]
    return board


def built_rows(folder: Path, relative: tuple[str, ...], reader: str) -> Iterator[dict]:
    """Every positions row, as a dict, of an index of the shared files built into ``folder`` by ``reader``."""
    from cqlindex.ingest.pipeline import build
    from cqlindex.store.database import connect

    db = folder / f"{reader}.duckdb"
    build([str(shared_path(p)) for p in relative], db, workers=2, reader=reader)
    con = connect(db)
    try:
        cursor = con.execute("SELECT * FROM positions")
        names = [d[0] for d in cursor.description]
        for values in cursor.fetchall():
            yield dict(zip(names, values))
    finally:
        con.close()


INLINE_HEADERS = '[Event "t"]\n[Site "?"]\n[Date "2000.01.01"]\n[Round "1"]\n[White "a"]\n[Black "b"]\n[Result "*"]\n'


def build_inline(root: Path, games: dict[str, str | tuple[str, str]]) -> dict[str, Path]:
    """One index per small inline game: ``name -> movetext`` or ``name -> (extra tags, movetext)``."""
    from cqlindex.ingest.pipeline import build

    out = {}
    for name, game in games.items():
        extra, moves = game if isinstance(game, tuple) else ("", game)
        pgn = root / f"{name}.pgn"
        pgn.write_text(INLINE_HEADERS + extra + "\n" + moves + "\n")
        out[name] = root / f"{name}.duckdb"
        build([str(pgn)], out[name], workers=1)
    return out


from tests.filters.indexes import filter_indexes  # noqa: E402,F401  (the filter tables' indexes, one build per session)
