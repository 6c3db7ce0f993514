"""Which path reads a game: the compiled reader (main lines) or python-chess (everything else).

A cheap scan of one game's prepared text decides. The compiled reader (shakmaty behind
``rust-pgn-reader-python-binding``) plays main lines only and knows no NAGs, null moves or
variants beyond Chess960, so a game goes to it only when its movetext, comments removed, has
none of ``( ) $ ! ? ; % -- @`` nor a result token before the end, its variant is standard or
Chess960, and its FEN (if any) is one python-chess accepts as a valid position with clean
castling rights. Everything else, and every game the reader then rejects, is replayed by
python-chess exactly as before: the reader only ever takes games both agree on.

The scan also does what the reader cannot: it reads the tags in their text order with
python-chess's own tag rule, takes python-chess's view of the start position (FEN, Chess960,
castling rooks), cuts out the comments before the first move (python-chess stores them on the
start position), and normalises every comment as python-chess does so the reader's per-move
comment slots can carry python-chess's text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import chess
import chess.pgn

from cqlindex.ingest.replay import unescape_tag

# Variant names read as standard chess by the python-chess path (replay._STANDARD_VARIANTS
# minus the Chess960 spellings, which python-chess's Headers.is_chess960 decides).
_STANDARD = frozenset({"", "standard", "chess", "normal", "classical", "from position"})
_COMMENT = re.compile(r"\{([^}]*)\}")
# What sends a game to python-chess when it occurs in the movetext before the final result;
# each is looked for with ``in`` (a C scan), which is several times faster than one regex.
_FORBIDDEN = ("(", ")", "$", "!", "?", ";", "%", "{", "}", "@", "--", "Z0", "0000", "1-0", "0-1", "1/2", "*")
_RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
_ROSTER = frozenset(chess.pgn.TAG_ROSTER)
# python-chess's TAG_REGEX, which it matches line by line, found in all the header lines at once:
# the same pattern with each \s kept inside its line (whitespace but a line feed).
_TAG_LINES = re.compile(r'^\[([A-Za-z0-9][A-Za-z0-9_+#=:-]*)[^\S\n]+"([^\r\n]*)"\][^\S\n]*$', re.MULTILINE)
# The header: the lines from the first on that start with '['.
_HEADER = re.compile(r"(?:\[[^\n]*(?:\n|\Z))*")
_BEFORE_FIRST_MOVE = re.compile(r"\s*(?:\d+\s*\.*\s*)?")
_MOVE = re.compile(r"[a-hNBRQKO]")
# A result then ';' comments to the end of the game (engine GUIs write a summary there):
# python-chess ignores the rest of the line, so the reader is not shown it.
_RESULT_THEN_LINE_COMMENT = re.compile(r"(1-0|0-1|1/2-1/2|\*)\s*(?:;[^\n]*(?:\n\s*|$))+$")


@dataclass(slots=True)
class Routed:
    """A game the compiled reader may take, with what python-chess would have made of its start."""

    headers: dict[str, str]
    reader_text: str            # what the reader parses: a FEN tag if any, then the movetext
    start_fen: str | None       # python-chess's FEN of the start, None for the standard start
    chess960: bool
    castling_rooks: tuple[int, int, int, int]  # rook squares of K, Q, k, q rights (-1: none)
    root_castling: int          # python-chess's castling_rights mask at the start
    root_ep: int                # python-chess's ep_square at the start, -1 for none
    root_halfmove: int
    root_comment: str | None
    comments: list[str]         # the other comments in text order, as python-chess reads them


def read_tags(header: str) -> dict[str, str]:
    """Tags of the header lines (``header``, lines joined by line feeds), in python-chess's order
    (its seven-tag roster first, then the others in text order; a repeated name keeps its first
    place and its last value), as ``chess.pgn.Headers`` orders them, without its per-tag checks
    (the tag regex already made them)."""
    roster: dict[str, str] = {}
    others: dict[str, str] = {}
    for name, value in _TAG_LINES.findall(header):
        (roster if name in _ROSTER else others)[name] = unescape_tag(value) if "\\" in value else value
    if not roster:
        return others
    return {**{name: roster[name] for name in chess.pgn.TAG_ROSTER if name in roster}, **others}


def _result_start(bare: str) -> int:
    """Where the final result token (and the blanks before it) starts, or the text's length."""
    stripped = bare.rstrip()
    for token in _RESULTS:
        if stripped.endswith(token):
            return len(stripped[:-len(token)].rstrip())
    return len(bare)


