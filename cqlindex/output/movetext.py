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
"""

from __future__ import annotations

from dataclasses import dataclass

#: python-chess writes the Seven Tag Roster first, in this order, then the other tags as read.
_ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
_COLUMNS = 80
#: Variant tags python-chess reads as the chess board (Chess960 castles with the same SAN).
_PLAIN = ("Standard", "Chess960")
#: Variations nested deeper than this go through python-chess (the writer recurses per level).
_MAX_DEPTH = 200


@dataclass(slots=True)
class GameRows:
    """One game's columns, positions in positionid (pre-)order."""

    tags: list[tuple[str, str]]
    start_fen: str | None
    bad_move: str | None
    mainline: int
    parents: list[int | None]
    sans: list[str | None]
    comments: list[str | None]
    befores: list[str | None]
    nags: list[list[int] | None]
    wtm: list[bool]
    nulls: list[bool]
    depth: int


def fetch(con, numbers: list[int]) -> dict[int, GameRows]:
    """The rows of ``numbers`` (the games that exist), in two queries: the positions come as
    flat columns in (gamenumber, positionid) order and are cut per game here (a ``list()``
    aggregate per column sorts each one again, several times slower). A run of consecutive
    game numbers (the usual batch) is read as a range, without the join on the list."""
    low, high = min(numbers), max(numbers)
    run = high - low + 1 == len(numbers) == len(set(numbers))
    chosen = "gamenumber BETWEEN ? AND ?" + ("" if run else " AND gamenumber IN (SELECT unnest(?::INTEGER[]))")
    params = [low, high] if run else [low, high, numbers]
    games = {row[0]: row[1:] for row in con.execute(
        "SELECT gamenumber, map_keys(tags), map_values(tags), start_fen, bad_move, mainline_positions, positions "
        f"FROM games WHERE {chosen}", params).fetchall()}
    table = con.sql(
        "SELECT gamenumber, parent, san, comment, comment_before, nags, wtm, null_move, depth FROM positions "
        f"WHERE {chosen} ORDER BY gamenumber, positionid", params=params).to_arrow_table()
    columns = [table.column(k).to_pylist() for k in range(table.num_columns)]
    gamenumbers, parents, sans, comments, befores, nags, wtm, nulls, depths = columns
    out: dict[int, GameRows] = {}
    start = 0
    for number in sorted(games):  # the rows are in gamenumber order; each game has `positions` of them
        keys, values, start_fen, bad_move, mainline, count = games[number]
        end = start + count
        if not count or end > len(gamenumbers) or gamenumbers[start] != number or gamenumbers[end - 1] != number:
            break  # the two tables disagree: this game and the rest go through python-chess's path
        out[number] = GameRows(list(zip(keys or (), values or ())), start_fen, bad_move, mainline,
                               parents[start:end], sans[start:end], comments[start:end], befores[start:end],
                               nags[start:end], wtm[start:end], nulls[start:end],
                               0 if count == mainline else max(depths[start:end]))  # no variation: depth 0
        start = end
    return out


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


def exact(rows: GameRows) -> bool:
    """Whether this writer's bytes are certainly python-chess's for the game.

    Not taken: a game without a Result tag or with "*" (python-chess sets the tag from the
    result token of the text, which the index does not keep apart); a game the build cut at an
    illegal move (python-chess places the error comment where its own reading stopped); a start
    position whose FEN tag and index disagree or whose move number is not plain; a tag value
    with ``\\`` or ``"`` (the file's escaping is not kept); a ``Variant`` tag other than
    :data:`_PLAIN` (python-chess may read another board); a tag name twice; variations
    nested deeper than :data:`_MAX_DEPTH`.
    """
    if rows.bad_move is not None or rows.depth > _MAX_DEPTH or _start(rows) is None:
        return False
    names = [k for k, _ in rows.tags]
    if dict(rows.tags).get("Result", "*") == "*":
        return False  # python-chess then takes the Result tag from the movetext's result token
    if len(set(names)) != len(names) or dict(rows.tags).get("Variant", "Standard") not in _PLAIN:
        return False
    return not any("\\" in v or '"' in v for _, v in rows.tags)


def _comment(text: str) -> str:
    return "{ " + text.replace("}", "").strip() + " } "


