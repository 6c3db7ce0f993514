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
    """The rows of ``numbers`` (the games that exist), in two queries."""
    games = {row[0]: row[1:] for row in con.execute(
        "SELECT gamenumber, map_keys(tags), map_values(tags), start_fen, bad_move, mainline_positions FROM games "
        "WHERE gamenumber IN (SELECT unnest(?::INTEGER[]))", [numbers]).fetchall()}
    out: dict[int, GameRows] = {}
    for number, parents, sans, comments, befores, nags, wtm, nulls, depth in con.execute(
            "SELECT gamenumber, list(parent ORDER BY positionid), list(san ORDER BY positionid), "
            "list(comment ORDER BY positionid), list(comment_before ORDER BY positionid), "
            "list(nags ORDER BY positionid), list(wtm ORDER BY positionid), "
            "list(null_move ORDER BY positionid), max(depth) FROM positions "
            "WHERE gamenumber BETWEEN ? AND ? AND gamenumber IN (SELECT unnest(?::INTEGER[])) "
            "GROUP BY gamenumber", [min(numbers), max(numbers), numbers]).fetchall():
        if number not in games:
            continue
        keys, values, start_fen, bad_move, mainline = games[number]
        out[number] = GameRows(list(zip(keys or (), values or ())), start_fen, bad_move, mainline, parents, sans,
                               comments, befores, nags, wtm, nulls, depth or 0)
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

    Not taken: a game without a Result tag or with "*" (python-chess sets the tag from the result
    token of the text, which the index does not keep apart); a game the build cut at an illegal move (python-chess places the error comment
    where its own reading stopped); a start position whose FEN tag and index disagree or whose
    move number is not plain; a tag value with ``\\`` or ``"`` (the file's escaping is not
    kept); a ``Variant`` tag other than :data:`_PLAIN` (python-chess may read another board); a tag name twice; variations
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


class _Writer:
    """python-chess's StringExporter state: the finished lines, the current one, the move-number flag."""

    __slots__ = ("lines", "line", "force")

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.line = ""
        self.force = True

    def token(self, text: str) -> None:
        if _COLUMNS - len(self.line) < len(text):
            if self.line:
                self.lines.append(self.line.rstrip())
            self.line = ""
        self.line += text

    def comment(self, text: str) -> None:
        self.token("{ " + text.replace("}", "").strip() + " } ")
        self.force = True


def write_game(rows: GameRows, comments: list[str | None]) -> str:
    """The game as python-chess exports it; ``comments`` are the final comment per position (marks added)."""
    fullmove, white_first = _start(rows)  # type: ignore[misc]
    tags = dict(rows.tags)
    w = _Writer()
    head = [f'[{name} "{tags[name]}"]' for name in _ROSTER if name in tags]
    head += [f'[{name} "{value}"]' for name, value in rows.tags if name not in _ROSTER]
    if head:
        w.lines.extend(head)
        w.lines.append("")
    parents, sans, befores, nags, wtm, nulls = rows.parents, rows.sans, rows.befores, rows.nags, rows.wtm, rows.nulls
    n = len(parents)
    children: list[list[int]] = [[] for _ in range(n)]
    ply = [0] * n
    offset = 0 if white_first else 1
    for i in range(1, n):
        p = parents[i]
        children[p].append(i)
        ply[i] = ply[p] + 1

    def node(i: int) -> None:
        before = befores[i]
        if before:
            w.comment(before)
        p = parents[i]
        number = fullmove + (ply[p] + offset) // 2
        if wtm[p]:
            w.token(f"{number}. ")
        elif w.force:
            w.token(f"{number}... ")
        w.token(("--" if nulls[i] else sans[i]) + " ")
        w.force = False
        marks = nags[i]
        if marks:
            for nag in sorted(set(marks)):
                w.token(f"${nag} ")
        text = comments[i]
        if text:
            w.comment(text)

    def line(i: int, sidelines: bool) -> None:
        while True:
            node(i)
            if sidelines:
                for sibling in children[parents[i]][1:]:
                    w.token("( ")
                    w.force = True
                    line(sibling, False)
                    w.token(") ")
                    w.force = True
            kids = children[i]
            if not kids:
                return
            i, sidelines = kids[0], True

    if comments[0]:
        w.comment(comments[0])
    if children[0]:
        line(children[0][0], True)
    w.token(tags.get("Result", "*") + " ")
    if w.line:
        w.lines.append(w.line.rstrip())
    w.lines.append("")
    return "\n".join(w.lines).rstrip()
