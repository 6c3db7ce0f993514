"""What one parse worker does with a piece of PGN text: split, decode, route, read, return Arrow tables.

A piece (:class:`cqlindex.ingest.chunks.Chunk`) is cut into games here, in the worker, and its
games are numbered from 1: the parent, which receives the pieces back in order, adds the number
of the games before. Runs in a child process, so it takes and returns only picklable values.
Text is decoded per game (UTF-8, else Windows-1252), because real collections mix encodings
from game to game. Each game is routed (:mod:`cqlindex.ingest.route`): main lines to the compiled reader, the rest
(and whatever the reader rejects) to the python-chess replay; the two parts are merged back
into game order.
"""

from __future__ import annotations

import codecs
import os
import re
import tempfile

import pyarrow as pa
import pyarrow.compute as pc

from cqlindex.ingest.replay import replay
from cqlindex.ingest.route import route
from cqlindex.ingest.rows import _BITBOARD_COLUMNS, RowBatch
from cqlindex.ingest.chunks import Chunk, chunk_games
from cqlindex.ingest.source import RawGame

READERS = ("auto", "compiled", "python-chess")


def compiled_reader_available() -> bool:
    """Whether the compiled reader (an optional binary wheel) imports on this machine."""
    try:
        import cqlindex.ingest.compiled  # noqa: F401
    except ImportError:
        return False
    return True


#: The errors of a block of text from which neither a tag pair nor a move could be read: one that
#: shows something of PGN (a line starting with '[', a result, a numbered move) and one that
#: shows nothing of it (the pipeline rejects a file made only of the latter).
NOT_A_GAME = "not a PGN game: no tag pair could be read and no move played"
NOT_PGN = "not PGN: text without a tag pair, a numbered move or a result"
_PGN_MARK = re.compile(r"^\s*\[|(?:^|\s)(?:1-0|0-1|1/2-1/2|\*)(?:\s|$)|\d\.\s*[a-hKQRBNO]", re.MULTILINE)


