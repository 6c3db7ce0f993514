"""Matching games written as PGN straight from the index's columns, without python-chess.

:mod:`cqlindex.output.pgn` re-reads each game's text and re-exports it through python-chess
(parse, replay, export): about 175 games/s. Everything that export writes is in the index
already: the tags, every node's SAN, comments and NAGs, the tree (``parent``, pre-order
``positionid``) and who is to move. This module writes the same bytes from a batch query per
group of games, following python-chess's ``StringExporter`` token by token (80 columns, move
numbers, ``N...`` after a comment or a variation, sorted NAGs, the result from the Result tag).

It takes a game only when the bytes are certain to be the same as the reference path's
(:func:`exact`); the other games go through python-chess as before, and
``tests/test_output_movetext.py`` holds the two to each other byte for byte on shared files.
Most of a game's work is done column-wise: a line without variations is interleaved from
its move numbers, moves and comment tokens in one comprehension, and the 80-column layout is
one regular expression over the joined tokens (about 7,000 games/s of 80 moves with every
position matched, against 2,700 moving token by token).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Collection
from dataclasses import dataclass
from itertools import islice

from cqlindex.store.duckdb_light import relations

#: python-chess writes the Seven Tag Roster first, in this order, then the other tags as read.
_ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
_COLUMNS = 80
#: Variant tags python-chess reads as the chess board (Chess960 castles with the same SAN).
_PLAIN = ("Standard", "Chess960")
#: Variations nested deeper than this go through python-chess (the writer recurses per level).
_MAX_DEPTH = 200


@dataclass(slots=True)
class GameRows:
    """One game's columns, positions in positionid (pre-)order. The columns that are mostly
    empty (comments, NAGs, null moves) are kept by position; the tree's (parents, side to move)
    only for a game with variations: one line's follow from the start position."""

    tags: list[tuple[str, str]]
    start_fen: str | None
    bad_move: str | None
    mainline: int
    count: int
    sans: list[str | None]
    comments: dict[int, str]
    befores: dict[int, str]
    nags: dict[int, list[int]]
    nulls: set[int]
    parents: list[int | None] | None
    wtm: list[bool] | None
    depth: int
    source_file: str | None


def heads(con, numbers: list[int]) -> dict[int, tuple]:
    """Each game's tags (name, value pairs), start FEN, bad move, position counts and source
    file, for :func:`fetch`. Asked for many batches at once: a query on the tags map reads the
    map of whole row groups, about 8 ms however few of their games it wants. The maps come as
    Arrow lists, made Python lists in one flat pass (``fetchall`` makes every map a Python list
    by itself: five times as long, a tenth of the PGN output at 100,000 games)."""
    chosen, params = _chosen(numbers)
    table = relations(con).sql(
        "SELECT gamenumber, map_keys(tags), map_values(tags), start_fen, bad_move, mainline_positions, positions, "
        f"source_file FROM games WHERE {chosen}", params=params).to_arrow_table()
    rest = [table.column(k).to_pylist() for k in (0, 3, 4, 5, 6, 7)]
    return {number: (tags, *others) for number, tags, *others in zip(rest[0], _pairs(table), *rest[1:])}


def _pairs(table) -> list[list[tuple[str, str]]]:
    """Each game's tags as (name, value) pairs, from the flat children of the list columns 1
    and 2 (an empty list for a null): one zip over the batch's tags and one slice a game. The
    combined columns' offsets start at 0, and the keys and values of one map have the same
    lengths, so one column's offsets cut both."""
    names, values = (table.column(k).combine_chunks() for k in (1, 2))
    pairs = list(zip(names.values.to_pylist(), values.values.to_pylist()))
    offsets = names.offsets.to_pylist()
    return [pairs[offsets[k]:offsets[k + 1]] for k in range(len(names))]


def _chosen(numbers: list[int]) -> tuple[str, list]:
    """A WHERE condition on ``gamenumber`` for the games ``numbers``, and its parameters: a run
    of consecutive numbers (the usual batch) is a range, without the join on the list."""
    low, high = min(numbers), max(numbers)
    if high - low + 1 == len(numbers) == len(set(numbers)):
        return "gamenumber BETWEEN ? AND ?", [low, high]
    return "gamenumber BETWEEN ? AND ? AND gamenumber IN (SELECT unnest(?::INTEGER[]))", [low, high, list(numbers)]


