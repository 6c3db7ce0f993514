"""The per-position records (:data:`cqlindex.output.records.FIELDS`) as a stream of Arrow batches.

Why a stream: a query may match every position of a large index. Holding all the records
before writing them costs memory in proportion to the matches. Here the matches are cut into
batches of whole games (about :data:`BATCH_ROWS` positions each); DuckDB reads each batch's rows
(zone maps skip the row groups of other games) and the writers of :mod:`cqlindex.output.formats`
serialise each batch as it comes; the batches are made in threads, one per core, and written
in order (:mod:`cqlindex.output.threaded`).

Where the time goes, per record (issue 16: ``true --format ndjson`` on 34 M positions): the
positions are read without the games (a game's tags are the same on its every row: they are
read once per game and repeated with Arrow's ``take``, and a JSON object's game part is
serialised once per game), and without an ORDER BY (a scan of the batch's range yields them in
the index's order, which is checked and sorted only when it is not the matches'). The piece
placement is drawn with numpy (:mod:`cqlindex.output.placement`). The records are the schema
macros' byte for byte (tests/test_output_stream.py): the FEN's every field, the score sheet's
move number, the tags.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TextIO
from itertools import chain

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cqlindex.output.fen_fields import fen_tail, square_names
from cqlindex.output.ordered import in_order
from cqlindex.output.placement import BOARDS, placements
from cqlindex.output.threaded import ordered_map
from cqlindex.store import rowmap

#: Positions per batch: large enough that the per-batch SQL costs little per record, small enough
#: that the batches being made at once (one a thread) stay a few tens of megabytes. ``true
#: --format ndjson`` on the 34 M-position index, two threads: 65,536 took 90 s and 1,106 MB,
#: 32,768 93 s and 942 MB, 16,384 118 s and 874 MB (one thread, 65,536: 168 s and 894 MB).
BATCH_ROWS = 32768

#: A batch whose games are spread this many times wider than their count (game numbers) may be
#: read by row id, and is when its positions are fewer than 1/SPARSE of the rows its games span
#: (see :func:`_sparse_rows`).
SPARSE = 4
#: Reading a row by its id costs about this many times what scanning past one does (DuckDB 2.0,
#: 20,000 games: 636 rows spread over 1.5 M by id in 12 ms, against 106-170 ms for the range;
#: 32,616 consecutive rows by id 82 ms, against 11 ms for their range).
ROW_BY_ID = 25

#: The position's fields of a record, in order, and the game's, which come between ``fen`` and
#: ``move_from`` (:data:`cqlindex.output.records.FIELDS`).
_HEAD = ("gamenumber", "positionid", "ply", "movenumber", "wtm", "mainline", "depth", "san", "fen")
_TAGS = ("white", "black", "result", "year", "event", "site", "date", "eco")
_TAIL = ("move_from", "move_to")

_POSITION_COLUMNS = (
    "p.gamenumber, p.positionid, p.ply, p.movenumber, p.wtm, p.mainline, p.depth, p.san, "
    "p.castling_rights, p.ep_square, p.halfmove_clock, p.move_from, p.move_to, "
    f"{', '.join('p.' + b for b in BOARDS)}")
_POSITIONS = (
    f"SELECT m.rank, {_POSITION_COLUMNS} "
    "FROM _batch m JOIN positions p ON p.gamenumber = m.gamenumber AND p.positionid = m.positionid "
    "WHERE p.gamenumber BETWEEN ? AND ?")
#: The same, for a batch read by row id: DuckDB fetches the vectors that hold the ids in the list
#: instead of scanning every row between the batch's first and last game. No join with the
#: batch's pairs: the ids are its positions already, and each row's rank is put back in numpy.
_POSITIONS_BY_ID = (f"SELECT {_POSITION_COLUMNS} FROM positions p "
                    "WHERE p.gamenumber BETWEEN ? AND ? AND p.rowid = ANY(?::BIGINT[])")


def _games_sql(tags_json: bool) -> str:
    """A batch's games (in the index's order, put in the batch's by :func:`_in_batch_order`): their
    tags, with ``tags_json`` their tags as the middle of a JSON object too (only the JSON writers
    read it, a third of the query's time on a page's games), and what a set-up FEN's fullmove field
    adds to CQL's movenumber (the schema's macro, once per game). The games are a list parameter,
    not a registered table to join: DuckDB semi-joins on it all the same, and a page of the server
    spares the registration and the sort (a few milliseconds of its 50 games)."""
    as_json = f"to_json({{{', '.join(f'{t}: t.{t}' for t in _TAGS)}}})::VARCHAR AS tags_json, " if tags_json else ""
    return (
        f"SELECT t.gamenumber, {', '.join('t.' + t for t in _TAGS)}, {as_json}"
        # the schema's fullmove_offset macro on the row at hand: the macro looks the game up again
        # with a subquery, a join with the whole games table (half this query's time)
        "coalesce(greatest(coalesce(try_cast(split_part(t.start_fen, ' ', 6) AS INTEGER), 1), 1) - 1, 0) AS shift "
        "FROM games t WHERE t.gamenumber BETWEEN ? AND ? AND t.gamenumber = ANY(?::INTEGER[])")


_GAMES, _GAMES_WITHOUT_JSON = _games_sql(True), _games_sql(False)


#: Matches as a dict {gamenumber: ids} in output order, or its (gamenumber, ids) pairs as they
#: come (a streamed run's :meth:`~cqlindex.exec.result.QueryResult.pairs`).
Matches = Mapping[int, list[int]] | Iterable[tuple[int, list[int]]]


def _chunks(matches: Matches, size: int) -> Iterator[list[tuple[int, int, list[int]]]]:
    """(rank, gamenumber, ids) of whole games, about ``size`` positions a chunk, in output order;
    the pairs are read as the chunks are, so a stream of them is never held whole."""
    chunk: list[tuple[int, int, list[int]]] = []
    held = 0
    pairs = matches.items() if isinstance(matches, Mapping) else matches
    for rank, (game, ids) in enumerate(pairs):
        chunk.append((rank, game, ids))
        held += len(ids)
        if held >= size:
            yield chunk
            chunk, held = [], 0
    if chunk:
        yield chunk


def _pairs(chunk: list[tuple[int, int, list[int]]]) -> pa.Table:
    """One chunk's (gamenumber, positionid, rank) rows for DuckDB to join on."""
    lengths = np.fromiter((len(ids) for _, _, ids in chunk), dtype=np.int64, count=len(chunk))
    total = int(lengths.sum())
    games = np.fromiter((game for _, game, _ in chunk), dtype=np.int32, count=len(chunk))
    ranks = np.fromiter((rank for rank, _, _ in chunk), dtype=np.int32, count=len(chunk))
    ids = np.fromiter(chain.from_iterable(ids for _, _, ids in chunk), dtype=np.int32, count=total)
    return pa.table({"gamenumber": np.repeat(games, lengths), "positionid": ids, "rank": np.repeat(ranks, lengths)})