def write_game(rows: GameRows, header: str, matched: set[int], added: dict[int, list[str]],
               matchstring: str) -> str:
    """The game as python-chess exports it after :func:`cqlindex.output.pgn._mark`: ``header``
    joins the start comment, then each position gets its ``added`` comments and, when
    ``matched``, the match string. The movetext is made as a list of tokens (this is the loop
    that runs per move, so it only appends) and cut into lines of 80 columns by :func:`_wrap`.
    Variations are walked with a stack, not by recursion: a recursive closure is a reference
    cycle, left for the garbage collector with the game's lists, once per game."""
    fullmove, white_first = _start(rows)  # type: ignore[misc]
    tags = dict(rows.tags)
    lines = [f'[{name} "{tags[name]}"]' for name in _ROSTER if name in tags]
    lines += [f'[{name} "{value}"]' for name, value in rows.tags if name not in _ROSTER]
    if lines:
        lines.append("")
    parents, sans, befores, nags, wtm, nulls = rows.parents, rows.sans, rows.befores, rows.nags, rows.wtm, rows.nulls
    comments = rows.comments
    n = len(parents)
    single = rows.depth == 0  # one line, no variation: node i's parent is i - 1, its ply i
    children: list[list[int]] = [[] for _ in range(n)] if not single else []
    ply: list[int] | range = range(n) if single else [0] * n
    offset = 0 if white_first else 1
    if not single:
        for i in range(1, n):
            p = parents[i]
            children[p].append(i)
            ply[i] = ply[p] + 1  # type: ignore[index]
    tokens: list[str] = []
    add = tokens.append
    marker = _comment(matchstring) if matchstring else None
    root = _text_at(0, comments, header, matched, added, matchstring)
    if root:
        add(_comment(root))
    force = True
    # (node, sidelines): write the line from node on, and when sidelines the variations that
    # branch off at its parent; _OPEN and _CLOSE bracket a variation.
    stack = [(1 if single else children[0][0], True)] if n > 1 else []
    while stack:
        i, sidelines = stack.pop()
        if i < 0:
            add("( " if i == _OPEN else ") ")
            force = True
            continue
        while True:
            before = befores[i]
            if before:
                add(_comment(before))
                force = True
            p = parents[i]
            if wtm[p]:
                add(f"{fullmove + (ply[p] + offset) // 2}. ")
            elif force:
                add(f"{fullmove + (ply[p] + offset) // 2}... ")
            add("-- " if nulls[i] else sans[i] + " ")
            marks = nags[i]
            if marks:
                tokens.extend([f"${nag} " for nag in sorted(set(marks))])
            text = comments[i]
            if i in matched and not text and not (added and i in added):
                token = marker  # the common case: a bare match string, its token made once
            elif i in matched or (added and i in added):
                text = _text_at(i, comments, header, matched, added, matchstring)
                token = _comment(text) if text else None
            else:
                token = _comment(text) if text else None
            force = token is not None  # a comment asks for the next move's number
            if force:
                add(token)  # type: ignore[arg-type]
            if single:
                i += 1
                if i == n:
                    break
                continue
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
    add(tags.get("Result", "*") + " ")
    _wrap(tokens, lines)
    lines.append("")
    return "\n".join(lines).rstrip()


#: Stack entries of :func:`write_game` that open and close a variation.
_OPEN, _CLOSE = -1, -2


def _text_at(i: int, comments: list[str | None], header: str, matched: set[int], added: dict[int, list[str]],
             matchstring: str) -> str | None:
    """The comment after node ``i``: its own, the header at the start, the query's, the match string."""
    text = comments[i]
    if i == 0:
        text = " ".join(t for t in (text, header) if t)
    if i in matched or i in added:
        text = " ".join(t for t in (text, *added.get(i, ()), matchstring if i in matched else None) if t)
    return text


def _wrap(tokens: list[str], lines: list[str]) -> None:
    """Append ``tokens`` to ``lines`` as python-chess's ``write_token`` does: a token that would
    pass :data:`_COLUMNS` starts a new line (unless the line is empty), lines are right-stripped.
    The column is counted here instead of measuring the line at every token."""
    parts: list[str] = []
    column = 0
    for token in tokens:
        size = len(token)
        if column + size > _COLUMNS and column:
            lines.append("".join(parts).rstrip())
            parts = [token]
            column = size
        else:
            parts.append(token)
            column += size
    if column:
        lines.append("".join(parts).rstrip())