def fetch(con, numbers: list[int], known: dict[int, tuple] | None = None) -> dict[int, GameRows]:
    """The rows of ``numbers`` (the games that exist), their :func:`heads` taken from ``known``
    (and removed there) when it has them. The positions come as flat columns in (gamenumber,
    positionid) order and are cut per game here (a ``list()`` aggregate per column sorts each
    one again, several times slower). Only the moves become a Python list for
    every row; the sparse columns are read where they are set, the tree's columns for the games
    that have variations."""
    import pyarrow.compute as pc

    from cqlindex.output.ordered import in_order

    known = {} if known is None else known
    if any(number not in known for number in numbers):
        known.update(heads(con, numbers))
    games = {number: known.pop(number) for number in numbers if number in known}
    if not games:
        return {}
    chosen, params = _chosen(list(games))
    table = in_order(relations(con).sql(
        "SELECT gamenumber, san, comment, comment_before, nags, null_move, parent, wtm, depth, positionid "
        f"FROM positions WHERE {chosen}", params=params).to_arrow_table(), "gamenumber", "positionid")
    gamenumbers = table.column(0).to_numpy()  # a scalar of an Arrow column costs ~1 us to read
    sans = table.column(1).to_pylist()
    comments, befores, nags = (_set(table.column(k), pc) for k in (2, 3, 4))
    nulls = pc.indices_nonzero(pc.fill_null(table.column(5), False)).to_pylist()
    tree = table.select([6, 7, 8])
    out: dict[int, GameRows] = {}
    start = 0
    for number in sorted(games):  # the rows are in gamenumber order; each game has `positions` of them
        tags, start_fen, bad_move, mainline, count, source_file = games[number]
        end = start + count
        if not count or end > len(sans) or gamenumbers[start] != number or gamenumbers[end - 1] != number:
            break  # the two tables disagree: this game and the rest go through python-chess's path
        parents = wtm = None
        depth = 0
        if count != mainline:  # variations
            parents, wtm, depths = (c.to_pylist() for c in tree.slice(start, count).columns)
            depth = max(depths)
        # a sparse column set nowhere in the batch (the usual case) costs not even a call
        out[number] = GameRows(tags, start_fen, bad_move, mainline, count, sans[start:end],
                               _cut(comments, start, end) if comments[0] else {},
                               _cut(befores, start, end) if befores[0] else {},
                               _cut(nags, start, end) if nags[0] else {},
                               set(_cut((nulls, nulls), start, end)) if nulls else set(),
                               parents, wtm, depth, source_file)
        start = end
    return out


def _set(column, pc) -> tuple[list[int], list]:
    """The rows where ``column`` is not null, ascending, and its values there."""
    where = pc.indices_nonzero(pc.is_valid(column))
    if not len(where):
        return [], []
    return where.to_pylist(), column.take(where).to_pylist()


def _cut(values: tuple[list[int], list], start: int, end: int) -> dict:
    """The entries of ``values`` in rows ``start`` to ``end``, keyed from 0 at ``start``."""
    rows, items = values
    low = bisect_left(rows, start)
    high = bisect_left(rows, end, low)
    return {rows[k] - start: items[k] for k in range(low, high)}


def _start(rows: GameRows) -> tuple[int, bool] | None:
    """The start position's full-move number and side to move, None when not plain."""
    fen_tag = next((v for k, v in rows.tags if k == "FEN"), None)
    if rows.start_fen is None:
        return (1, True) if fen_tag is None else None
    if fen_tag is None:
        return None  # the rebuilt game adds SetUp and FEN; the file's own text would not
    fields = rows.start_fen.split()
    if len(fields) != 6 or not fields[5].isdigit() or int(fields[5]) < 1 or fields[1] not in ("w", "b"):
        return None
    return int(fields[5]), fields[1] == "w"


