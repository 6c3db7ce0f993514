"""Matching games as PGN, in the reference CQL engine's convention.

The reference engine writes every matching game as it read it (tags, comments, NAGs,
variations) and adds its *match string* (``CQL`` unless told otherwise) as a comment after the
move that led to each matching position; a match at the start position goes into the comment
before the first move, together with ``Game number N``. This module does the same:

* The game text is read again from its source: ``games.source_file`` from
  ``games.byte_offset`` up to the next game of that file (offsets count decompressed bytes, so
  ``.gz``/``.bz2``/``.zst`` work), decoded and tidied exactly as the build did
  (:func:`cqlindex.ingest.worker.decode` and :func:`~cqlindex.ingest.worker.prepare`) and parsed
  by ``chess.pgn.read_game``.
* Its nodes are numbered as ``positions.positionid`` is (FACTS.md section 2: pre-order, the main
  continuation before the variations), and every node's board is checked against the index
  (polyglot key per positionid, and the node count). The source may have moved, changed, or
  been read differently (python-chess carries on after an illegal move, the build stops).
* When that check fails, the game is rebuilt from the index instead: the tags, start FEN, and
  every node's SAN, comments and NAGs from ``positions``. The moves and annotations are the same;
  what only the text had (``;`` comments, ``%`` lines, line breaks) is lost. A game the build
  truncated at an illegal move comes out truncated, as the reference engine writes it.

That path (python-chess's parse, replay and export, ~150 games/s) is the reference: by default
:func:`write_pgn` writes each game from the index's columns with :mod:`cqlindex.output.movetext`
(the same bytes; ~6,500 games/s in scripts/bench_output.py, ~10,000 with their sources gone)
and sends here only the games that writer cannot do exactly (cut at an illegal move, unusual
FEN or tag text, query edits). A game of one line without a Result tag or with ``*`` gets its
tags from python-chess's reading of its text without playing the moves (the Result from the
result token), once the text's other tags and moves are the index's: of the first 20,000
gnuchess games, 17 are left to python-chess instead of 243 (4.5-4.8 -> 3.3-4.3 s from the
``.zst`` source, alternating runs). At 100,000 games of the 34 M-position benchmark index, the
kept bytes of :mod:`cqlindex.output.sources`, the flat tags, the join in :func:`_meta` and a
leaner :func:`~cqlindex.output.movetext.fetch` took the write from 29.5-30.5 s to 21.0-21.8 s
(alternating runs, on a VM running pure Python ~3x slower than usual).
Where a game's file is gone, the rebuild from the index is the reference: the writer then
takes the games with Result ``*`` and escaped tag values too.

The header comment is ``Game number N`` (the reference engine's words) followed by the game's
sort values, each as ``label: value`` (the ``sort`` filter's documentation string, or its text),
after the game's own opening comment and before the match string when the start position matches::

    { Game number 12; checks: 3 }
    1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# { CQL } 1-0

The text of the query's ``comment`` filters (``///`` too) goes to the position each was
evaluated at, before the match string; as in CQL, what a filter that failed said is dropped.
Games come in the result's order (gamenumber, or the sort values, largest first). ``silent``
writes the games exactly as they were, as the reference engine's ``silent`` does; ``quiet``
only drops comments CQL generates besides the header and the match string, and cqlindex
generates none. A game the build cut short at an illegal move gets the reference engine's
``Error reading move: SAN`` comment where its line stops. Without ``variations`` only main-line
positions can match, but the game is still written whole.
"""

from __future__ import annotations

import gc
import io
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TextIO

import chess
import chess.pgn
import chess.polyglot

from cqlindex.errors import InputError
from cqlindex.output.sources import Sources

#: Games whose index rows are fetched together.
BATCH = 500
#: Games whose tags are fetched together (a query on the tags map reads whole row groups).
HEADS = 20 * BATCH
_SIGN = 1 << 63


