"""DuckDB as cqlindex imports it: the engine's compiled extension, without the package's Python layer.

Why: ``import duckdb`` (2.x) also loads the package's pure-Python relation and expression
builders and reads its own version through ``importlib.metadata`` (which imports ``email``):
about 50 ms of a query's ~0.2 s start-up on this project's machines (issue 34), for an API
cqlindex does not call on its query path, which speaks SQL text to a connection (``execute``,
``fetchall``, ``fetchnumpy``, ``cursor``) and catches DuckDB's exceptions. The package's
``__init__`` re-exports those from its extension module ``_duckdb``, object for object (the same
``connect``, connection class and exception classes), so code written against either sees the
same objects, and an ``except duckdb.Error`` catches what either raises. Where a call does need
the package (``con.sql`` returns one of its relations; scanning an Arrow table), the extension
imports it itself, at that call.

A call that needs the package's layer on a connection cqlindex opened (``con.sql(...)`` and its
relations, ``to_arrow_table``: the package adds them to the connection class when it is imported)
goes through :func:`relations`, which imports the package then, not at start-up.

Where a DuckDB release no longer ships the extension under that name, the package is imported
instead: slower to start, the same behaviour. ``tests/test_store_duckdb_light.py`` says which
one the pinned release gives, so a rename is seen, not silently paid for.
"""

from __future__ import annotations

try:
    import _duckdb as duckdb
except ImportError:  # pragma: no cover - a DuckDB whose extension moved: the public package
    from cqlindex.store.duckdb_light import duckdb

__all__ = ["duckdb", "fetch_numpy", "relations"]


def relations(con):
    """``con``, with the DuckDB package's relation API on it (``con.sql(...).to_arrow_table()``):
    importing the package is what adds it, so this is imported at the first such call."""
    import duckdb as package  # noqa: F401 - importing it adds the relation API to connections

    return con


def fetch_numpy(con, sql: str, params=None) -> dict:
    """The rows of ``sql`` as ``{column: numpy array}``, as ``con.execute(sql, params).fetchnumpy()``
    gives them, at about half its cost.

    ``execute`` leaves a streaming result that ``fetchnumpy`` turns into arrays a chunk at a time,
    growing them as it goes; the extension's ``_submit`` (what the package's ``con.sql(...)
    .fetchnumpy()`` calls) runs the statement to a materialised result and converts that once.
    On the 20,000-game index, one thread, the 17 columns of a frame: 50 K rows 9.2 -> 5.6 ms,
    300 K rows 57 -> 27 ms, 1.55 M rows 234 -> 150 ms. ``_submit`` is not public, so a release
    without it falls back to ``execute`` (tests/test_store_duckdb_light.py says which one the
    pinned release gives); the results are the same arrays either way, masked where NULL.
    """
    submit = getattr(con, "_submit", None)
    if submit is None:  # pragma: no cover - a DuckDB without it: the public, slower call
        return con.execute(sql, params).fetchnumpy()
    return submit(sql, params, "rows").fetchnumpy()
