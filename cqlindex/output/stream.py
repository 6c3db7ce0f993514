"""The per-position records (:data:`cqlindex.output.records.FIELDS`) as a stream of Arrow batches.

Why a stream: a query may match every position of a large index. Holding all the records
before writing them costs memory in proportion to the matches, and drawing the FEN with the
schema's ``fen`` macro (64 ``substr`` and seven ``replace`` per row in SQL) costs about 40 us a
row. Here the matches are cut into batches of whole games (about :data:`BATCH_ROWS` positions
each); DuckDB reads each batch's rows (zone maps skip the row groups of other games) and the
piece placement is drawn from the twelve bitboards with numpy, a batch at a time. The writers
of :mod:`cqlindex.output.formats` serialise each batch as it comes.

The FEN is the schema macro's, byte for byte (tests/test_output_stream.py compares them on real
indexes): placement, side to move, castling from the rook mask, the square behind a pawn that
just made a double step, the halfmove clock and the score sheet's move number.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterable, Iterator
from typing import TextIO
from itertools import chain

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

#: Positions per batch: large enough that the per-batch SQL costs nothing per record, small
#: enough that a batch's strings stay a few tens of megabytes.
BATCH_ROWS = 65536

#: The twelve bitboards in the order of the letters of :data:`_LETTERS` (1 = 'K' ... 12 = 'p').
BOARDS = ("wk", "wq", "wr", "wb", "wn", "wp", "bk", "bq", "br", "bb", "bn", "bp")
_LETTERS = np.frombuffer(b"\0KQRBNPkqrbnp", dtype=np.uint8)  # 0: an empty square writes a digit
_SLASH, _ZERO = ord("/"), ord("0")

#: The score sheet's move number: CQL's movenumber moved on by a set-up FEN's fullmove field
#: (the schema's ``fullmove`` macro, with the game row at hand instead of a subquery per row).
_FULLMOVE = ("p.movenumber + (greatest(coalesce(try_cast(split_part(g.start_fen, ' ', 6) AS INTEGER), 1), 1) - 1)")
#: Every FEN field after the placement, with its leading space (the schema's ``fen`` macro).
_FEN_REST = (
    "' ' || CASE WHEN p.wtm THEN 'w' ELSE 'b' END || ' ' || coalesce(nullif("
    "CASE WHEN (p.castling_rights & 128) <> 0 THEN 'K' ELSE '' END || "
    "CASE WHEN (p.castling_rights & 1) <> 0 THEN 'Q' ELSE '' END || "
    "CASE WHEN p.castling_rights < 0 THEN 'k' ELSE '' END || "  # bit 63, h8, is the sign bit
    "CASE WHEN (p.castling_rights & 72057594037927936) <> 0 THEN 'q' ELSE '' END, ''), '-') || ' ' || "
    "coalesce(chr(97 + p.ep_square % 8) || chr(49 + p.ep_square // 8), '-') || ' ' || "
    f"p.halfmove_clock || ' ' || ({_FULLMOVE})")
_SQUARE = "CASE WHEN p.{0} IS NULL THEN NULL ELSE chr(97 + p.{0} % 8) || chr(49 + p.{0} // 8) END AS {0}"
_SELECT = (
    f"SELECT p.gamenumber, p.positionid, p.ply, {_FULLMOVE} AS movenumber, p.wtm, p.mainline, p.depth, p.san, "
    f"{_FEN_REST} AS fen, g.white, g.black, g.result, g.year, g.event, g.site, g.date, g.eco, "
    f"{_SQUARE.format('move_from')}, {_SQUARE.format('move_to')}, {', '.join('p.' + b for b in BOARDS)} "
    "FROM _batch m "
    "JOIN positions p ON p.gamenumber = m.gamenumber AND p.positionid = m.positionid "
    "JOIN games g ON g.gamenumber = p.gamenumber "
    "WHERE p.gamenumber BETWEEN ? AND ? ORDER BY m.rank, p.positionid")


def _rank_tables() -> tuple[np.ndarray, np.ndarray]:
    """For each of the 256 sets of empty squares of a rank (bit f = file f empty): the digit each
    file writes (the length of the run of empty squares it ends, 0 where it writes no digit) and
    whether it writes anything (a piece, or the end of a run)."""
    digits = np.zeros((256, 8), dtype=np.uint8)
    written = np.zeros((256, 8), dtype=bool)
    for mask in range(256):
        run = 0
        for file in range(8):
            empty = mask >> file & 1
            run = run + 1 if empty else 0
            ends = empty and (file == 7 or not mask >> (file + 1) & 1)
            digits[mask, file] = _ZERO + run if ends else 0
            written[mask, file] = ends or not empty
    return digits, written


_DIGITS, _WRITTEN = _rank_tables()


def placements(boards: list[pa.Array]) -> pa.Array:
    """The FEN piece placement field (ranks 8 to 1, runs of empty squares as digits) of each row
    of the twelve bitboard columns :data:`BOARDS`, as a string array.

    Column-wise: each square's letter (0 if empty) from the bitboards, each rank's digits and
    written squares from its set of empty squares (:func:`_rank_tables`); a boolean mask over
    the rows' characters, flattened, is the concatenation of all the placements.
    """
    rows = len(boards[0])
    codes = np.zeros((rows, 64), dtype=np.uint8)
    occupied = np.zeros(rows, dtype="<i8")
    for letter, board in enumerate(boards, start=1):
        # Square i is bit i; little-endian bytes unpacked little-endian give squares a1 .. h8.
        raw = np.ascontiguousarray(board.to_numpy(zero_copy_only=False).astype("<i8", copy=False))
        occupied |= raw
        codes += np.unpackbits(raw.view(np.uint8).reshape(rows, 8), axis=1, bitorder="little") * np.uint8(letter)
    empties = (~occupied).view(np.uint8).reshape(rows, 8)[:, ::-1]  # a byte per rank, rank 8 first
    chars = np.full((rows, 8, 9), _SLASH, dtype=np.uint8)
    chars[:, :, :8] = _LETTERS[codes.reshape(rows, 8, 8)[:, ::-1, :]] | _DIGITS[empties]
    keep = np.ones((rows, 8, 9), dtype=bool)
    keep[:, :, :8] = _WRITTEN[empties]
    keep[:, 7, 8] = False  # no slash after the first rank
    keep = keep.reshape(rows, 72)
    data = np.ascontiguousarray(chars.reshape(rows, 72)[keep])
    offsets = np.zeros(rows + 1, dtype=np.int32)
    np.cumsum(keep.sum(axis=1, dtype=np.int32), out=offsets[1:])
    return pa.StringArray.from_buffers(rows, pa.py_buffer(offsets), pa.py_buffer(data))


#: Matches as a dict {gamenumber: ids} in output order, or its (gamenumber, ids) pairs as they
#: come (a streamed run's :meth:`~cqlindex.exec.result.QueryResult.pairs`).
Matches = dict[int, list[int]] | Iterable[tuple[int, list[int]]]


def _chunks(matches: Matches, size: int) -> Iterator[list[tuple[int, int, list[int]]]]:
    """(rank, gamenumber, ids) of whole games, about ``size`` positions a chunk, in output order;
    the pairs are read as the chunks are, so a stream of them is never held whole."""
    chunk: list[tuple[int, int, list[int]]] = []
    held = 0
    pairs = matches.items() if isinstance(matches, dict) else matches
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
    chunks = _chunks(matches, size)
    first = next(chunks, [])
    for chunk in chain([first], chunks):
        yield _records(con, chunk)


def _records(con: duckdb.DuckDBPyConnection, chunk: list[tuple[int, int, list[int]]]) -> pa.Table:
    games = [game for _, game, _ in chunk]
    con.register("_batch", _pairs(chunk))
    try:
        table = con.sql(_SELECT, params=[min(games, default=0), max(games, default=0)]).to_arrow_table()
    finally:
        con.unregister("_batch")
    boards = [table.column(b).combine_chunks() for b in BOARDS]
    fen = pc.binary_join_element_wise(placements(boards), table.column("fen").combine_chunks(), "")
    table = table.set_column(table.schema.get_field_index("fen"), "fen", fen)
    return table.drop_columns(list(BOARDS))


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
    started = False
    for table in record_batches(con, matches, size):
        if not table.num_rows:
            continue
        con.register("_records", table)
        try:
            lines = con.sql("SELECT ? || to_json(r)::VARCHAR || ? FROM _records r", params=[before, after]
                            ).to_arrow_table().column(0).combine_chunks()
        finally:
            con.unregister("_records")
        _write_joined(out, lines, 0 if started else len(before))
        started = True
    if shape == "json":
        out.write("\n]\n")


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
