"""Opening an index (:mod:`cqlindex.store.database`): :class:`Opening` on a thread of its own
gives what :func:`connect` gives, the connection or the same error."""

from __future__ import annotations

from pathlib import Path

import pytest

from cqlindex.errors import DatabaseError
from cqlindex.store.database import Opening, connect


@pytest.fixture(scope="module")
def index(build_db) -> Path:
    return build_db("data/annotated/dortmund.pgn")


@pytest.mark.parametrize("checked", [True, False])
def test_an_opening_gives_the_connection_connect_gives(index: Path, checked: bool) -> None:
    con = Opening(index, checked=checked).result()
    try:
        with connect(index) as direct:
            expected = direct.execute("SELECT count(*) FROM positions").fetchall()
        assert con.execute("SELECT count(*) FROM positions").fetchall() == expected  # made there, used here
    finally:
        con.close()


@pytest.mark.parametrize("name, content, message", [
    ("missing.duckdb", None, "no such database"),
    ("text.duckdb", b"not a database at all", "not a DuckDB database"),
])
def test_an_opening_raises_what_connect_raises(tmp_path: Path, name, content, message) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(DatabaseError, match=message):
        Opening(path).result()


def test_close_leaves_a_taken_connection_open(index: Path) -> None:
    opening = Opening(index)
    con = opening.result()
    try:
        opening.close()  # as the caller's error path does after result() handed the connection out
        assert con.execute("SELECT count(*) FROM games").fetchall()[0][0] > 0
    finally:
        con.close()