def exact(rows: GameRows, rebuilt: bool = False) -> bool:
    """Whether this writer's bytes are certainly python-chess's for the game.

    Not taken: a game without a Result tag or with "*" (python-chess sets the tag from the
    result token of the text, which the index does not keep apart); a game the build cut at an
    illegal move (python-chess places the error comment where its own reading stopped); a start
    position whose FEN tag and index disagree or whose move number is not plain; a tag value
    with ``\\`` or ``"`` (the file's escaping is not kept); a ``Variant`` tag other than
    :data:`_PLAIN` (python-chess may read another board); a tag name twice; variations
    nested deeper than :data:`_MAX_DEPTH`.

    With ``rebuilt``: when python-chess's path rebuilds the game from these rows (its text is
    gone), where the Result tag and the escaped tag values are the rows' own.
    """
    if rows.bad_move is not None or rows.depth > _MAX_DEPTH or _start(rows) is None:
        return False
    tags = dict(rows.tags)
    if len(tags) != len(rows.tags) or tags.get("Variant", "Standard") not in _PLAIN:
        return False
    if rebuilt:
        return True
    if tags.get("Result", "*") == "*":
        return False  # python-chess then takes the Result tag from the movetext's result token
    values = "".join(tags.values())
    return "\\" not in values and '"' not in values


def _comment(text: str) -> str:
    return "{ " + text.replace("}", "").strip() + " }"


def write_game(rows: GameRows, header: str, matched: Collection[int], added: dict[int, list[str]],
               matchstring: str) -> str:
    """The game as python-chess exports it after :func:`cqlindex.output.pgn._mark`: ``header``
    joins the start comment, then each position gets its ``added`` comments and, when
    ``matched``, the match string. The movetext is made as a list of tokens and cut into lines
    of 80 columns by :func:`_wrap`: for one line without NAGs, null moves or comments before a
    move (most games) by :func:`_line_tokens`, column-wise; else by :func:`_tree_tokens`."""
    fullmove, white_first = _start(rows)  # type: ignore[misc]
    tags = dict(rows.tags)
    lines = [f'[{name} "{tags[name]}"]' for name in _ROSTER if name in tags]
    lines += [f'[{name} "{value}"]' for name, value in rows.tags if name not in _ROSTER]
    if lines:
        lines.append("")
    after = _after(rows, header, matched, added, matchstring)
    tokens = [after[0]] if after[0] else []
    if rows.parents is None and not (rows.befores or rows.nags or rows.nulls):
        _line_tokens(rows, after, fullmove, white_first, tokens)
    else:
        _tree_tokens(rows, after, fullmove, white_first, tokens)
    tokens.append(tags.get("Result", "*"))
    _wrap(tokens, lines)
    lines.append("")
    return "\n".join(lines).rstrip()


def _after(rows: GameRows, header: str, matched: Collection[int], added: dict[int, list[str]],
           matchstring: str) -> list[str | None]:
    """The comment token after each node (None where there is none): its own comment, the header
    at the start, the query's comments, the match string."""
    marker = _comment(matchstring) if matchstring and matched else None
    if len(matched) == rows.count:
        after: list[str | None] = [marker] * rows.count  # every position (a tag query, `true`)
    else:
        after = [None] * rows.count
        for i in matched:
            after[i] = marker  # the common case: a bare match string, its token made once
    for i in {0, *rows.comments, *added} if (header or rows.comments or added) else ():
        text = rows.comments.get(i)
        parts = (text, header) if i == 0 else (text,)
        text = " ".join([t for t in (*parts, *added.get(i, ()), matchstring if i in matched else None) if t])
        after[i] = _comment(text) if text else None
    return after


def _numbers(first: int, count: int, suffix: str) -> list[str]:
    """Move number tokens ``first``, ``first + 1`` ... (``count`` of them) with ``suffix``."""
    table = _NUMBERS[suffix]
    if len(table) < first + count:
        table.extend(f"{k}{suffix}" for k in range(len(table), first + count + 256))
    return table[first:first + count]


#: Move number tokens made once: "12." and "12...".
_NUMBERS: dict[str, list[str]] = {".": [], "...": []}


def _line_tokens(rows: GameRows, after: list[str | None], fullmove: int, white_first: bool,
                 tokens: list[str]) -> None:
    """The tokens of a game of one line, column-wise: each move is its number (always for
    White; for Black after a comment and at the start), its SAN, its comment token."""
    moves = rows.count - 1
    if moves <= 0:
        return
    number: list[str | None] = [None] * moves
    white = 0 if white_first else 1  # the first move of White's, counted from 0
    number[white::2] = _numbers(fullmove + white, len(range(white, moves, 2)), ".")
    black = 1 - white
    blacks = _numbers(fullmove, len(range(black, moves, 2)), "...")
    # a Black move's number shows at the start or after a comment (after[j] precedes move j):
    # ``comment and number`` is the number after a comment token, None after none
    number[black::2] = [comment and n for comment, n in zip(after[black:moves:2], blacks)]
    if black == 0:
        number[0] = blacks[0]
    # move j's three tokens at 3j .. 3j + 2, then the ones that are there (a SAN is never empty,
    # nor a token: filter(None) drops exactly the Nones)
    laid: list[str | None] = [None] * (3 * moves)
    laid[0::3], laid[1::3], laid[2::3] = number, islice(rows.sans, 1, None), islice(after, 1, None)
    tokens += filter(None, laid) if all(islice(rows.sans, 1, None)) else [t for t in laid if t is not None]


