"""The HTTP API of ``cqlindex serve`` (cqlindex/serve/app.py), through Starlette's test client:
every answer is held to what the command line prints for the same query."""

from __future__ import annotations

import json
import time

import pytest
from starlette.testclient import TestClient

from cqlindex.serve.app import create_app
from serve_fixtures import SLOW, cli, sample_db  # noqa: F401 - the fixture

#: (API parameters, the same query's CLI arguments after DB).
QUERIES = [
    ({"cql": "mate"}, ["mate"]),
    ({"cql": "mate", "variations": "1"}, ["mate", "--variations"]),
    ({"cql": "check", "gamenumber": "1-7", "flipcolor": "1"}, ["check", "-gamenumber", "1", "7", "-flipcolor"]),
    ({"cql": 'sort "longest" ply mate'}, ['sort "longest" ply mate']),
    ({"cql": "btm check", "matchcount": "2-5", "variations": "1"}, ["btm check", "-matchcount", "2", "5",
                                                                  "--variations"]),
    ({"cql": "mate", "player": "Anderssen", "year": "1850-1855"}, ["mate", "-player", "Anderssen", "-year", "1850",
                                                                   "1855"]),
]


@pytest.fixture(scope="module")
def client(sample_db):
    with TestClient(create_app([sample_db], workers=2, timeout=30)) as client:
        yield client


def _cli_json(db, args) -> list[dict]:
    done = cli("query", str(db), *args, "--format", "json", "-q")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(("params", "args"), QUERIES)
def test_the_pages_records_are_the_clis_json_in_its_order(client, sample_db, params, args) -> None:
    expected = _cli_json(sample_db, args)
    games = list(dict.fromkeys(r["gamenumber"] for r in expected))
    assert games, "each case matches something"
    records, offset = [], 0
    while True:  # page by page, two games a page
        answer = client.get("/api/query", params={**params, "offset": offset, "limit": 2})
        assert answer.status_code == 200, answer.text
        data = answer.json()
        assert (data["games"], data["positions"]) == (len(games), len(expected))
        assert [row["gamenumber"] for row in data["list"]] == games[offset:offset + 2]
        records += data["records"]
        offset += 2
        if offset >= data["games"]:
            break
    assert records == expected


def test_the_variation_mate_is_marked_in_the_list(client) -> None:
    data = client.get("/api/query", params={"cql": "mate", "variations": "1"}).json()
    marks = {row["gamenumber"]: row["first_match"] for row in data["list"]}
    assert len(marks) == 6 and marks[7] == "4. Qxf7# (variation)"
    assert all("variation" not in mark for game, mark in marks.items() if game != 7)


@pytest.mark.parametrize(("sort", "descending", "key"), [
    ("white", False, lambda row: row["white"]),
    ("white", True, lambda row: row["white"]),
    ("year", True, lambda row: row["year"]),
    ("gamenumber", True, lambda row: row["gamenumber"]),
    ("positions", True, lambda row: row["positions"]),
])
def test_the_list_sorts_by_a_column_across_pages(client, sort, descending, key) -> None:
    base = {"cql": "check", "gamenumber": "1-40", "sort": sort, "desc": "1" if descending else "0"}
    whole = client.get("/api/query", params={**base, "limit": 1000}).json()["list"]
    assert len(whole) > 10
    values = [key(row) for row in whole if key(row) is not None]
    assert values == sorted(values, reverse=descending)
    paged = [row for offset in range(0, len(whole), 7)
             for row in client.get("/api/query", params={**base, "offset": offset, "limit": 7}).json()["list"]]
    assert [r["gamenumber"] for r in paged] == [r["gamenumber"] for r in whole]


def test_sort_values_come_with_their_labels(client) -> None:
    data = client.get("/api/query", params={"cql": 'sort "longest" ply mate'}).json()
    assert data["sort_labels"] == ["longest"]
    assert [row["gamenumber"] for row in data["list"]] == [4, 3, 1, 2, 5]
    plies = [row["sort_values"][0] for row in data["list"]]
    assert plies == sorted(plies, reverse=True)