@dataclass(slots=True)
class AnnotatedGame:
    """One matching game, ready to export; ``rebuilt`` when it came from the index, not its file."""

    gamenumber: int
    game: chess.pgn.Game
    rebuilt: bool


@dataclass(slots=True)
class PgnSummary:
    """What :func:`write_pgn` wrote: the number of games, and which ones were rebuilt from the index."""

    games: int = 0
    rebuilt: list[int] = field(default_factory=list)
    #: games written through python-chess (the others straight from the index's columns)
    reference: int = 0


def write_pgn(con, result, out: TextIO, *, matchstring: str = "CQL", variations: bool,
              silent: bool = False, with_header: bool = True, reference: bool = False) -> PgnSummary:
    """Write the games of ``result.matches`` to ``out`` in the result's order, matches marked.

    ``con`` is a connection to the index the result came from; ``silent`` adds nothing to the
    games, ``with_header`` False leaves out the header comment only. Games follow each other
    separated by a blank line. Each batch of games is written from the index's columns by
    :mod:`cqlindex.output.movetext` (the same bytes, ~30x faster); a game it cannot write
    exactly, or every game when ``reference``, goes through python-chess as described above.
    """
    summary = PgnSummary()
    options = dict(matchstring=matchstring, variations=variations, silent=silent, with_header=with_header)
    gone: dict[str, bool] = {}
    # One reader for the whole write: a compressed source is read forward once, not from its
    # start again for every batch that needs its text.
    sources = Sources(index_directory(con))
    try:
        for matches in result.batches():  # the whole result, or a streamed run's batches as they come
            write_games(con, result, matches, out, summary, options, reference=reference, sources=sources, gone=gone)
    finally:
        sources.close()
    return summary


def write_games(con, result, matches: Mapping[int, list[int]], out: TextIO, summary: PgnSummary, options: dict, *,
                reference: bool, sources: Sources, gone: dict[str, bool]) -> None:
    """Write the games of ``matches`` (a batch of ``result``, or a part of one: see
    :mod:`cqlindex.output.pgn_workers`) to ``out`` in their order, counted in ``summary``.
    ``options`` are :func:`write_pgn`'s; ``sources`` reads the games' files and ``gone`` says which
    are missing, both kept from one call to the next by the caller."""
    from cqlindex.output.movetext import heads

    numbers = list(matches)
    meta: dict = {}
    known: dict = {}  # the games' heads, read for HEADS games at a time
    for start in range(0, len(numbers), BATCH):
        if not reference and start % HEADS == 0:
            known = heads(con, numbers[start:start + HEADS])
        with _collected_per_batch():
            _write_batch(con, result, matches, numbers, numbers[start:start + BATCH], meta, gone, known,
                         out, summary, options, reference, sources)


