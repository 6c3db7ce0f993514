"""``cqlindex serve`` as a user starts it: a real uvicorn socket on a free loopback port, the line
that says where it listens, concurrent queries that do not wait for a long one, and a bad start
said in one line (cqlindex/serve/server.py, the CLI's serve command)."""

from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from serve_fixtures import SLOW, cli, running_server, sample_db  # noqa: F401 - the fixture


@pytest.fixture(scope="module")
def server(sample_db):
    with running_server(sample_db, "--workers", "2", "--timeout", "20") as started:
        yield started


def test_it_binds_localhost_and_says_where(server) -> None:
    url, line = server
    assert url.startswith("http://127.0.0.1:") and "read-only" in line
    assert httpx.get(url, timeout=10).text.startswith("<!doctype html>")
    script = httpx.get(url + "static/app.js", timeout=10).text
    assert "http" not in re.sub(r"//.*", "", script)  # nothing fetched from elsewhere


def test_a_long_query_does_not_hold_up_the_others(server) -> None:
    url, _ = server
    with httpx.Client(base_url=url, timeout=60) as client, ThreadPoolExecutor(4) as threads:
        slow = threads.submit(client.get, "/api/query", params={"cql": SLOW, "variations": "1", "token": "slow"})
        time.sleep(1.0)
        quick = [threads.submit(client.get, "/api/query", params={"cql": "mate", "offset": i}) for i in range(3)]
        assert [f.result().json()["games"] for f in quick] == [5, 5, 5]
        assert not slow.done()  # answered while the slow one (14 s alone) still runs
        assert client.post("/api/cancel", params={"token": "slow"}).json() == {"cancelled": True}
        answer = slow.result()
        assert answer.status_code == 409 and answer.json()["error"]["kind"] == "Cancelled"
        assert client.post("/api/cancel", params={"token": "slow"}).json() == {"cancelled": False}
        assert client.get("/api/query", params={"cql": "mate"}).json()["positions"] == 5


def test_the_api_answers_another_client_as_the_cli(server, sample_db) -> None:
    import json

    url, _ = server
    data = httpx.get(url + "api/query", params={"cql": "mate", "variations": "1"}, timeout=60).json()
    done = cli("query", str(sample_db), "mate", "--variations", "--format", "json", "-q")
    assert data["records"] == json.loads(done.stdout)


@pytest.mark.parametrize(("args", "said"), [
    (["/nonexistent/x.duckdb"], "no such database"),
    (["{db}", "--host", "256.1.1.1"], "cannot listen"),
])
def test_a_bad_start_is_one_line_not_a_traceback(sample_db, args, said) -> None:
    done = cli("serve", *[a.format(db=sample_db) for a in args], "--port", "0")
    assert done.returncode != 0
    err = done.stderr.decode()
    assert said in err and "Traceback" not in err


def test_cqlindex_serve_stays_the_function_once_the_package_is_imported(tmp_path) -> None:
    """In a fresh interpreter: before and after the package's modules are imported,
    cqlindex.serve(...) is the function (a missing index: its one-line error, not a TypeError)."""
    import subprocess
    import sys

    probe = ("import cqlindex\n"
             "from cqlindex.errors import DatabaseError\n"
             "for step in ('before', 'after'):\n"
             "    try:\n"
             f"        cqlindex.serve([{str(tmp_path / 'none.duckdb')!r}], port=0)\n"
             "    except DatabaseError as error:\n"
             "        print(step, 'no such database' in str(error))\n"
             "    import cqlindex.serve.app\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["before", "True", "after", "True"], done.stderr