def _python_chess_comment(inner: str) -> str:
    """python-chess drops one space after ``{`` and one before ``}`` (on the same line)."""
    if inner.startswith(" "):
        inner = inner[1:]
    if inner.endswith(" "):
        inner = inner[:-1]
    return inner


_STANDARD_ROOKS = (chess.H1, chess.A1, chess.H8, chess.A8)
_STANDARD_START = (_STANDARD_ROOKS, chess.BB_CORNERS, -1, 0)


def _start(headers: dict[str, str]) -> tuple | None:
    """(start_fen, chess960, castling rooks, rights, ep, halfmove) as python-chess sets up the
    game, or None when the compiled reader must not take it."""
    is960 = chess.pgn.Headers(Variant=headers["Variant"]).is_chess960() if "Variant" in headers else False
    if not is960 and headers.get("Variant", "").strip().lower() not in _STANDARD:
        return None
    fen = headers.get("FEN")
    if fen is None:
        return (None, is960, *_STANDARD_START)
    try:
        board = chess.Board(fen, chess960=is960)
    except ValueError:
        return None
    board.chess960 = board.chess960 or board.has_chess960_castling_rights()
    if not board.is_valid() or board.castling_rights != board.clean_castling_rights() or board.halfmove_clock > 250:
        return None
    rooks = []
    for color in (chess.WHITE, chess.BLACK):
        king = board.king(color)
        back = board.castling_rights & (chess.BB_RANK_1 if color else chess.BB_RANK_8)
        side = [sq for sq in chess.scan_forward(back) if sq > king], [sq for sq in chess.scan_forward(back) if sq < king]
        rooks += [side[0][0] if side[0] else -1, side[1][0] if side[1] else -1]
    start = board.fen()
    return (None if start == chess.STARTING_FEN else start, board.chess960, tuple(rooks), board.castling_rights,
            -1 if board.ep_square is None else board.ep_square, board.halfmove_clock)


def route(text: str) -> Routed | None:
    """The compiled reader's view of one prepared game text, or None: python-chess reads it."""
    end = _HEADER.match(text).end()
    movetext = text[end:]
    if ";" in movetext:
        movetext = _RESULT_THEN_LINE_COMMENT.sub(r"\1\n", movetext)
    if "{" in movetext:
        if movetext.count("{") != movetext.count("}"):
            return None
        comments = [(m.start(), m.end(), m.group(1)) for m in _COMMENT.finditer(movetext)]
        bare = _COMMENT.sub(" ", movetext)
    else:
        comments, bare = [], movetext
    before_result = bare[:_result_start(bare)]
    if any(token in before_result for token in _FORBIDDEN) or not _MOVE.search(bare):
        return None
    headers = read_tags(text[:end])
    start = _start(headers)
    if start is None:
        return None
    root: list[str] = []
    cut = 0
    for begin, end, inner in comments:
        if not _BEFORE_FIRST_MOVE.fullmatch(_COMMENT.sub(" ", movetext[cut:begin]) if root else movetext[:begin]):
            break
        root.append(inner)
        cut = end
    if root:
        movetext = movetext[:comments[0][0]] + " " + movetext[cut:]
    fen, is960 = start[0], start[1]
    head = ('[Variant "chess960"]\n' if is960 else "") + (f'[FEN "{fen}"]\n' if fen else "")
    return Routed(
        headers=headers, reader_text=head + "\n" + movetext, start_fen=fen, chess960=is960,
        castling_rooks=start[2], root_castling=start[3], root_ep=start[4], root_halfmove=start[5],
        root_comment=" ".join(_python_chess_comment(c) for c in root) if root else None,
        comments=[_python_chess_comment(c) for _, _, c in comments[len(root):]],
    )