def _write_batch(con, result, matches: Mapping[int, list[int]], numbers: list[int], batch: list[int], meta: dict,
                 gone: dict[str, bool], known: dict, out: TextIO, summary: PgnSummary, options: dict,
                 reference: bool, sources: Sources) -> None:
    """Write the games ``batch`` of ``numbers`` (a batch of ``result``, ``matches``), from the
    index's columns or through python-chess; ``meta`` is filled with :func:`_meta` of ``numbers``
    the first time a game goes through python-chess, ``gone`` says which source files are missing,
    ``known`` has the games' :func:`~cqlindex.output.movetext.heads`.

    A game the columns' writer takes only when python-chess's path would rebuild it from the
    index (:func:`cqlindex.output.movetext.exact` with ``rebuilt``) is written by it when its
    source file is gone: the same rows then make the same bytes, tag values escaped as
    :func:`_from_index` does, and the game is counted as rebuilt all the same. Where the source
    is there, a game of one line whose text has the index's tags and moves (the Result tag
    ``*`` or missing, most often) is written by it too, with the tags python-chess reads from
    the text (:func:`_text_tags`): its Result then comes from the movetext, as python-chess's does."""
    from cqlindex.output.movetext import exact, fetch, write_game

    silent, with_header, matchstring = options["silent"], options["with_header"], options["matchstring"]
    variations = options["variations"]
    labels = [key.label for key in result.keys]
    rows = {} if reference else fetch(con, batch, known)
    texts: dict[int, str] = {}

    def written(number: int, game) -> str:
        if silent:
            return write_game(game, "", set(), {}, matchstring)
        header = ""
        if with_header:
            values = result.sort_values.get(number, ())
            header = "; ".join([f"Game number {number}", *(f"{label}: {'none' if v is None else v}"
                                                           for label, v in zip(labels, values))])
        return write_game(game, header, _positions(matches[number], game.count), result.comments.get(number, {}),
                          matchstring)

    if_gone, rebuilt = [], set()
    for number in batch:
        game = rows.get(number)
        ids = matches[number]
        if game is None or (not silent and result.edits.get(number)) or (ids and not (
                0 <= min(ids) and max(ids) < (game.count if variations else game.mainline))):
            continue  # python-chess's path writes it (or says what is wrong)
        if exact(game):
            texts[number] = written(number, game)
        elif exact(game, rebuilt=True):
            if_gone.append(number)
    for number in sorted(if_gone):  # file order: each source is read forward
        game = rows[number]
        if _gone(con, game.source_file, gone):
            texts[number] = written(number, replace(game, tags=[(k, _escape_tag(v)) for k, v in game.tags]))
            rebuilt.add(number)
        elif game.parents is None:
            if not meta:  # where every game's text is: one window over the games table, once a batch of the result
                meta.update(_meta(con, numbers))
            tags = _text_tags(sources, meta[number], game)
            if tags is not None:
                texts[number] = written(number, replace(game, tags=tags))
    slow = [number for number in batch if number not in texts]
    if slow:
        if not meta:
            meta.update(_meta(con, numbers))
        for item in annotated_games(con, result, numbers=slow, meta=meta, matches=matches, sources=sources,
                                    **options):
            texts[item.gamenumber] = item.game.accept(
                chess.pgn.StringExporter(headers=True, variations=True, comments=True))
            if item.rebuilt:
                rebuilt.add(item.gamenumber)
        summary.reference += len(slow)
    summary.rebuilt += [number for number in batch if number in rebuilt]
    for number in batch:
        out.write(texts.pop(number))
        out.write("\n\n")
        summary.games += 1


def _positions(ids: list[int], count: int) -> Collection[int]:
    """The positions ``ids`` of a game of ``count`` positions, for membership: a range when they
    are every one in order (a query on the tags, ``true``), cheaper than a set of them."""
    if len(ids) == count and ids == list(range(count)):
        return range(count)
    return set(ids)


def _gone(con, path: str | None, known: dict[str, bool]) -> bool:
    """Whether the source file ``path`` (as the games table names it) cannot be found, as
    :class:`Sources` looks for it; asked once per file and write."""
    if path is None:
        return True
    if path not in known:
        known[path] = not Sources(index_directory(con)).locate(path).is_file()
    return known[path]


@contextmanager
def _collected_per_batch() -> Iterator[None]:
    """The garbage collector paused while a batch of games is written, then run once over the
    young objects, the batch's own gone by then. A batch's rows are many small lists alive until
    it is written: the collector, left on, would scan them and every older object (the result,
    the modules) several times a batch. The cycles python-chess's game trees leave are collected."""
    automatic = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if automatic:
            gc.enable()
        gc.collect(1)


