"""A batch of whole games as columns: the columnar engine's input.

One query reads a batch of games' ``positions`` rows in (gamenumber, positionid) order, which
is each game's pre-order: a subtree is a contiguous range (a position and its descendants are
rows ``i .. last[i]``) and a parent comes before its children. Tree links are turned into row
indexes of the batch (``parent``, ``last``, ``start``), so that moving to another position is a
gather, not a lookup. Facts of the position that the index holds as SQL expressions (the
catalogue's ``sql_of``) are computed by DuckDB in the same scan.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from itertools import chain

import numpy as np

from cqlindex.columnar.values import NotColumnar
from cqlindex.store.duckdb_light import duckdb, fetch_numpy

BITBOARDS = ("wk", "wq", "wr", "wb", "wn", "wp", "bk", "bq", "br", "bb", "bn", "bp")
#: Read with every frame: what places the rows in their trees (and the boards, unless a run
#: has seen that its query does without them: :func:`read`).
_CORE = ("gamenumber", "positionid", "parent", "last_descendant", "ply")
#: The lazy group of the boards (read, stacked, as one (12, n) array).
_BOARDS = ("boards",)
#: The lazy group of the packed piece counts (cqlindex.board.material): ``power A`` without the boards.
_MATERIAL = ("material",)
#: The board as four planes, read as one lazy group: plane k holds bit k of the code (K 1, Q 2 ...
#: p 12) of the piece on each square. The twelve boards are disjoint, so equal planes are equal
#: boards: what a kernel comparing whole boards reads (echo's ``s & t == .``) in a third of the
#: columns (p18 of the patterns read the 12 boards of 11.4 M rows, a third of its time).
PLANES = tuple(f"plane{k}" for k in range(4))
_PLANES = ("planes",)
#: What a frame of candidate rows alone has no use for: it has no tree links (a tenth of its read).
_LINKS = frozenset({"parent", "last_descendant"})
#: Read when a kernel first asks for one of them (a second scan of the same rows): most
#: queries never look at the moves, and reading fewer columns is most of a frame's cost.
_LAZY = ("wtm", "en_passant", "null_move", "move_from", "move_to", "move_piece", "captured", "promotion", "castle",
         "rook_from", "rook_to")
#: Read, apart, when a kernel generates moves (cqlindex.columnar.generate): what else a
#: position's move list depends on. ``chess960`` is the game's, repeated on each of its rows.
_LEGAL = ("castling_rights", "ep_square", "chess960")
#: Nullable small columns, read with -1 for NULL.
_NULLABLE = frozenset({"parent", "move_from", "move_to", "move_piece", "captured", "promotion", "castle",
                       "rook_from", "rook_to", "ep_square"})
#: Read where the index has them (older builds lack them): a castling move's rook squares, the material.
_OPTIONAL = frozenset({"rook_from", "rook_to", "material"})


def _select(name: str) -> str:
    if name in PLANES:
        k = int(name[-1])
        return f"({' | '.join(f'p.{b}' for i, b in enumerate(BITBOARDS) if (i + 1) >> k & 1)}) AS {name}"
    if name == "chess960":
        return "coalesce((SELECT g.chess960 FROM games AS g WHERE g.gamenumber = p.gamenumber), false) AS chess960"
    return f"coalesce(p.{name}::INTEGER, -1) AS {name}" if name in _NULLABLE else f"p.{name}"


def _arrays(fetched: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The columns DuckDB fetched as numpy (no pyarrow import on a query's start), bitboards as uint64. Every column
    read is NOT NULL or coalesced; a NULL a fact's SQL gives anyway reads as false (or -1)."""
    out = {}
    for name, array in fetched.items():
        if hasattr(array, "mask"):  # a masked array; asking np.ma would import it (~10 ms)
            array = array.filled(False if array.dtype == bool else -1)
        out[name] = array.view(np.uint64) if name in BITBOARDS or name in PLANES else array
    return out


def _stacked(columns: dict[str, np.ndarray], names: Sequence[str] = BITBOARDS) -> np.ndarray:
    """The columns ``names`` (the twelve boards) as one (len(names), n) uint64 array."""
    n = len(columns["positionid"])
    return np.stack([columns[name] for name in names]) if n else np.zeros((len(names), 0), np.uint64)


def planes_of(boards: np.ndarray) -> np.ndarray:
    """The (4, n) planes (:data:`PLANES`) of (12, n) boards."""
    return np.stack([np.bitwise_or.reduce(boards[[i for i in range(12) if (i + 1) >> k & 1]], axis=0)
                     for k in range(4)])