def decode(data: bytes) -> str:
    """A game's text: UTF-8 where it is valid, else Windows-1252, which is what PGN files written on
    Windows use (Latin-1 would turn its quotes, dashes, ellipsis and euro sign into control codes).

    The five bytes Windows-1252 leaves undefined become the code points Latin-1 gives them, so
    decoding never fails and never loses a byte.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", _LATIN1_FALLBACK)


def _undefined_as_latin1(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeDecodeError):
        raise error
    return "".join(map(chr, error.object[error.start:error.end])), error.end


_LATIN1_FALLBACK = "cqlindex-cp1252-undefined-as-latin1"
codecs.register_error(_LATIN1_FALLBACK, _undefined_as_latin1)


def prepare(text: str) -> tuple[str, list[int]]:
    """The text python-chess should read, and the original line of each of its lines.

    python-chess ends a game at a blank line inside the movetext; the splitter has already
    decided where the game ends, so blank lines after the header are dropped here.
    """
    kept: list[str] = []
    origin: list[int] = []
    in_header = True
    # Split on line feeds only: str.splitlines() would also break at U+0085 (NEL), U+2028 and
    # others that a tag or a comment may hold.
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        stripped = line.strip()
        if not stripped:
            continue
        if in_header and not stripped.startswith("["):
            in_header = False
            if kept:
                kept.append("")
                origin.append(number)
        kept.append(line)
        origin.append(number)
    return "\n".join(kept) + "\n", origin


def _replay_into(rows: RowBatch, gamenumber: int, raw: RawGame, text: str, origin: list[int]) -> None:
    game = replay(text)
    if game.errors:
        game.errors = [(origin[min(line, len(origin)) - 1] if origin else 1, message)
                       for line, message in game.errors]
    if raw.notes:
        game.errors = [*raw.notes, *game.errors]
    if not game.headers and len(game.rows) == 1:
        game.errors.insert(0, (1, NOT_A_GAME if _PGN_MARK.search(text) else NOT_PGN))
        game.playable = False
    rows.add(gamenumber, raw, game)


Tables = tuple[pa.Table, pa.Table, pa.Table]


def parse_chunk(chunk: Chunk, reader: str, positions_schema: pa.Schema | None, batch_games: int,
                spool: str | None = None) -> tuple[int, list[Tables]]:
    """The number of games in ``chunk`` and their (games, positions, errors) tables, numbered from 1,
    read ``batch_games`` at a time (a batch's numpy arrays then stay in the caches).

    With ``spool`` (a directory) each positions table is written there as an Arrow file and its
    path comes back in its place: the parent maps the file instead of unpickling a copy of a
    table that is most of what crosses from the workers (measured: ~4 CPU-s of the parent's ~19
    on the whole gnuchess file went to receiving pickles).
    """
    games = chunk_games(chunk)
    parts: list[Tables] = []
    batch: list[tuple[int, RawGame]] = []
    count = 0
    for count, raw in enumerate(games, start=1):
        batch.append((count, raw))
        if len(batch) >= batch_games:
            parts.append(_spooled(parse_batch(batch, reader, positions_schema), spool))
            batch = []
    if batch:
        parts.append(_spooled(parse_batch(batch, reader, positions_schema), spool))
    return count, parts


def _spooled(tables: Tables, spool: str | None) -> Tables:
    if spool is None or not tables[1].num_rows:
        return tables
    games, positions, errors = tables
    handle, path = tempfile.mkstemp(suffix=".arrow", dir=spool)
    os.close(handle)
    with pa.OSFile(path, "wb") as out, pa.ipc.new_file(out, positions.schema) as writer:
        writer.write_table(positions)
    return games, path, errors


def unspooled(positions: pa.Table | str) -> pa.Table:
    """A positions table as :func:`parse_chunk` returned it: the table, or the file it is in (memory-mapped)."""
    if isinstance(positions, str):
        return pa.ipc.open_file(pa.memory_map(positions)).read_all()
    return positions


def parse_batch(batch: list[tuple[int, RawGame]], reader: str = "python-chess",
                positions_schema: pa.Schema | None = None) -> tuple[pa.Table, pa.Table, pa.Table]:
    """Read ``(gamenumber, raw game)`` pairs into (games, positions, errors) tables.

    ``reader`` is ``python-chess`` (replay every game) or ``compiled`` (main-line games by the
    compiled reader, the rest replayed). ``positions_schema`` (the table's Arrow types, from
    the database) narrows the positions columns here, in the worker: the table then crosses
    the process boundary at about half its 64-bit size and DuckDB inserts it without casts.
    """
    games, positions, errors = _parse_batch(batch, reader)
    return games, narrowed(with_boards_facts(with_material(positions)), positions_schema), errors


def with_material(positions: pa.Table) -> pa.Table:
    """``positions`` with its ``material`` column (:mod:`cqlindex.board.material`), computed here
    from the bitboards for games of both readers alike."""
    if "wp" not in positions.column_names:
        return positions  # no positions at all
    from cqlindex.board import material

    columns = {name: positions.column(name).to_numpy() for name in material.COUNTED}
    return positions.append_column("material", pa.array(material.packed(columns), pa.int64()))


def with_boards_facts(positions: pa.Table) -> pa.Table:
    """``positions`` with the columns computed here from the bitboards, for games of both readers
    alike: ``pinned`` (:mod:`cqlindex.board.pins`), ``white_attacks_twice`` and
    ``black_attacks_twice`` (:mod:`cqlindex.board.twice`)."""
    if "wp" not in positions.column_names:
        return positions  # no positions at all
    import numpy as np

    from cqlindex.board.pins import pinned
    from cqlindex.board.twice import attacked_twice

    boards = np.stack([positions.column(name).to_numpy().view(np.uint64) for name in _BITBOARD_COLUMNS])
    positions = positions.append_column("pinned", pa.array(pinned(boards).view(np.int64), pa.int64()))
    for name, squares in zip(("white_attacks_twice", "black_attacks_twice"), attacked_twice(boards)):
        positions = positions.append_column(name, pa.array(squares.view(np.int64), pa.int64()))
    return positions


def narrowed(table: pa.Table, schema: pa.Schema | None) -> pa.Table:
    """``table`` with each column cast to its type in ``schema`` (dictionary columns kept as they are)."""
    if schema is None:
        return table
    columns = []
    for field, column in zip(table.schema, table.columns):
        target = schema.field(field.name).type if field.name in schema.names else field.type
        if field.type != target and not pa.types.is_dictionary(field.type):
            column = column.cast(target)
        columns.append(column)
    return pa.table(columns, names=table.column_names)


def _parse_batch(batch: list[tuple[int, RawGame]], reader: str) -> tuple[pa.Table, pa.Table, pa.Table]:
    rows = RowBatch()
    routed = []
    for gamenumber, raw in batch:
        text, origin = prepare(decode(raw.data))
        # Games with notes from the splitter (an unclosed comment, ...) keep their error rows: replayed.
        game = route(text) if reader == "compiled" and not raw.notes else None
        if game is not None and not game.headers:
            game = None  # no tag pair: the replay decides whether it is a game at all (NOT_A_GAME / NOT_PGN)
        if game is None:
            _replay_into(rows, gamenumber, raw, text, origin)
        else:
            routed.append((gamenumber, raw, game, text, origin))
    if not routed:
        return rows.to_arrow()
    from cqlindex.ingest import compiled

    table, counts, rejected = compiled.read([(number, game) for number, _, game, _, _ in routed])
    rejected_set = set(rejected)
    for i, (gamenumber, raw, game, text, origin) in enumerate(routed):
        if i in rejected_set:
            _replay_into(rows, gamenumber, raw, text, origin)
        else:
            count = counts[gamenumber]
            rows.add_game(gamenumber, raw, game.headers, game.start_fen, game.chess960, count, count, 0)
    return _merge(rows, table)


def _merge(rows: RowBatch, compiled_positions: pa.Table | None) -> tuple[pa.Table, pa.Table, pa.Table]:
    """One batch in game order from the replayed games and the compiled reader's positions."""
    rows.games.sort(key=lambda g: g[0])
    games, positions, errors = rows.to_arrow()
    if compiled_positions is None:
        pass  # every routed game was rejected and replayed after the others: sort below
    elif positions.num_rows:
        # A column all None in the replayed part has Arrow's null type: take the compiled type.
        schema = pa.schema([f.with_type(compiled_positions.schema.field(f.name).type) if pa.types.is_null(f.type)
                            else f for f in positions.schema])
        positions = pa.concat_tables([positions.cast(schema),
                                      compiled_positions.select(positions.column_names).cast(schema)])
    else:
        return games, compiled_positions, errors
    positions = positions.sort_by([("gamenumber", "ascending"), ("positionid", "ascending")])
    if errors.num_rows:
        errors = errors.take(pc.sort_indices(errors, [("gamenumber", "ascending")]))
    return games, positions, errors
