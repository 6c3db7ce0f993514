"""The Python API: build an index, open it, query it with CQL, get records or an Arrow table.

    >>> import cqlindex
    >>> db = cqlindex.build(["games.pgn"], "games.duckdb")          # doctest: +SKIP
    >>> matches = db.query("flipcolor {btm mate move previous from N}")  # doctest: +SKIP
    >>> matches[0].gamenumber, matches[0].san, matches[0].fen          # doctest: +SKIP
    >>> matches.to_arrow()      # one row per matching position        # doctest: +SKIP
    >>> matches                 # in Jupyter: a table of the matching games; matches[0]: its board
    >>> matches.write_pgn("found.pgn")   # the games, matches marked as CQL does  # doctest: +SKIP
    >>> matches.write_html("found.html") # a page of boards                      # doctest: +SKIP

The CLI is a thin shell over the same calls, so a script and a terminal see the same answers.
"""

from __future__ import annotations

import html
import itertools
import operator
import os
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.svg
import pyarrow as pa

from cqlindex.errors import TOO_DEEP, CqlindexError
from cqlindex.exec.result import QueryResult
from cqlindex.output.records import game_rows, match_table
from cqlindex.store import kept
from cqlindex.store.database import connect


@dataclass(frozen=True, slots=True)
class Match:
    """One matching position: where it is (CQL's numbers), the move that led there, its FEN, the game's tags."""

    gamenumber: int
    positionid: int
    ply: int
    movenumber: int  # as the game's PGN numbers its moves (a game set up at move 29 starts at 29)
    wtm: bool
    mainline: bool  # False for a position in a variation
    depth: int  # variation depth: 0 in the main line
    san: str | None
    fen: str
    white: str | None
    black: str | None
    result: str | None
    year: int | None
    event: str | None
    site: str | None
    date: str | None
    eco: str | None
    move_from: str | None  # squares of the move that led here ('e2'), None at the start
    move_to: str | None

    def board(self) -> chess.Board:
        return chess.Board(self.fen)

    def _repr_svg_(self) -> str:
        """Jupyter shows a match as its board, with the move that led there highlighted when known."""
        lastmove = None
        if self.move_from and self.move_to:
            lastmove = chess.Move(chess.parse_square(self.move_from), chess.parse_square(self.move_to))
        return chess.svg.board(self.board(), lastmove=lastmove, size=360)


#: Games a notebook shows of a result before it says how many more there are.
_NOTEBOOK_ROWS = 20