@pytest.mark.parametrize(("cql", "line", "col", "said"), [
    ("mat", 1, 1, "did you mean 'mate'?"),
    ("check\n  mate {", 2, 9, ""),
    ("Ka1 &&& Kh8", 1, 6, ""),
])
def test_a_bad_query_is_a_400_with_its_line_and_column(client, cql, line, col, said) -> None:
    answer = client.get("/api/query", params={"cql": cql})
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert (error["line"], error["col"]) == (line, col), error
    assert said in error["message"]
    assert error["rendered"].splitlines()[-1].index("^") == 4 + col - 1  # the caret under the spot


@pytest.mark.parametrize(("params", "said"), [
    ({"cql": ""}, "type a query"),
    ({"cql": "mate", "gamenumber": "x"}, "gamenumber"),
    ({"cql": "mate", "offset": "-1"}, "offset"),
    ({"cql": "mate", "limit": "100000"}, "limit"),
    ({"cql": "mate", "db": "3"}, "db"),
    ({"cql": "mate", "sort": "nonsense"}, "sort"),
    ({"cql": "mate", "result": "2-0"}, "-result"),
    ({"cql": "mate", "variations": "maybe"}, "variations"),
    ({"cql": "mate", "timeout": "soon"}, "timeout"),
])
def test_bad_options_are_a_400_naming_them(client, params, said) -> None:
    answer = client.get("/api/query", params=params)
    assert answer.status_code == 400, answer.text
    assert said in answer.json()["error"]["message"]


@pytest.mark.parametrize("fmt", ["pgn", "csv", "json"])
@pytest.mark.parametrize(("params", "args"), [QUERIES[1], QUERIES[3], QUERIES[2]])
def test_a_download_is_byte_for_byte_the_clis_file(client, sample_db, tmp_path, fmt, params, args) -> None:
    target = tmp_path / f"out.{fmt}"
    done = cli("query", str(sample_db), *args, "-o", str(target), "-q")
    assert done.returncode == 0, done.stderr
    answer = client.get("/api/download", params={**params, "format": fmt})
    assert answer.status_code == 200, answer.text
    assert answer.content == target.read_bytes()
    assert len(answer.content) > 100


def test_a_game_has_its_tags_and_its_tree(client) -> None:
    game = client.get("/api/games/7").json()
    assert game["white"] == "White" and game["tags"]["Event"] == "cqlindex demo"
    nodes = {n["positionid"]: n for n in game["nodes"]}
    assert len(nodes) == game["positions"]
    mate = nodes[17]  # the variation mate the query finds
    assert (mate["san"], mate["mainline"], mate["move_from"], mate["move_to"]) == ("Qxf7#", False, "h5", "f7")
    assert nodes[mate["parent"]]["san"] == "Nf6" and mate["is_mate"]
    assert all(nodes[n["parent"]]["ply"] == n["ply"] - 1 for n in nodes.values() if n["parent"] is not None)
    assert sorted(n["child_index"] for n in nodes.values() if n["parent"] == 5) == [0, 1]


@pytest.mark.parametrize(("path", "status"), [("/api/games/99999", 404), ("/api/games/x", 400)])
def test_a_missing_game_is_said(client, path, status) -> None:
    answer = client.get(path)
    assert answer.status_code == status and answer.json()["error"]["message"]


def test_sql_runs_in_the_sandbox(client) -> None:
    data = client.get("/api/sql", params={"sql": "SELECT count(*) AS mates FROM positions WHERE is_mate"}).json()
    assert data == {"columns": ["mates"], "rows": [[6]], "total": 1}
    capped = client.get("/api/sql", params={"sql": "SELECT positionid FROM positions", "limit": 5}).json()
    assert len(capped["rows"]) == 5 and capped["total"] == 24565
    for refused in ("CREATE TABLE x (a INT)", "SELECT * FROM read_csv('/etc/passwd')", "SET threads = 1"):
        answer = client.get("/api/sql", params={"sql": refused})
        assert answer.status_code == 400, refused
        assert answer.json()["error"]["kind"] == "DatabaseError"


def test_explain_says_where_each_filter_is_decided(client) -> None:
    data = client.get("/api/explain", params={"cql": "mate ray (Q k) Q -> b -> k"}).json()
    assert [(f["cql"], f["verdict"]) for f in data["filters"]] == [("mate", "decided"), ("ray (Q k)", "narrowed"),
                                                                   ("Q -> b -> k", "python")]
    assert data["exact"] is False


