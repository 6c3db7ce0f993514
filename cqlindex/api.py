"""The Python API: build an index, open it, query it with CQL, get records or an Arrow table.

    >>> import cqlindex
    >>> db = cqlindex.build(["games.pgn"], "games.duckdb")          # doctest: +SKIP
    >>> matches = db.query("flipcolor {btm mate move previous from N}")  # doctest: +SKIP
    >>> matches[0].gamenumber, matches[0].san, matches[0].fen          # doctest: +SKIP
    >>> matches.to_arrow()      # one row per matching position        # doctest: +SKIP
    >>> matches[0]              # in Jupyter: the board, last move highlighted
    >>> matches.write_pgn("found.pgn")   # the games, matches marked as CQL does  # doctest: +SKIP
    >>> matches.write_html("found.html") # a page of boards                      # doctest: +SKIP

The CLI is a thin shell over the same calls, so a script and a terminal see the same answers.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.svg
import pyarrow as pa

from cqlindex.exec.result import QueryResult
from cqlindex.output.records import FIELDS, match_records
from cqlindex.store.database import connect


@dataclass(frozen=True, slots=True)
class Match:
    """One matching position: where it is (CQL's numbers), the move that led there, its FEN, the game's tags."""

    gamenumber: int
    positionid: int
    ply: int
    movenumber: int
    wtm: bool
    san: str | None
    fen: str
    white: str | None
    black: str | None
    result: str | None
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


class Matches(Sequence[Match]):
    """The matching positions of a query: games in output order (gamenumber, or the query's
    ``sort`` values, largest first), positions in positionid order."""

    def __init__(self, records: list[dict], result: QueryResult, db: Path) -> None:
        self._matches = [Match(**r) for r in records]
        self._result = result
        self._db = db
        self.games = result.matches  #: gamenumber -> matching positionids, in output order
        self.sort_values = result.sort_values  #: gamenumber -> the best value of each sort key
        self.seconds = result.seconds

    def __getitem__(self, index):  # type: ignore[override]
        return self._matches[index]

    def __len__(self) -> int:
        return len(self._matches)

    def __iter__(self) -> Iterator[Match]:
        return iter(self._matches)

    def to_arrow(self) -> pa.Table:
        columns = {name: [getattr(m, name) for m in self._matches] for name in FIELDS}
        return pa.table(columns)

    def to_pandas(self):
        """A pandas DataFrame (pandas is optional: install it to use this)."""
        try:
            import pandas  # noqa: F401
        except ImportError:
            raise ImportError("to_pandas needs pandas: pip install pandas") from None
        return self.to_arrow().to_pandas()

    def write_pgn(self, path: str | Path, *, matchstring: str | None = None, silent: bool = False) -> int:
        """Write the matching games to ``path`` as PGN, as CQL writes them (see :mod:`cqlindex.output.pgn`);
        returns how many. ``matchstring`` defaults to the query's, else ``CQL``."""
        from cqlindex.output.pgn import write_pgn

        header = self._result.query.header
        con = connect(self._db)
        try:
            with Path(path).open("w", encoding="utf-8") as out:
                return write_pgn(con, self._result, out, matchstring=matchstring or header.matchstring or "CQL",
                                 variations=self._result.variations, silent=silent or header.silent).games
        finally:
            con.close()

    def write_html(self, path: str | Path, *, boards_per_game: int | None = 12) -> int:
        """Write one self-contained page with a board per matching position; returns how many boards."""
        from cqlindex.output.html import write_html

        records = [{name: getattr(m, name) for name in FIELDS} for m in self._matches]
        with Path(path).open("w", encoding="utf-8") as out:
            return write_html(records, out, query=self._result.query.text, boards_per_game=boards_per_game)


class Database:
    """An index opened for queries (read-only; any number may be open at once)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        connect(self.path).close()  # a clear DatabaseError now rather than at the first query

    def query(self, cql: str, *, variations: bool | None = None, engine: str = "sql",
              gamenumbers: tuple[int, int] | None = None,
              matchcount: tuple[int, int | None] | None = None, include_unplayable: bool = False) -> Matches:
        """Run a CQL query (a body or a whole ``cql(...)`` file's text).

        ``gamenumbers`` (low, high) and ``matchcount`` (low, high or None) override the
        query's header, as CQL's options of those names do. Games of unsupported variants (and text
        that is not a game) are left out unless ``include_unplayable``.
        """
        from cqlindex.exec.run import run

        result = run(self.path, cql, variations=variations, engine=engine, gamenumbers=gamenumbers,
                     matchcount=matchcount, include_unplayable=include_unplayable)
        con = connect(self.path)
        try:
            records = match_records(con, result.matches)
        finally:
            con.close()
        return Matches(records, result, self.path)

    def sql(self, text: str, params: list | None = None) -> pa.Table:
        """Ad-hoc read-only SQL on the documented tables, views and macros, as an Arrow table."""
        con = connect(self.path)
        try:
            return con.sql(text, params=params or None).to_arrow_table()
        finally:
            con.close()

    def __repr__(self) -> str:
        return f"cqlindex.Database({str(self.path)!r})"


def open(path: str | Path) -> Database:
    """Open an index written by :func:`build` or ``cqlindex build``."""
    return Database(path)


def build(pgn: str | Path | list[str | Path], output: str | Path, *, workers: int | None = None) -> Database:
    """Index every position of every game of ``pgn`` (files or globs; .pgn .gz .bz2 .zst) into ``output``."""
    from cqlindex.ingest.pipeline import build as run_build

    inputs = [str(p) for p in pgn] if isinstance(pgn, list) else [str(pgn)]
    run_build(inputs, output, workers=workers)
    return Database(output)