def annotated_games(con, result, *, matchstring: str = "CQL", variations: bool, silent: bool = False,
                    with_header: bool = True, numbers: list[int] | None = None,
                    meta: dict | None = None, matches: Mapping[int, list[int]] | None = None,
                    sources: Sources | None = None) -> Iterator[AnnotatedGame]:
    """The matching games of ``result``, in its order, as python-chess games with the match comments added
    (without the ``Game number`` header comment when not ``with_header``: CQL's -noheader);
    only ``numbers`` of them, in that order, when given (``meta``: :func:`_meta` of them or more, once;
    ``matches``: the batch of ``result`` that holds them, when it is streamed; ``sources``: the
    caller's reader of the source files, which it closes)."""
    matches = result.matches if matches is None else matches
    numbers = list(matches) if numbers is None else numbers
    if not numbers:
        return
    if meta is None:
        meta = _meta(con, numbers)
    labels = [key.label for key in result.keys]
    own = sources is None
    if sources is None:
        sources = Sources(index_directory(con))
    try:
        for start in range(0, len(numbers), BATCH):
            batch = numbers[start:start + BATCH]
            keys = dict(con.execute(
                "SELECT gamenumber, list(zobrist ORDER BY positionid) FROM positions "
                "WHERE gamenumber BETWEEN ? AND ? AND gamenumber IN (SELECT unnest(?::INTEGER[])) "
                "GROUP BY gamenumber", [min(batch), max(batch), batch]).fetchall())
            ready: dict[int, AnnotatedGame] = {}
            for number in sorted(batch):  # file order: each source is read forward
                if number not in meta:
                    raise ValueError(f"game {number} is not in this index")
                source_file, offset, next_offset, count, mainline = meta[number]
                ids = matches[number]
                limit = count if variations else mainline
                bad = [i for i in ids if not 0 <= i < limit]
                if bad:
                    raise ValueError(f"game {number}: positions {bad} are not in its "
                                     f"{'tree' if variations else 'main line'}")
                end = next_offset if next_offset is not None and next_offset > offset else None
                nodes = _from_source(sources, source_file, offset, end, keys[number])
                rebuilt = nodes is None
                if nodes is None:
                    nodes = _from_index(con, number)
                if not silent:
                    # the evaluator's: imported only for a game written here
                    from cqlindex.filters.output.edits import apply_edits

                    apply_edits(nodes[0].game(), nodes, result.edits.get(number, []))
                    values = result.sort_values.get(number, ())
                    header = "; ".join([f"Game number {number}",
                                        *(f"{label}: {'none' if v is None else v}" for label, v in zip(labels, values))]
                                       ) if with_header else ""
                    _mark(nodes, ids, header, matchstring, result.comments.get(number, {}))
                ready[number] = AnnotatedGame(number, nodes[0].game(), rebuilt)
            for number in batch:
                yield ready.pop(number)
    finally:
        if own:
            sources.close()


def _meta(con, numbers: list[int]) -> dict[int, tuple]:
    """Where each game's text is (file, offset, the next game's offset) and its position counts,
    asked once for all the games of :func:`write_pgn`'s batch. The next game of the same file is
    nearly always the next game number: a join on it decides most games, and a window over the
    games table (0.15 s at 435,000 games, each time) only the others, such as a file's last game."""
    known: dict[int, tuple] = {}
    undecided: list[int] = []
    for number, source_file, offset, next_file, next_offset, positions, mainline in con.execute(
            "SELECT g.gamenumber, g.source_file, g.byte_offset, n.source_file, n.byte_offset, g.positions, "
            "g.mainline_positions FROM games AS g LEFT JOIN games AS n ON n.gamenumber = g.gamenumber + 1 "
            "WHERE g.gamenumber IN (SELECT unnest(?::INTEGER[]))", [numbers]).fetchall():
        if source_file is not None and next_file == source_file:
            known[number] = (source_file, offset, next_offset, positions, mainline)
        else:
            undecided.append(number)
    if undecided:
        known.update({row[0]: row[1:] for row in con.execute(
            "SELECT gamenumber, source_file, byte_offset, next_offset, positions, mainline_positions "
            "FROM (SELECT gamenumber, source_file, byte_offset, positions, mainline_positions, "
            "      lead(byte_offset) OVER (PARTITION BY source_file ORDER BY gamenumber) AS next_offset FROM games) "
            "WHERE gamenumber IN (SELECT unnest(?::INTEGER[]))", [undecided]).fetchall()})
    return known