class Matches(Sequence[Match]):
    """The matching positions of a query: games in output order (gamenumber, or the query's
    ``sort`` values, largest first), positions in positionid order.

    The records (FEN, move, tags) are read from the index when first asked for, and only those
    asked for: ``matches[0]`` reads one page of records, iterating streams them a batch at a
    time, :meth:`to_arrow` reads them all once and keeps the table. A query that matched every
    position of a large index (p26 of the benchmark's patterns: 4.2 M positions) took 57 s to
    return when each was made a record and a :class:`Match` at once, against 1.5 s to find them;
    a program that wants the games, their count or the first few boards no longer pays for the
    rest. The records are read from the index as it was when the query ran: if it has been
    rebuilt since, reading them is an error that says to run the query again.
    """

    #: Records read at once for item access: ``for i in range(len(m)): m[i]`` reads a page per
    #: PAGE positions, not one query per position.
    PAGE = 1024

    def __init__(self, result: QueryResult, db: Path, identity: tuple | None = None) -> None:
        self._result = result
        self._db = db
        #: The index file as the query found it (taken before it ran, by Database.query).
        self._identity = identity if identity is not None else kept.identity(os.path.realpath(db))
        self.games = dict(result.matches.items())  #: gamenumber -> matching positionids, in output order
        self.sort_values = result.sort_values  #: gamenumber -> the best value of each sort key
        self.seconds = result.seconds
        self._size = sum(len(ids) for ids in self.games.values())
        self._table: pa.Table | None = None
        self._page: tuple[int, list[Match]] | None = None

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._size))]
        i = operator.index(index)
        if i < 0:
            i += self._size
        if not 0 <= i < self._size:
            raise IndexError("match index out of range")
        start = i - i % self.PAGE
        if self._page is None or self._page[0] != start:
            self._page = (start, self._records(start, min(start + self.PAGE, self._size)))
        return self._page[1][i - start]

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Match]:
        if self._table is not None:
            for batch in self._table.to_batches():
                yield from (Match(**row) for row in batch.to_pylist())
            return
        from cqlindex.output.stream import record_batches

        con = self._connect()
        batches = record_batches(con, self.games)
        try:
            for table in batches:
                yield from (Match(**row) for row in table.to_pylist())
        finally:  # a loop left early: the batches being read finish before their connection closes
            batches.close()
            con.close()

    def _connect(self):
        """A connection to the index, which must be the one the query ran on."""
        if kept.identity(os.path.realpath(self._db)) != self._identity:
            raise CqlindexError(f"{self._db} was rebuilt or changed since this query ran: run the query "
                                f"again to read its matches")
        return connect(self._db)

    def _records(self, start: int, stop: int) -> list[Match]:
        """The matches ``start`` to ``stop`` (indexes in output order) as records."""
        if self._table is not None:
            return [Match(**row) for row in self._table.slice(start, stop - start).to_pylist()]
        part: dict[int, list[int]] = {}
        seen = 0
        for game, ids in self.games.items():
            if seen + len(ids) > start:
                part[game] = ids[max(0, start - seen):stop - seen]
            seen += len(ids)
            if seen >= stop:
                break
        return [Match(**row) for row in self._read(part).to_pylist()]

    def _read(self, part: dict[int, list[int]]) -> pa.Table:
        """The records of ``part`` (games in output order, each with some of its matching positions)."""
        con = self._connect()
        try:
            return match_table(con, part)
        finally:
            con.close()

    def _whole(self) -> pa.Table:
        if self._table is None:
            self._table = self._read(self.games)
        return self._table

    def to_arrow(self) -> pa.Table:
        """One row per matching position, the columns of :data:`cqlindex.output.records.FIELDS`
        (read once, then kept)."""
        return self._whole()

    def to_pandas(self):
        """A pandas DataFrame (pandas is optional: ``pip install 'cqlindex[pandas]'``)."""
        try:
            import pandas  # noqa: F401
        except ImportError:
            raise ImportError("to_pandas needs pandas: pip install 'cqlindex[pandas]' (or pip install pandas)"
                              ) from None
        return self._whole().to_pandas()

    def __repr__(self) -> str:
        query = " ".join(self._result.query.text.split())
        return (f"<cqlindex.Matches {len(self)} positions in {len(self.games)} games of {self._db.name} "
                f"for {query!r}>")

    def _repr_html_(self) -> str:
        """Jupyter shows the matching games as a table: number, players, result, year, first match."""
        shown = dict(itertools.islice(self.games.items(), _NOTEBOOK_ROWS))  # their records alone
        rows = game_rows(self._read(shown).to_pylist())
        cells = "".join(
            "<tr>" + "".join(f"<td>{html.escape(str(value if value is not None else ''))}</td>" for value in (
                row["gamenumber"], row["white"], row["black"], row["result"], row["year"], row["first_match"],
                row["positions"])) + "</tr>"
            for row in rows[:_NOTEBOOK_ROWS])
        more = len(self.games) - min(len(rows), _NOTEBOOK_ROWS)
        tail = f"<p>and {more} more games</p>" if more > 0 else ""
        return (f"<p>{html.escape(repr(self))}</p><table><thead><tr><th>game</th><th>white</th><th>black</th>"
                f"<th>result</th><th>year</th><th>first match</th><th>positions</th></tr></thead>"
                f"<tbody>{cells}</tbody></table>{tail}")

    def write_pgn(self, path: str | Path, *, matchstring: str | None = None, silent: bool = False) -> int:
        """Write the matching games to ``path`` as PGN, as CQL writes them (see :mod:`cqlindex.output.pgn`);
        returns how many. ``matchstring`` defaults to the query's, else ``CQL``."""
        from cqlindex.output.pgn_workers import write_pgn_games

        header = self._result.query.header
        con = self._connect()
        try:
            with Path(path).open("w", encoding="utf-8") as out:
                return write_pgn_games(con, self._result, out, matchstring=matchstring or header.matchstring or "CQL",
                                 variations=self._result.variations, silent=silent or header.silent).games
        finally:
            con.close()

    def write_html(self, path: str | Path, *, boards_per_game: int | None = 12) -> int:
        """Write one self-contained page with a board per matching position; returns how many boards."""
        from cqlindex.output.html import write_html

        with Path(path).open("w", encoding="utf-8") as out:
            return write_html(self._whole().to_pylist(), out, query=self._result.query.text,
                              boards_per_game=boards_per_game, database=str(self._db))