def record_batches(con: duckdb.DuckDBPyConnection, matches: Matches, size: int = BATCH_ROWS) -> Iterator[pa.Table]:
    """The records of ``matches`` in its game order (positions in positionid order), a few
    thousand games at a time; always at least one table, empty when nothing matched, so a writer
    has the columns for its header."""
    yield from _batches(con, matches, size, lambda _, batch: batch.table())


class _Batch:
    """One batch's positions (the head and tail fields of :data:`_HEAD` and :data:`_TAIL`, in
    output order), its games (in output order) and each position's game (an index into them)."""

    __slots__ = ("positions", "games", "game_of")

    def __init__(self, positions: pa.Table, games: pa.Table, game_of: np.ndarray) -> None:
        self.positions, self.games, self.game_of = positions, games, game_of

    def table(self) -> pa.Table:
        """The records, :data:`cqlindex.output.records.FIELDS` in order."""
        tags = {t: self.games.column(t).take(self.game_of) for t in _TAGS}
        columns = [self.positions.column(f) for f in _HEAD] + list(tags.values()) + \
                  [self.positions.column(f) for f in _TAIL]
        return pa.Table.from_arrays(columns, names=[*_HEAD, *_TAGS, *_TAIL])


def _batches(con: duckdb.DuckDBPyConnection, matches: Matches, size: int,
             then: Callable[[duckdb.DuckDBPyConnection, _Batch], object] | None = None,
             tags_json: bool = False) -> Iterator:
    """Each chunk's :class:`_Batch` (or ``then(cursor, batch)`` of it), made in threads
    (:mod:`cqlindex.output.threaded`), in order; ``tags_json``: its games carry their tags as JSON."""
    chunks = _chunks(matches, size)
    first = next(chunks, [])
    mapped = rowmap.holds(con)  # asked once, on the caller's connection, not on each thread's cursor

    def work(cursor: duckdb.DuckDBPyConnection, chunk: list[tuple[int, int, list[int]]]):
        batch = _batch(cursor, chunk, mapped, tags_json)
        return batch if then is None else then(cursor, batch)

    return ordered_map(con, work, chain([first], chunks))