def _mark(nodes: list[chess.pgn.GameNode], ids: list[int], header: str, matchstring: str,
          comments: dict[int, list[str]]) -> None:
    """The header before the first move, then at each position the query's comments and the match string."""
    matched = set(ids)
    root = nodes[0]
    root.comment = _join(root.comment, header)
    for i in sorted(matched | set(comments)):
        nodes[i].comment = _join(nodes[i].comment, *comments.get(i, ()), matchstring if i in matched else None)


def _join(*parts: str | None) -> str:
    return " ".join(p for p in parts if p)


def index_directory(con) -> Path | None:
    """The folder of the index file behind ``con`` (None in memory)."""
    rows = con.execute("SELECT path FROM duckdb_databases() WHERE database_name = current_database()").fetchall()
    return Path(rows[0][0]).resolve().parent if rows and rows[0][0] else None


def _from_source(sources: Sources, path: str, offset: int, end: int | None,
                 keys: list[int]) -> list[chess.pgn.GameNode] | None:
    """The game's nodes in positionid order, read from its file; None unless every board agrees."""
    text = _game_text(sources, path, offset, end)
    if text is None:
        return None
    try:
        game = chess.pgn.read_game(io.StringIO(text), Visitor=_Builder)
    except Exception:  # noqa: BLE001 - python-chess can raise on pathological text; the index still has the game
        return None
    if game is None:
        return None
    return _preorder(game, keys)


def _game_text(sources: Sources, path: str, offset: int, end: int | None) -> str | None:
    """The game's text as the build read it (decoded, tidied); None if its file cannot be read."""
    from cqlindex.ingest.worker import decode, prepare  # the build's reader: only for a game read again

    try:
        data = sources.read(path, offset, end)
    except (InputError, OSError, EOFError):
        sources.close()
        return None
    return prepare(decode(data))[0]


def _text_tags(sources: Sources, where: tuple, rows) -> list[tuple[str, str]] | None:
    """The tags python-chess's path would write for a game of one line, read from its text
    without playing the moves; None unless the text is the index's game: the same tags but
    Result, and the same moves, written as the index spells them."""
    source_file, offset, next_offset = where[:3]
    text = _game_text(sources, source_file, offset, next_offset if next_offset is not None and next_offset > offset
                      else None)
    if text is None:
        return None
    # Unplayed moves leave python-chess blind to "(": a text that may have a variation (or a
    # result token inside one) is left to the full path. Lines starting "[" are tags: python-chess
    # ends a game's movetext at such a line.
    if any("(" in line for line in text.splitlines() if not line.startswith("[")):
        return None
    try:
        read = chess.pgn.read_game(io.StringIO(text), Visitor=_TagsAndMoves)
    except Exception:  # noqa: BLE001 - as in _from_source: the python-chess path then decides
        return None
    if read is None:
        return None
    tags, moves = read.tags, read.moves
    if {k: v for k, v in tags.items() if k != "Result"} != {k: v for k, v in rows.tags if k != "Result"}:
        return None  # (their order is python-chess's: the roster first, then as the text has them)
    # python-chess hands the moves over without their check marks
    if rows.nulls or rows.count != len(moves) + 1 or moves != [san.rstrip("+#") for san in rows.sans[1:]]:
        return None
    return list(tags.items())


class _TagsAndMoves(chess.pgn.BaseVisitor):
    """A game's tags as :class:`_Builder` ends with them (the Result tag, when ``*`` or missing,
    set from the movetext's result token, as GameBuilder sets it) and its move tokens as
    written, without playing them."""

    def begin_game(self) -> None:
        self.tags: dict[str, str] = {}
        self.moves: list[str] = []

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.tags[tagname] = tagvalue

    def begin_parse_san(self, board: chess.Board, san: str):
        self.moves.append(san)
        return chess.pgn.SKIP  # not played (and so "(" goes unread: see _text_tags)

    def visit_result(self, result: str) -> None:
        if self.tags.get("Result", "*") == "*":
            self.tags["Result"] = result

    def result(self) -> "_TagsAndMoves":
        return self