class Database:
    """An index opened for queries (read-only; any number may be open at once)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        # A clear DatabaseError now rather than at the first query; and a connection kept open
        # while this object lives, so that each query's own connections cost little (store/kept.py).
        self._kept = kept.hold(self.path)
        weakref.finalize(self, kept.release, self._kept)

    def query(self, cql: str, *, variations: bool | None = None, engine: str = "sql",
              gamenumbers: tuple[int, int] | None = None,
              matchcount: tuple[int, int | None] | None = None, timeout: float | None = None,
              include_unplayable: bool = False, allow_files: bool = False) -> Matches:
        """Run a CQL query (a body or a whole ``cql(...)`` file's text).

        ``gamenumbers`` (low, high) and ``matchcount`` (low, high or None) override the
        query's header, as CQL's options of those names do. ``timeout`` (seconds) stops a
        query that runs longer with :class:`~cqlindex.errors.QueryTimeout`. Games of unsupported
        variants (and text that is not a game) are left out unless ``include_unplayable``.
        CQL's ``readfile`` and ``writefile`` touch files only with ``allow_files``: without it
        such a query stops with an error, so a query cannot make a service read or write files.
        """
        identity = kept.identity(os.path.realpath(self.path))  # before the run: a rebuild during it is caught too
        result = self.result(cql, variations=variations, engine=engine, gamenumbers=gamenumbers,
                             matchcount=matchcount, timeout=timeout, include_unplayable=include_unplayable,
                             allow_files=allow_files)
        return Matches(result, self.path, identity)

    def result(self, cql: str, *, variations: bool | None = None, engine: str = "sql",
               gamenumbers: tuple[int, int] | None = None,
               matchcount: tuple[int, int | None] | None = None, timeout: float | None = None,
               include_unplayable: bool = False, allow_files: bool = False,
               source: str = "<query>") -> QueryResult:
        """:meth:`query`'s run without its records: the matching position ids per game, in output
        order, with the sort values and comments the writers of :mod:`cqlindex.output.formats` need.

        For programs that hold many results and read a page of records at a time (``cqlindex
        serve``): a result of a million positions is a few megabytes here, and far more as records.
        ``source`` names the query in syntax errors (a ``.cql`` file's name, say).
        """
        from cqlindex.exec.run import run

        kept.refresh(self._kept, self.path)
        try:
            return run(self.path, cql, variations=variations, engine=engine, gamenumbers=gamenumbers,
                       matchcount=matchcount, timeout=timeout, include_unplayable=include_unplayable,
                       allow_files=allow_files, source=source)
        except RecursionError:  # the limits of cql/limits.py are meant to make this unreachable
            raise CqlindexError(TOO_DEEP) from None

    def sql(self, text: str, params: list | None = None, *, allow_files: bool = False,
            timeout: float | None = None) -> pa.Table:
        """Ad-hoc read-only SQL on the documented tables, views and macros, as an Arrow table.

        It runs sandboxed (see :mod:`cqlindex.store.sandbox`): statements that write are refused
        and no file but the index is reachable, unless ``allow_files`` (``read_csv``, ``COPY ... TO``
        on your machine). Errors are :class:`~cqlindex.errors.DatabaseError`; ``timeout`` (seconds)
        stops it with :class:`~cqlindex.errors.QueryTimeout`.
        """
        from cqlindex.store.sandbox import run_table

        kept.drop(self._kept)  # the sandbox locks the instance's configuration: it must not outlive this call
        return run_table(self.path, text, params, allow_files=allow_files, timeout=timeout)

    def __repr__(self) -> str:
        return f"cqlindex.Database({str(self.path)!r})"


def open(path: str | Path) -> Database:
    """Open an index written by :func:`build` or ``cqlindex build``."""
    return Database(path)


def build(pgn: str | Path | list[str | Path], output: str | Path, *, workers: int | None = None,
          reader: str = "auto") -> Database:
    """Index every position of every game of ``pgn`` (files or globs; .pgn .gz .bz2 .zst) into ``output``.

    ``reader``: ``compiled`` (main lines by the compiled reader), ``python-chess`` or ``auto``."""
    from cqlindex.ingest.pipeline import build as run_build

    inputs = [str(p) for p in pgn] if isinstance(pgn, list) else [str(pgn)]
    run_build(absolute_inputs(inputs), output, workers=workers, reader=reader)
    return Database(output)


def absolute_inputs(patterns: list[str]) -> list[str]:
    """The build's inputs (files or globs) as absolute paths, so the index names its sources in a
    way that holds from any working directory: PGN output re-reads the games from them."""
    return [os.path.abspath(os.path.expanduser(p)) for p in patterns]


def serve(databases: str | Path | list[str | Path], *, host: str = "127.0.0.1", port: int = 8765,
          workers: int | None = None, timeout: float = 60.0) -> None:
    """Serve a local web app and HTTP API over one or more indexes until interrupted (``cqlindex serve``).

    Read-only; binds ``host`` (localhost unless told otherwise) and prints where it listens.
    Needs the ``serve`` extra: ``pip install 'cqlindex[serve]'``. See :mod:`cqlindex.serve`."""
    from cqlindex.serve.server import run_server

    paths = [Path(p) for p in databases] if isinstance(databases, list) else [Path(databases)]
    run_server(paths, host=host, port=port, workers=workers, timeout=timeout)