def _tree_tokens(rows: GameRows, after: list[str | None], fullmove: int, white_first: bool,
                 tokens: list[str]) -> None:
    """The tokens of any game, move by move. Variations are walked with a stack, not by
    recursion: a recursive closure is a reference cycle, left for the garbage collector with
    the game's lists, once per game."""
    n = rows.count
    parents: list = rows.parents if rows.parents is not None else [None, *range(n - 1)]
    wtm: list = rows.wtm if rows.wtm is not None else [(i % 2 == 0) == white_first for i in range(n)]
    children: list[list[int]] = [[] for _ in range(n)]
    ply = [0] * n
    for i in range(1, n):
        p = parents[i]
        children[p].append(i)
        ply[i] = ply[p] + 1
    offset = 0 if white_first else 1
    sans, befores, nags, nulls = rows.sans, rows.befores, rows.nags, rows.nulls
    add = tokens.append
    force = True
    # (node, sidelines): write the line from node on, and when sidelines the variations that
    # branch off at its parent; _OPEN and _CLOSE bracket a variation.
    stack = [(children[0][0], True)] if n > 1 else []
    while stack:
        i, sidelines = stack.pop()
        if i < 0:
            add("(" if i == _OPEN else ")")
            force = True
            continue
        while True:
            before = befores.get(i)
            if before:
                add(_comment(before))
                force = True
            p = parents[i]
            if wtm[p]:
                add(f"{fullmove + (ply[p] + offset) // 2}.")
            elif force:
                add(f"{fullmove + (ply[p] + offset) // 2}...")
            add("--" if i in nulls else sans[i])
            marks = nags.get(i)
            if marks:
                tokens.extend([f"${nag}" for nag in sorted(set(marks))])
            token = after[i]
            force = token is not None  # a comment asks for the next move's number
            if force:
                add(token)  # type: ignore[arg-type]
            kids = children[i]
            if sidelines and len(children[p]) > 1:
                if kids:
                    stack.append((kids[0], True))  # the line goes on after its variations
                for sibling in reversed(children[p][1:]):
                    stack += [(_CLOSE, False), (sibling, False), (_OPEN, False)]
                break
            if not kids:
                break
            i, sidelines = kids[0], True


#: Stack entries of :func:`_tree_tokens` that open and close a variation.
_OPEN, _CLOSE = -1, -2


#: One line of :func:`_wrap`: from a token on, the most whole tokens that fit in 79 characters
#: (80 with the space python-chess writes after the last one and strips), or one token longer
#: than that on its own line. Tokens are joined by :data:`_GAP`; the line's gaps become spaces.
_LINE = re.compile(r"([^\x00].{0,%d}|[^\x00]+)(?:\x00|\Z)" % (_COLUMNS - 2), re.S)
_GAP = "\x00"


def _wrap(tokens: list[str], lines: list[str]) -> None:
    """Append ``tokens`` to ``lines`` as python-chess's ``write_token`` does with each token and
    a space: a token that would pass :data:`_COLUMNS` starts a new line (unless the line is
    empty), lines are right-stripped. The greedy fill is the regular expression :data:`_LINE`
    run over the joined tokens, in C: a loop here over every token was a third of the writer.
    A token holding the gap character itself (a NUL in a comment) takes the token loop."""
    text = _GAP.join(tokens)
    if text.count(_GAP) == len(tokens) - 1:
        lines.append("\n".join(_LINE.findall(text)).replace(_GAP, " "))  # the lines as one item
        return
    column = 0
    parts: list[str] = []
    for token in tokens:
        size = len(token) + 1
        if column + size > _COLUMNS and column:
            lines.append(" ".join(parts))
            parts = [token]
            column = size
        else:
            parts.append(token)
            column += size
    if column:
        lines.append(" ".join(parts))