class _Builder(chess.pgn.GameBuilder):
    """Only the tags the game has, as in the index (python-chess would add '?' for missing roster
    tags), and the reference engine's comment where an illegal move cut a line short."""

    def begin_game(self) -> None:
        super().begin_game()
        self.game.headers.clear()

    def parse_san(self, board: chess.Board, san: str) -> chess.Move:
        self.san = san  # the move text, should python-chess refuse it
        return super().parse_san(board, san)

    def handle_error(self, error: Exception) -> None:
        if isinstance(error, _MOVE_ERRORS):
            node = self.variation_stack[-1]
            node.comment = _join(node.comment, f"Error reading move: {self.san}")
        self.game.errors.append(error)


#: What python-chess raises for a move it cannot play (parse_san is then the call that failed).
_MOVE_ERRORS = (chess.IllegalMoveError, chess.InvalidMoveError, chess.AmbiguousMoveError)


def _preorder(game: chess.pgn.Game, keys: list[int]) -> list[chess.pgn.GameNode] | None:
    """Pre-order walk (child 0 first) with one board, checking each node's polyglot key."""
    nodes: list[chess.pgn.GameNode] = []
    board = game.board()
    stack: list[chess.pgn.GameNode | None] = [game]
    while stack:
        node = stack.pop()
        if node is None:
            board.pop()
            continue
        if node.move is not None:
            board.push(node.move)
            stack.append(None)
        i = len(nodes)
        if i >= len(keys):
            return None
        key = chess.polyglot.zobrist_hash(board)
        if (key - (1 << 64) if key >= _SIGN else key) != keys[i]:
            return None
        nodes.append(node)
        stack.extend(reversed(node.variations))
    return nodes if len(nodes) == len(keys) else None


def _escape_tag(value: str) -> str:
    """A tag value as the PGN standard writes it: '\\' and '"' escaped with a backslash."""
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _from_index(con, number: int) -> list[chess.pgn.GameNode]:
    """The game rebuilt from its rows: tags, start position, and every node's move and annotations."""
    # Indexes before schema 3 have no bad_move column; their rebuilt games go without the comment.
    # Every result read to its end: DuckDB refuses other work on the connection while one is open.
    named = {column[0] for column in con.execute("SELECT * FROM games LIMIT 0").description}
    (tags, start_fen, chess960, bad_move), = con.execute(
        f"SELECT tags, start_fen, chess960, {'bad_move' if 'bad_move' in named else 'NULL'} FROM games "
        "WHERE gamenumber = ?", [number]).fetchall()
    game = chess.pgn.Game()
    game.headers.clear()
    # The index keeps tag values as meant; python-chess writes them as they are, so escape here.
    game.headers.update({name: _escape_tag(value) for name, value in (tags or {}).items()})
    if start_fen and "FEN" not in game.headers:
        game.headers["SetUp"], game.headers["FEN"] = "1", start_fen
    rows = con.execute(
        "SELECT parent, san, comment, comment_before, nags FROM positions "
        "WHERE gamenumber = ? ORDER BY positionid", [number]).fetchall()
    nodes: list[chess.pgn.GameNode] = [game]
    boards = [chess.Board(start_fen or chess.STARTING_FEN, chess960=bool(chess960))]
    game.comment = rows[0][2] or ""
    for parent, san, comment, before, nags in rows[1:]:
        board = boards[parent].copy(stack=False)
        move = board.parse_san(san)
        board.push(move)
        nodes.append(nodes[parent].add_variation(move, comment=comment or "", starting_comment=before or "",
                                                 nags=nags or ()))
        boards.append(board)
    # The index keeps the move, not the node it stopped at: the reference engine aborts on an
    # illegal move inside a variation, so the end of the main line is where it would be.
    if bad_move is not None:
        end = game.end()
        end.comment = _join(end.comment, f"Error reading move: {bad_move}")
    return nodes