#: What places a row in its tree: absent from a frame of candidate rows alone.
_TREE = frozenset({"start", "end", "parent", "last"})


class WholeGamesNeeded(Exception):
    """A kernel asked a frame of candidate rows alone for its rows' trees: the caller reads the
    batch's whole games instead. (The analysis says whether a query looks at other positions;
    a kernel that walks the tree anyway is met here rather than answered wrong.)"""


class Frame:
    """The rows of a batch of games, pre-order within each game, as numpy arrays; or, where the
    query reads no other position than the current one (``rows_only``), the candidate rows
    alone, in the same order, without tree links."""

    def __init__(self, columns: dict[str, np.ndarray], facts: dict[str, np.ndarray], variations: bool,
                 fetch=None, rows_only: bool = False) -> None:
        self.size = n = len(columns["positionid"])
        self.variations = variations
        self.gamenumber = columns["gamenumber"]
        self.positionid = columns["positionid"]
        self.ply = columns["ply"]
        #: Reads more columns of the same rows, in the same order (for _LAZY).
        self._fetch = fetch
        #: The 12 boards, K Q R B N P k q r b n p, as (12, n) uint64 (stacked by a chunk already,
        #: or here); read on first use where the scan left them out (``__getattr__``).
        if "boards" in columns:
            self.boards = columns["boards"]
        elif all(name in columns for name in BITBOARDS):
            self.boards = _stacked(columns)
        if "planes" in columns:
            self.planes = columns["planes"]
        self.facts = facts
        #: gamenumber -> its GAME_COLUMNS, where the frame was asked to read them.
        self.games: dict[int, tuple] = {}
        self.rows_only = rows_only
        if rows_only:
            return
        first = self.positionid == 0
        game = np.cumsum(first) - 1
        starts = np.flatnonzero(first)
        #: Row of each row's game's first position.
        self.start = starts[game] if n else np.zeros(0, np.int64)
        ends = np.r_[starts[1:], n] - 1
        #: Row of each row's game's last position.
        self.end = ends[game] if n else np.zeros(0, np.int64)
        parent = columns["parent"]
        self.parent = np.where(parent >= 0, self.start + parent, -1)
        if variations:
            self.last = self.start + columns["last_descendant"]
        else:  # the stored last descendant counts variation rows that were not read
            self.last = self.end.copy()

    def __getattr__(self, name: str):
        """A lazy column (_LAZY, _LEGAL, _BOARDS, _MATERIAL, _PLANES), read with the rest of its
        group on first use: the move that led to each row, its side to move; what generating its
        moves needs; the boards where the scan left them out; the material; the board's planes
        (:meth:`board_planes`). ``rook_from``/``rook_to`` and ``material`` are None where the
        index does not hold them."""
        if name in _TREE:
            raise WholeGamesNeeded(name)
        group = next((g for g in (_LAZY, _LEGAL, _BOARDS, _MATERIAL, _PLANES) if name in g), None)
        if group is None or name.startswith("_"):
            raise AttributeError(name)
        columns = self._fetch(group)
        for column in group:
            setattr(self, column, columns.get(column))
        return getattr(self, name)

    def has_boards(self) -> bool:
        """Whether the boards are read already (a kernel that can do without them then need not)."""
        return "boards" in self.__dict__

    def board_planes(self) -> np.ndarray:
        """(4, n) uint64: each row's board as :data:`PLANES`, made of the boards where they are read
        already, else read as four columns DuckDB makes (the boards are then never read)."""
        if self.has_boards() or self._fetch is None:
            return planes_of(self.boards) if self.size else np.zeros((4, 0), np.uint64)
        return self.planes

    @cached_property
    def occupied(self) -> np.ndarray:
        return np.bitwise_or.reduce(self.boards, axis=0) if self.size else np.zeros(0, np.uint64)

    @cached_property
    def white(self) -> np.ndarray:
        return np.bitwise_or.reduce(self.boards[:6], axis=0) if self.size else np.zeros(0, np.uint64)

    @cached_property
    def black(self) -> np.ndarray:
        return np.bitwise_or.reduce(self.boards[6:], axis=0) if self.size else np.zeros(0, np.uint64)

    @cached_property
    def children(self) -> tuple[np.ndarray, np.ndarray]:
        """(first, rows): the children of row i are ``rows[first[i]:first[i + 1]]``, in child order
        (ascending rows, as pre-order numbers them)."""
        has = np.flatnonzero(self.parent >= 0)
        order = has[np.argsort(self.parent[has], kind="stable")]
        counts = np.bincount(self.parent[has], minlength=self.size)
        first = np.zeros(self.size + 1, np.int64)
        np.cumsum(counts, out=first[1:])
        return first, order

    @cached_property
    def child_count(self) -> np.ndarray:
        first, _ = self.children
        return np.diff(first)

    @cached_property
    def depth(self) -> np.ndarray:
        """Each row's distance from its game's root (its level)."""
        ply = self.ply.astype(np.int64)
        return ply - ply[self.start] if self.size else np.zeros(0, np.int64)

    @cached_property
    def levels(self) -> list[np.ndarray]:
        """The rows by their distance from their game's root: a row's parent is one level up."""
        level = self.depth
        order = np.argsort(level, kind="stable")
        return np.split(order, np.flatnonzero(np.diff(level[order])) + 1) if self.size else []

    @cached_property
    def mailbox(self) -> np.ndarray:
        """(n, 64) int8: the piece on each square as the index of its board (K Q R B N P k q r b n
        p: 0-11), -1 where empty. ``piecename`` reads a square with one gather here instead of
        one per board; 64 bytes a position, made on first use."""
        from cqlindex.columnar.bitboards import explode, lowest_square

        box = np.full((self.size, 64), -1, np.int8)
        for index in range(12):
            rows, bits = explode(self.boards[index])
            box[rows, lowest_square(bits)] = index
        return box

    @cached_property
    def piece_ids(self) -> np.ndarray:
        """(n, 64) int8: who stands on each square, a piece named by the square it stood on at
        its game's root (-1: empty), the moves replayed level by level down every line. A
        promoted pawn keeps its name; castling moves the rook as well (as the tree-walker's
        :class:`cqlindex.filters.variables.python.PieceIds`)."""
        if self.rook_from is None:
            raise LookupError("the index holds no castling rook squares")
        ids = np.full((self.size, 64), -1, np.int8)
        roots = np.flatnonzero(self.parent < 0)
        squares = np.arange(64, dtype=np.uint64)
        occupied = ((self.occupied[roots, None] >> squares) & np.uint64(1)).astype(bool)
        ids[roots] = np.where(occupied, np.arange(64, dtype=np.int8), np.int8(-1))
        # What each level's loop reads, worked out for every row at once: a level is a few
        # hundred rows, so the loop's cost is its number of numpy calls, not their sizes.
        moves = (self.null_move == 0) & (self.move_from >= 0)
        source, target = self.move_from.astype(np.int64), self.move_to.astype(np.int64)
        castles = moves & (self.castle >= 0)
        rook_from, rook_to = self.rook_from.astype(np.int64), self.rook_to.astype(np.int64)
        passant = moves & self.en_passant.astype(bool)
        behind = target + np.where(self.wtm, 8, -8)
        for rows in self.levels[1:]:
            ids[rows] = ids[self.parent[rows]]
            moved = rows[moves[rows]]
            mover = ids[moved, source[moved]]
            c = rows[castles[rows]]
            rook = ids[c, rook_from[c]]
            e = rows[passant[rows]]
            ids[e, behind[e]] = -1
            ids[moved, source[moved]] = -1
            ids[c, rook_from[c]] = -1
            ids[moved, target[moved]] = mover
            ids[c, rook_to[c]] = rook
        return ids


    @cached_property
    def piece_places(self) -> np.ndarray:
        """(n, 64) int8: where each piece (by its name, as :attr:`piece_ids` names it) stands at
        each row, -1 where it is off the board: :attr:`piece_ids` turned round, so that following a
        piece variable is one look-up a row, not a search of 64 squares (turton's three piece
        loops spent a third of their time there)."""
        ids = self.piece_ids
        places = np.full((self.size, 64), -1, np.int8)
        row, square = np.nonzero(ids >= 0)
        places[row, ids[row, square]] = square
        return places