def _sparse_rows(con: duckdb.DuckDBPyConnection, chunk: list[tuple[int, int, list[int]]],
                 span: list[int]) -> np.ndarray | None:
    """The row ids of the positions of ``chunk``, in the index's order, when reading them by id
    costs less than scanning the rows between its first and last game, else None.

    Why: a page of the server, or a batch of a result with few matches per game, holds games from
    all over the index (the 50 first of ``flip {Ka1 kh8}`` on 20,000 games lie between games
    3,288 and 18,148), and the range scan then reads most of ``positions`` for a few hundred
    rows. A batch of games close together (``true``, a run of consecutive games) is not looked
    up at all: their range is what is read anyway. Needs the row map (:mod:`cqlindex.store.rowmap`):
    a position's row is its game's first row plus its positionid, so only the chunk's games are
    looked up there (a list parameter, no table registered) and the ids are added in numpy."""
    if not chunk or len(chunk) * SPARSE > span[1] - span[0] + 1:
        return None
    games = [game for _, game, _ in chunk]
    found = con.sql("SELECT gamenumber, first_row, positions FROM game_rows "
                    "WHERE gamenumber BETWEEN ? AND ? AND gamenumber = ANY(?::INTEGER[])",
                    params=[*span, games]).fetchnumpy()
    first = dict(zip(found["gamenumber"].tolist(), found["first_row"].tolist()))
    if len(first) < len(chunk):  # a game the map does not know: read by range, as without the map
        return None
    # the chunk holds its first and last game, so their rows bound the rows the range would scan
    spanned = int((found["first_row"] + found["positions"]).max() - found["first_row"].min())
    lengths = np.fromiter((len(ids) for _, _, ids in chunk), dtype=np.int64, count=len(chunk))
    if int(lengths.sum()) * ROW_BY_ID >= spanned:
        return None
    starts = np.fromiter((first[game] for game in games), dtype=np.int64, count=len(chunk))
    ids = np.fromiter(chain.from_iterable(ids for _, _, ids in chunk), dtype=np.int64, count=int(lengths.sum()))
    return np.sort(np.repeat(starts, lengths) + ids)


def _ranks(gamenumbers: pa.ChunkedArray, chunk: list[tuple[int, int, list[int]]]) -> np.ndarray:
    """The rank (the output order) in ``chunk`` of the game of each of ``gamenumbers``, all of them
    games of the chunk (a game comes once in a chunk)."""
    games = np.fromiter((game for _, game, _ in chunk), dtype=np.int64, count=len(chunk))
    ranks = np.fromiter((rank for rank, _, _ in chunk), dtype=np.int32, count=len(chunk))
    order = np.argsort(games, kind="stable")
    return ranks[order][np.searchsorted(games[order], gamenumbers.to_numpy())]


def _in_batch_order(tags: pa.Table, chunk: list[tuple[int, int, list[int]]]) -> pa.Table:
    """The games' rows of ``tags`` (read in the index's order) in the chunk's order."""
    at = np.full(len(chunk), -1, dtype=np.int64)  # a game without its row: an IndexError from take, never a stray row
    at[_ranks(tags.column("gamenumber"), chunk) - (chunk[0][0] if chunk else 0)] = np.arange(tags.num_rows)
    return tags.take(at).drop_columns(["gamenumber"])


def _batch(con: duckdb.DuckDBPyConnection, chunk: list[tuple[int, int, list[int]]], mapped: bool = False,
           tags_json: bool = False) -> _Batch:
    games = [game for _, game, _ in chunk]
    span = [min(games, default=0), max(games, default=0)]
    ids = _sparse_rows(con, chunk, span) if mapped else None
    if ids is None:
        con.register("_batch", _pairs(chunk))
        try:
            positions = con.sql(_POSITIONS, params=span).to_arrow_table()
        finally:
            con.unregister("_batch")
    else:
        positions = con.sql(_POSITIONS_BY_ID, params=[*span, ids.tolist()]).to_arrow_table()
        positions = positions.add_column(0, "rank", pa.array(_ranks(positions.column("gamenumber"), chunk)))
    tags = _in_batch_order(con.sql(_GAMES if tags_json else _GAMES_WITHOUT_JSON, params=[*span, games])
                           .to_arrow_table(), chunk)
    positions = in_order(positions, "rank", "positionid")
    first_rank = chunk[0][0] if chunk else 0
    game_of = positions.column("rank").to_numpy().astype(np.int64) - first_rank
    movenumber = positions.column("movenumber").to_numpy().astype(np.int32) + \
        tags.column("shift").to_numpy().astype(np.int32)[game_of]
    boards = [positions.column(b).combine_chunks() for b in BOARDS]
    column = positions.column
    fen = fen_tail(placements(boards), column("wtm"), column("castling_rights"), column("ep_square"),
                   column("halfmove_clock"), pa.array(movenumber).cast(pa.string()))
    squares = {name: square_names(column(name)) for name in _TAIL}
    positions = positions.drop_columns(["rank", "castling_rights", "ep_square", "halfmove_clock", *BOARDS])
    positions = positions.set_column(positions.schema.get_field_index("movenumber"), "movenumber", pa.array(movenumber))
    positions = positions.append_column("fen", fen)
    for name, names in squares.items():
        positions = positions.set_column(positions.schema.get_field_index(name), name, names)
    return _Batch(positions, tags, game_of)