def test_a_board_is_python_chess_svg(client) -> None:
    answer = client.get("/api/board.svg", params={"fen": "4k3/8/8/8/8/8/8/4K2R w K - 0 1", "move": "e2e1",
                                                  "flip": "1"})
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("image/svg+xml")
    assert answer.text.startswith("<svg") and "lastmove" in answer.text
    assert client.get("/api/board.svg", params={"fen": "not a fen"}).status_code == 400
    assert client.get("/api/board.svg", params={"move": "zz"}).status_code == 400


def test_a_query_past_its_timeout_is_a_504_and_the_server_goes_on(client) -> None:
    answer = client.get("/api/query", params={"cql": SLOW, "variations": "1", "timeout": "0.5"})
    assert answer.status_code == 504, answer.text
    assert answer.json()["error"]["kind"] == "QueryTimeout"
    assert client.get("/api/query", params={"cql": "mate"}).json()["games"] == 5


def test_every_route_reads_only(client) -> None:
    """No route takes a write: the one POST (cancel) stops a run and changes no file."""
    app = client.app
    methods = {route.path: getattr(route, "methods", None) for route in app.routes}
    assert methods.pop("/api/cancel") == {"POST"}
    assert all(m is None or m <= {"GET", "HEAD"} for m in methods.values()), methods


def test_the_same_query_after_a_cancel_runs_anew(client) -> None:
    from concurrent.futures import ThreadPoolExecutor

    params = {"cql": SLOW, "variations": "1", "gamenumber": "1-300", "timeout": "1.5"}
    with ThreadPoolExecutor(1) as thread:
        first = thread.submit(client.get, "/api/query", params={**params, "token": "first"})
        time.sleep(0.5)
        assert client.post("/api/cancel", params={"token": "first"}).json() == {"cancelled": True}
        again = client.get("/api/query", params=params)  # not the cancelled run's 409: its own timeout
        assert first.result().status_code == 409
    assert again.status_code == 504, again.text


def test_each_thread_keeps_its_cursor_and_the_server_closes_them(sample_db) -> None:
    """A route's thread reads through the same cursor request after request (what a connection
    learns of the index, the row map's check say, is learnt once), never through another
    thread's; the server's close closes them all."""
    import threading

    import duckdb

    from cqlindex.serve.app import State

    state = State([sample_db], workers=0, timeout=30)
    try:
        mine = state.cursor(0)
        assert state.cursor(0) is mine
        theirs = []
        other = threading.Thread(target=lambda: theirs.append(state.cursor(0)))
        other.start()
        other.join(30)
        assert theirs and theirs[0] is not mine
        assert state.lane_of(_spec("mate")) == "quick" and state.cursor(0) is mine
        assert state.lane_of(_spec("flipcolor {A attacks k > 1}")) == "slow"
    finally:
        state.close()
    for cursor in (mine, theirs[0]):
        with pytest.raises(duckdb.Error):
            cursor.execute("SELECT 1")


def test_a_querys_lane_is_planned_once_whatever_its_game_range(sample_db, monkeypatch) -> None:
    """A refinement of the range (or the match count) of a query asked before is not planned
    again to choose its lane; another query, or the same with variations, is; the oldest are
    forgotten past LANES_KEPT."""
    from cqlindex.exec import run as exec_run
    from cqlindex.serve import app as serve_app
    from cqlindex.serve.app import State

    planned = []
    original = exec_run.plan_for

    def counting(*args, **kwargs):
        planned.append(args[1])
        return original(*args, **kwargs)

    monkeypatch.setattr(exec_run, "plan_for", counting)
    monkeypatch.setattr(serve_app, "LANES_KEPT", 2)
    state = State([sample_db], workers=0, timeout=30)
    try:
        assert state.lane_of(_spec("mate", gamenumber="1-5")) == "quick"
        assert state.lane_of(_spec("mate", gamenumber="2-9", matchcount="2")) == "quick"
        assert planned == ["mate"]
        assert state.lane_of(_spec("flipcolor {A attacks k > 1}")) == "slow"
        assert state.lane_of(_spec("mate", variations="1")) == "quick"
        assert len(planned) == 3
        assert state.lane_of(_spec("mate")) == "quick"  # forgotten: two kept, both asked since
        assert len(planned) == 4
    finally:
        state.close()


def _spec(text: str, **params: str):
    from cqlindex.serve.request import query_spec

    return query_spec({"cql": text, **params}, 1)