#: What game filters read of each game, from the games table.
GAME_COLUMNS = ("gamenumber", "result", "year", "white_elo", "black_elo", "white", "black", "tags")


#: A position's key in a frame of candidate rows alone: gamenumber * _KEY + positionid.
_KEY = 1 << 24


def _keys(numbers: list[int], rows: dict[int, list[int]]) -> np.ndarray:
    """The keys of the candidate rows of games ``numbers``, in order."""
    lists = [rows.get(g, ()) for g in numbers]
    lengths = np.fromiter(map(len, lists), np.int64, len(lists))
    ids = np.fromiter(chain.from_iterable(lists), np.int64, int(lengths.sum()))
    return np.repeat(np.asarray(numbers, np.int64) * _KEY, lengths) + ids


def _in_order(columns: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``columns`` with their rows in (gamenumber, positionid) order. The scan is read without an
    ORDER BY: DuckDB keeps a table's insertion order (``preserve_insertion_order``), which is
    this order in an index, and sorting a batch's seventeen columns in SQL cost more than reading
    them (0.27 of 0.44 s over the 1.55 M rows of the 20,000-game index). Checked here, and sorted
    where it does not hold, so a frame's order never rests on how the scan ran."""
    games, ids = columns["gamenumber"], columns["positionid"]
    later = games[1:] > games[:-1]
    if (later | ((games[1:] == games[:-1]) & (ids[1:] > ids[:-1]))).all():
        return columns
    order = np.argsort(games.astype(np.int64) * _KEY + ids, kind="stable")  # one key: quicker than lexsort
    return {name: array[order] for name, array in columns.items()}


def load(con: duckdb.DuckDBPyConnection, gamenumbers: Sequence[int], variations: bool,
         facts: dict[str, object], present: set[str] | None = None, games: bool = False,
         rows: dict[int, list[int]] | None = None, where: str | None = None) -> Frame:
    """The frame of ``gamenumbers``: :func:`read`'s chunk as one frame."""
    return read(con, gamenumbers, variations, facts, present, games, rows, where).frame()


def read(con: duckdb.DuckDBPyConnection, gamenumbers: Sequence[int], variations: bool,
         facts: dict[str, object], present: set[str] | None = None, games: bool = False,
         rows: dict[int, list[int]] | None = None, where: str | None = None, boards: bool = True,
         planes: bool = False) -> Chunk:
    """The rows of ``gamenumbers`` (ascending), as a :class:`Chunk`; ``facts``: name -> SQL text over the alias ``p``
    (an int constant, or None for true everywhere); ``present``: the
    columns of the index's positions (None: it has the optional ones); ``games``: read the
    games' rows too (``Frame.games``), for game filters; ``rows`` (gamenumber -> positionids):
    read those rows alone, a frame without tree links; ``where`` (SQL over ``p``, the
    ``gamenumbers`` every game from the first to the last): read the rows it selects alone;
    ``boards`` False: leave the boards out of the scan, for a second scan at a kernel's first
    ask (:attr:`Chunk.boards_read_later` says whether one asked); ``planes``: read the board's
    planes (:data:`PLANES`) in the scan, where a kernel asked for them alone
    (:attr:`Chunk.planes_read_later`)."""
    numbers = [int(g) for g in gamenumbers]
    params = game_params = [numbers[0], numbers[-1], numbers] if numbers else [0, -1, []]
    games_where = "p.gamenumber BETWEEN ? AND ?"
    if numbers and numbers[-1] - numbers[0] + 1 != len(numbers):
        # Only where the batch skips games: the semi-join on the list cost 4 of the 11 ms a
        # batch of 51 K rows took to read, and a batch of consecutive games needs no list.
        games_where += " AND p.gamenumber IN (SELECT unnest(?::INTEGER[]))"
    else:
        params = game_params = params[:2]
    keys = None
    rows_only = rows is not None or where is not None
    if where is not None:
        where = f"p.gamenumber BETWEEN ? AND ? AND ({where})"
        params = params[:2]
    elif rows is not None:
        # The keys as a registered numpy column the query scans: a list parameter of a million
        # numbers costs seconds to bind, a registered array nothing.
        keys = {"k": _keys(numbers, rows)}
        view = f"cqlindex_candidates_{id(keys)}"
        where = (f"p.gamenumber BETWEEN ? AND ? AND p.gamenumber::BIGINT * {_KEY} + p.positionid "
                 f"IN (SELECT k FROM {view})")
        params = params[:2]
    else:
        where = games_where if variations else games_where + " AND p.mainline"

    def scan(select: list[str]):
        sql = f"SELECT {', '.join(select)} FROM positions AS p WHERE {where}"
        if keys is not None:
            con.register(view, keys)
        try:
            return _in_order(_arrays(fetch_numpy(con, sql, params)))
        finally:
            if keys is not None:
                con.unregister(view)

    def fetch(names: Sequence[str]) -> dict[str, np.ndarray]:
        wanted = [_select(c) for c in names if c not in _OPTIONAL or present is None or c in present]
        return scan([_select("gamenumber"), _select("positionid"), *wanted])  # the order's key too

    board_columns = BITBOARDS if boards else PLANES if planes else ()
    select = [_select(c) for c in (*_CORE, *board_columns) if not (rows_only and c in _LINKS)]
    computed: dict[str, object] = {}
    for i, (name, sql) in enumerate(facts.items()):
        if isinstance(sql, int) or sql is None:
            computed[name] = sql
        else:
            select.append(f"({sql}) AS fact_{i}")
            computed[name] = f"fact_{i}"
    columns = scan(select)
    games_read = columns["gamenumber"]  # in order (_in_order): a game's rows are one run
    if not rows_only and np.count_nonzero(columns["positionid"] == 0) != (
            np.count_nonzero(games_read[1:] != games_read[:-1]) + 1 if len(games_read) else 0):
        # Some game's rows are not all here (a Spark task given the candidate rows alone): its
        # tree cannot be rebuilt, so the tree-walker, which reads such rows as they are, answers.
        raise NotColumnar(None, "the games' rows are not whole")
    n = len(columns["positionid"])
    out_facts = {}
    for name, where_ in computed.items():
        if where_ is None:
            out_facts[name] = np.ones(n, bool)
        elif isinstance(where_, int):
            out_facts[name] = np.full(n, where_, np.int64)
        else:
            out_facts[name] = columns.pop(where_)
    chunk = Chunk(columns, out_facts, variations, fetch, rows_only)
    if games:
        chunk.games = {row[0]: row for row in con.execute(
            f"SELECT {', '.join(GAME_COLUMNS)} FROM games AS p WHERE {games_where}", game_params).fetchall()}
    return chunk


class Chunk:
    """The rows one scan read, cut into frames of a few games each (:meth:`frame`).

    Why apart from :class:`Frame`: DuckDB reads a range of rows at about 100 ns a row once the
    range spans a row group (122,880 rows), but at 170 ns a row for ranges of 50,000 (a row group
    is decompressed for the few vectors a range takes of it), while a kernel's memory grows with
    its frame's rows. So a scan reads a few hundred thousand rows and the engine evaluates them
    a frame at a time: the whole file's p19 of the patterns read in 229 scans took 2.0 s of its
    7.5. A column read later (the moves') is read for the whole chunk at the first frame's ask.
    """

    def __init__(self, columns: dict[str, np.ndarray], facts: dict[str, np.ndarray], variations: bool,
                 fetch, rows_only: bool) -> None:
        self.size = len(columns["positionid"])
        # The boards stacked once for the chunk: a frame's are a view of them, not a copy.
        if all(name in columns for name in BITBOARDS):
            columns["boards"] = _stacked(columns)
            for name in BITBOARDS:
                del columns[name]
        if all(name in columns for name in PLANES):
            columns["planes"] = _stacked(columns, PLANES)
            for name in PLANES:
                del columns[name]
        self.columns = columns
        #: Whether a kernel asked for the boards the scan left out (the run then reads them with the rest).
        self.boards_read_later = False
        #: Whether a kernel asked for the planes the scan left out (and not the boards).
        self.planes_read_later = False
        self.facts, self.variations, self.rows_only = facts, variations, rows_only
        self.gamenumber = columns["gamenumber"]
        #: gamenumber -> its GAME_COLUMNS, where the chunk was asked to read them (shared by its frames).
        self.games: dict[int, tuple] = {}
        self._fetch = fetch
        self._later: dict[tuple[str, ...], dict[str, np.ndarray]] = {}

    def _read_later(self, names: Sequence[str]) -> dict[str, np.ndarray]:
        key = tuple(names)
        if key not in self._later:
            if key == _BOARDS:
                self.boards_read_later = True
                self._later[key] = {"boards": _stacked(self._fetch(BITBOARDS))}
            elif key == _PLANES:
                self.planes_read_later = True
                self._later[key] = {"planes": _stacked(self._fetch(PLANES), PLANES)}
            else:
                self._later[key] = self._fetch(names)
        return self._later[key]

    def rows_of(self, first_game: int, last_game: int) -> tuple[int, int]:
        """The chunk's rows of the games from ``first_game`` to ``last_game``: [begin, end)."""
        begin = np.searchsorted(self.gamenumber, first_game, side="left")
        end = np.searchsorted(self.gamenumber, last_game, side="right")
        return int(begin), int(end)

    def frame(self, begin: int = 0, end: int | None = None) -> Frame:
        """The frame of rows [begin, end), which start and end at a game's edges (every row: the default)."""
        end = self.size if end is None else end
        if begin == 0 and end == self.size:
            frame = Frame(self.columns, self.facts, self.variations, self._read_later, self.rows_only)
        else:
            cut = slice(begin, end)
            frame = Frame({name: array[..., cut] for name, array in self.columns.items()},
                          {name: array[cut] for name, array in self.facts.items()}, self.variations,
                          lambda names: {name: None if array is None else array[..., cut]
                                         for name, array in self._read_later(names).items()},
                          self.rows_only)
        frame.games = self.games
        return frame
