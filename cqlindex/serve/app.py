"""The web app: the page, its static files and the HTTP API, as one Starlette application.

Every route reads; none writes (the indexes are opened read-only, downloads are written to a
temporary file that is deleted once sent, and ``POST /api/cancel`` only stops a run). A route's
failure is an answer, never a crashed server: a bad query is a 400 with the message and, for a
CQL error, its line and column; a timeout a 504; a cancelled run a 409; anything unforeseen a
500 with its message. The API:

- ``GET /api/databases``: the indexes served, with their counts.
- ``GET /api/query?cql=...&db=0&variations=1&offset=0&limit=100&sort=white&desc=1``: a page of the
  result (the totals, the page's games, their records as ``--format json``). Options as the CLI's:
  ``gamenumber``, ``matchcount`` (``A`` or ``A-B``), ``player``, ``white``, ``black``, ``event``,
  ``site``, ``year``, ``result``, ``flipcolor`` (and ``flip``, ``shift``, ``reversecolor``),
  ``timeout`` (seconds, capped by the server's), ``token`` (a name to cancel the run by).
- ``POST /api/cancel?token=...``: stop that run.
- ``GET /api/explain?cql=...``: where each filter is decided (``--explain --format json``).
- ``GET /api/sql?sql=...&limit=1000``: read-only SQL in ``cqlindex sql``'s sandbox.
- ``GET /api/games/N``: the game's tags and tree (:mod:`cqlindex.serve.games`).
- ``GET /api/board.svg?fen=...&move=e2e4&flip=1``: a board drawn by python-chess.
- ``GET /api/download?format=pgn|csv|json&cql=...``: the result as ``cqlindex query -o`` writes it.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path

import chess
import chess.svg
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from cqlindex.errors import CqlindexError
from cqlindex.output.formats import Format, Options, write
from cqlindex.serve.games import game_json
from cqlindex.serve.pool import JobError, Pool, error_info
from cqlindex.serve.request import database_index, flag, integer, query_spec
from cqlindex.serve.results import Results, page
from cqlindex.store.database import connect, summary

#: Games a page may hold at most.
MAX_PAGE = 1000
#: Rows an SQL answer may hold at most (the total is said beside them).
MAX_SQL_ROWS = 10_000
#: Queries whose lane the server remembers (see :meth:`State.lane_of`), the least recently asked forgotten first.
LANES_KEPT = 512
#: The formats a result downloads as, with their suffix and media type.
DOWNLOADS = {"pgn": (Format.pgn, "application/vnd.chess-pgn"), "csv": (Format.csv, "text/csv"),
             "json": (Format.json, "application/json")}
_STATUS = {"CqlSyntaxError": 400, "CqlUnsupportedError": 400, "CqlError": 400, "InputError": 400,
           "DatabaseError": 400, "OutputError": 400, "QueryTimeout": 504, "Cancelled": 409}


class State:
    """What the routes share: the indexes, a read-only connection to each, the pool and the results."""

    def __init__(self, databases: list[Path], workers: int, timeout: float) -> None:
        self.databases = [Path(d).resolve() for d in databases]
        self.connections = [connect(d) for d in self.databases]
        self._local = threading.local()
        self._cursors: list = []
        self._cursors_lock = threading.Lock()
        self._lanes: OrderedDict[tuple, str] = OrderedDict()
        self._lanes_lock = threading.Lock()
        self.pool = Pool(workers)
        self.results = Results(self.pool, [str(d) for d in self.databases], timeout, self.lane_of)
        self.timeout = timeout

    def lane_of(self, spec) -> str:
        """``quick`` for a query SQL decides (its plan is exact), else ``slow`` (see :class:`Pool`).
        Planned here, on the index this process keeps open; a query the planner refuses is said
        here too, without queueing.

        Remembered per query (its text, index and variations; not its game range or match count,
        which a user refining a search changes most): planning costs 5-8 ms of this process's
        time, which every route shares (its Python holds the GIL), for an answer that seldom
        changes. The lane decides only where a query waits, never what it answers: a lane kept
        for a range where the plan would differ costs at worst some waiting."""
        from cqlindex.exec.run import plan_for

        key = (spec.db, spec.text, spec.variations, spec.source)
        with self._lanes_lock:
            if key in self._lanes:
                self._lanes.move_to_end(key)
                return self._lanes[key]
        plan = plan_for(self.databases[spec.db], spec.text, variations=spec.variations, source=spec.source,
                        gamenumbers=spec.gamenumbers, con=self.cursor(spec.db))
        lane = "quick" if plan.exact else "slow"
        with self._lanes_lock:
            self._lanes[key] = lane
            while len(self._lanes) > LANES_KEPT:
                self._lanes.popitem(last=False)
        return lane

    def cursor(self, db: int):
        """This thread's cursor on index ``db``, kept open for its next request: what the reads
        learn of the index once per connection (:func:`cqlindex.store.rowmap.holds`, a query each
        of several milliseconds) is learnt once per thread, not on every request. Used by the
        route's thread alone (the routes' work runs in a pool of threads), never closed by it."""
        cursors = getattr(self._local, "cursors", None)
        if cursors is None:
            cursors = self._local.cursors = {}
        if db not in cursors:
            cursors[db] = self.connections[db].cursor()
            with self._cursors_lock:
                self._cursors.append(cursors[db])
        return cursors[db]

    def close(self) -> None:
        self.pool.close()
        with self._cursors_lock:
            for cursor in self._cursors:
                cursor.close()
        for con in self.connections:
            con.close()


def create_app(databases: list[Path], *, workers: int = 2, timeout: float = 60.0) -> Starlette:
    """The application over ``databases`` (opened now: a bad path fails here, before serving)."""
    state = State(databases, workers, timeout)

    @asynccontextmanager
    async def lifespan(app):
        try:
            yield
        finally:
            state.close()

    static = resources.files("cqlindex.serve") / "static"
    routes = [
        Route("/", lambda request: FileResponse(str(static / "index.html"))),
        Mount("/static", StaticFiles(directory=str(static)), name="static"),
        Route("/api/databases", _handler(state, _databases)),
        Route("/api/query", _handler(state, _query)),
        Route("/api/cancel", _handler(state, _cancel), methods=["POST"]),
        Route("/api/explain", _handler(state, _explain)),
        Route("/api/sql", _handler(state, _sql)),
        Route("/api/games/{number}", _handler(state, _game)),
        Route("/api/board.svg", _handler(state, _board)),
        Route("/api/download", _handler(state, _download)),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.serve = state
    return app


def _handler(state: State, route: Callable) -> Callable:
    """``route`` with every failure turned into a JSON answer of the right status."""
    async def handle(request: Request) -> Response:
        try:
            return await route(state, request)
        except JobError as error:
            return _error(error.info)
        except CqlindexError as error:
            return _error(error_info(error))
        except Exception as error:  # noqa: BLE001 - the server stays up on any input
            return _error({"kind": "InternalError", "message": f"{type(error).__name__}: {error}"}, 500)

    return handle


def _error(info: dict, status: int | None = None) -> JSONResponse:
    return JSONResponse({"error": info}, status_code=status or _STATUS.get(info["kind"], 400))


async def _databases(state: State, request: Request) -> Response:
    def work():
        listed = []
        for number, path in enumerate(state.databases):
            data = summary(state.cursor(number))
            listed.append({"db": number, "name": path.name, "path": str(path), "games": data["games"],
                           "positions": data["positions"]})
        return listed

    return JSONResponse({"databases": await run_in_threadpool(work), "timeout": state.timeout})


async def _result(state: State, request: Request):
    params = request.query_params
    spec = await run_in_threadpool(query_spec, params, len(state.databases))
    timeout = params.get("timeout")
    seconds = None
    if timeout:
        try:
            seconds = float(timeout)
        except ValueError:
            seconds = -1
        if not 0 < seconds:
            raise JobError({"kind": "InputError", "message": f"timeout takes a positive number of seconds, not "
                                                             f"{timeout!r}"})
    return spec, await state.results.get(spec, token=params.get("token") or None, timeout=seconds)


async def _query(state: State, request: Request) -> Response:
    spec, entry = await _result(state, request)
    params = request.query_params
    offset = integer(params, "offset", 0)
    limit = integer(params, "limit", 100, low=0, high=MAX_PAGE)
    sort = params.get("sort", "")
    descending = bool(flag(params, "desc"))

    def work():
        try:
            return page(state.cursor(spec.db), entry, offset=offset, limit=limit, sort=sort, descending=descending)
        except ValueError as error:
            raise JobError({"kind": "InputError", "message": str(error)}) from None

    return _json(await run_in_threadpool(work))


async def _cancel(state: State, request: Request) -> Response:
    token = request.query_params.get("token", "")
    return JSONResponse({"cancelled": state.results.cancel(token)})


async def _explain(state: State, request: Request) -> Response:
    from cqlindex.exec.run import plan_for
    from cqlindex.plan.planner import explain_data

    spec = await run_in_threadpool(query_spec, request.query_params, len(state.databases))

    def work():
        plan = plan_for(state.databases[spec.db], spec.text, variations=spec.variations, source=spec.source,
                        gamenumbers=spec.gamenumbers, con=state.cursor(spec.db))
        return explain_data(plan)

    return _json(await run_in_threadpool(work))


async def _sql(state: State, request: Request) -> Response:
    params = request.query_params
    db = database_index(params, len(state.databases))
    text = params.get("sql", "")
    if not text.strip():
        return _error({"kind": "InputError", "message": "type some SQL, e.g. SELECT count(*) FROM games"})
    limit = integer(params, "limit", 1000, low=0, high=MAX_SQL_ROWS)
    job = state.pool.submit("sql", state.timeout, db=str(state.databases[db]), text=text, limit=limit)
    token = params.get("token")
    if token:  # cancellable as a query is
        state.results.track(token, job)
    try:
        answer = await asyncio.shield(asyncio.wrap_future(job.future))
    finally:
        if token:
            state.results.untrack(token)
    return _json(answer)


async def _game(state: State, request: Request) -> Response:
    params = request.query_params
    db = database_index(params, len(state.databases))
    number = request.path_params["number"]
    if not number.isdigit():
        return _error({"kind": "InputError", "message": f"a game number is a whole number, not {number!r}"})

    def work():
        return game_json(state.cursor(db), int(number))

    try:
        return _json(await run_in_threadpool(work))
    except CqlindexError as error:
        return _error(error_info(error), 404)


async def _board(state: State, request: Request) -> Response:
    params = request.query_params
    try:
        board = chess.Board(params.get("fen", chess.STARTING_FEN))
    except ValueError as error:
        return _error({"kind": "InputError", "message": f"not a FEN: {error}"})
    lastmove = None
    move = params.get("move", "")
    if move:
        try:
            lastmove = chess.Move.from_uci(move)
        except (ValueError, IndexError):
            return _error({"kind": "InputError", "message": f"not a move in UCI form (e2e4): {move!r}"})
    check = board.king(board.turn) if board.is_check() else None
    size = integer(params, "size", 400, low=64, high=1200)
    svg = chess.svg.board(board, lastmove=lastmove, check=check, flipped=bool(flag(params, "flip")), size=size)
    return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "max-age=3600"})


async def _download(state: State, request: Request) -> Response:
    chosen = request.query_params.get("format", "pgn")
    if chosen not in DOWNLOADS:
        return _error({"kind": "InputError", "message": f"format is one of {', '.join(DOWNLOADS)}, not {chosen!r}"})
    fmt, media = DOWNLOADS[chosen]
    spec, entry = await _result(state, request)
    result = entry.result
    header = result.query.header

    def work() -> str:
        # As `cqlindex query DB QUERY -o FILE` writes it: its own connection, its options, its file mode.
        handle, name = tempfile.mkstemp(prefix="cqlindex-serve-", suffix=f".{chosen}")
        os.close(handle)
        con = connect(state.databases[spec.db])
        try:
            with open(name, "w", encoding="utf-8", newline="") as out:
                write(con, result, fmt, out, Options(matchstring=header.matchstring or "CQL", silent=header.silent,
                                                     database=str(state.databases[spec.db])))
        except BaseException:
            os.unlink(name)
            raise
        finally:
            con.close()
        return name

    name = await run_in_threadpool(work)
    return FileResponse(name, media_type=media, filename=f"cqlindex-result.{chosen}",
                        background=BackgroundTask(os.unlink, name))


def _json(data) -> Response:
    """JSON with whatever DuckDB hands back (dates, decimals) as text."""
    return Response(json.dumps(data, default=str, ensure_ascii=False), media_type="application/json")