class _TextSink:
    """A binary file object for pyarrow that hands what it is given to a text stream."""

    closed = False

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.decoder = codecs.getincrementaldecoder("utf-8")()  # a character may span two writes

    def write(self, data) -> int:
        self.out.write(self.decoder.decode(bytes(data)))
        return len(data)

    def flush(self) -> None:
        self.out.flush()


def write_records(con: duckdb.DuckDBPyConnection, matches: Matches, shape: str, out: TextIO,
                  size: int = BATCH_ROWS) -> None:
    """Write the records of ``matches`` to ``out`` a batch at a time: ``ndjson`` (a JSON object a
    line), ``json`` (an array of them, one a line) or ``csv`` (pyarrow's, with a header). The
    JSON objects are DuckDB's ``to_json`` of each record."""
    if shape == "csv":
        import pyarrow.csv

        writer = None
        for table in record_batches(con, matches, size):
            if writer is None:
                writer = pyarrow.csv.CSVWriter(pa.PythonFile(_TextSink(out), mode="w"), table.schema)
            writer.write_table(table)
        writer.close()
        return
    # ndjson: each object ends its line; json: "[", the objects one a line with ",\n" between, "]".
    before, after = ("", "\n") if shape == "ndjson" else (",\n", "")
    if shape == "json":
        out.write("[\n")

    def lines(cursor: duckdb.DuckDBPyConnection, batch: _Batch) -> pa.Array | None:
        return _json_lines(cursor, batch, before, after) if batch.positions.num_rows else None

    started = False
    for joined in _batches(con, matches, size, lines, tags_json=True):
        if joined is not None:
            _write_joined(out, joined, 0 if started else len(before))
            started = True
    if shape == "json":
        out.write("\n]\n")


def _json_lines(con: duckdb.DuckDBPyConnection, batch: _Batch, before: str, after: str) -> pa.Array:
    """Each record of ``batch`` as a JSON object (DuckDB's ``to_json`` of the record) between
    ``before`` and ``after``. The position's fields are serialised per row, the game's tags once
    per game (``tags_json``): the objects are spliced with Arrow's byte-wise kernels, as DuckDB's
    string functions count characters (issue 16: 2.3 us a record for ``to_json`` of the whole
    record, 1.2 so). Built with Arrow's kernels alone (casts, quotes, a join of the 27 pieces)
    it is no faster: the many-way join costs what ``to_json`` does."""
    con.register("_records", batch.positions)
    try:
        head = ", ".join(f"{f}: r.{f}" for f in _HEAD)
        tail = ", ".join(f"{f}: r.{f}" for f in _TAIL)
        parts = con.sql(f"SELECT to_json({{{head}}})::VARCHAR AS head, to_json({{{tail}}})::VARCHAR AS tail "
                        "FROM _records r").to_arrow_table()
    finally:
        con.unregister("_records")
    # '{"gamenumber":...,"fen":"..."' + ',' + '"white":...,"eco":"..."' + ',' + '"move_from":...}'
    body = pc.binary_join_element_wise(pc.utf8_slice_codeunits(parts.column("head"), 0, -1),
                                       pc.utf8_slice_codeunits(batch.games.column("tags_json"), 1, -1)
                                       .take(batch.game_of),
                                       pc.utf8_slice_codeunits(parts.column("tail"), 1), ",")
    return pc.binary_join_element_wise(pa.scalar(before), body, pa.scalar(after), "").combine_chunks()


def _write_joined(out: TextIO, lines: pa.Array, skip: int) -> None:
    """Write the strings of ``lines`` back to back, but the first ``skip`` characters (ASCII).

    Their bytes lie back to back in the array's data buffer already: a UTF-8 stream gets them
    as they are, without a Python string per record; any other stream gets them decoded.
    """
    if not (pa.types.is_string(lines.type) or pa.types.is_large_string(lines.type)):
        lines = lines.cast(pa.large_string())  # e.g. a string view: offsets and data are what is read here
    wide = np.int64 if pa.types.is_large_string(lines.type) else np.int32
    offsets = np.frombuffer(lines.buffers()[1], dtype=wide)[lines.offset:lines.offset + len(lines) + 1]
    data = memoryview(lines.buffers()[2])[int(offsets[0]) + skip:int(offsets[-1])]
    binary = getattr(out, "buffer", None)
    if binary is not None and codecs.lookup(getattr(out, "encoding", None) or "ascii").name == "utf-8":
        out.flush()
        binary.write(data)
    else:
        out.write(codecs.decode(data, "utf-8"))
