"""Game-level filters: result, player, elo, year, event, site, date, eco, eventdate, and the
comment of the move that led here; without their string each is that text (CQL 6.1)."""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.evaluate.context import Evaluator, evaluates
from cqlindex.evaluate.values import MATCH
from cqlindex.store.trees import Position

#: The PGN tag each tag filter reads.
TAGS = {"event": "Event", "site": "Site", "date": "Date", "eco": "ECO", "eventdate": "EventDate"}


@evaluates(ast.GameFilter)
def game_filter(ev: Evaluator, node: ast.GameFilter, pos: Position) -> object:
    tree = ev.tree
    name = node.name
    strings = [a.value for a in node.args if isinstance(a, ast.String)]
    side = next((a.name for a in node.args if isinstance(a, ast.Keyword)), None)
    if name == "fen":
        if not strings:
            return pos.board().fen(en_passant="fen")
        return MATCH if _same_board(strings[0], pos) else None
    if name == "result":
        return MATCH if (tree.result or "") == strings[0] else None
    if name == "year":
        return tree.year
    if name == "elo":
        return elo(tree.white_elo, tree.black_elo, side)
    if name == "player":
        text = player(tree.white, tree.black, side)
        if not strings:
            return text
        return MATCH if text is not None and strings[0] in text else None
    value = text_of(ev, node, pos)
    if not strings:
        return value
    return MATCH if strings[0] in (value or "") else None


def elo(white: int | None, black: int | None, side: str | None) -> int | None:
    """``elo white``, ``elo black``: that player's rating; ``elo`` alone: the higher of the two
    the game gives (the reference's rule); None where there is none (ratings are stored above 0)."""
    ratings = [r for r in ((white,) if side == "white" else (black,) if side == "black" else (white, black)) if r]
    return max(ratings) if ratings else None


def player(white: str | None, black: str | None, side: str | None) -> str | None:
    """``player white``, ``player black``: the name; ``player`` alone: both, White's first, on
    two lines, as the reference defines it (``player white + "\\n" + player black``, so it
    fails unless both are given). An empty tag is no name. ``player "text"`` searches this."""
    if side is not None:
        return (white if side == "white" else black) or None
    return f"{white}\n{black}" if white and black else None


def text_of(ev: Evaluator, node: ast.GameFilter, pos: Position) -> str | None:
    """The text a tag filter searches: its tag's value, or the comment after the move that led
    here; None where the game has no such tag (or the move no comment)."""
    if node.name in ("originalcomment", "hascomment"):
        return pos.comment
    return ev.tree.headers.get(TAGS[node.name])


def _same_board(fen: str, pos: Position) -> bool:
    """The FEN's placement (and side to move, if given) is exactly the current position's."""
    import chess

    fields = fen.split()
    try:
        board = chess.BaseBoard(fields[0])
    except (ValueError, IndexError):
        return False
    if len(fields) > 1 and fields[1] in ("w", "b") and (fields[1] == "w") != pos.wtm:
        return False
    b, w = board.occupied_co
    ours = (board.kings & w, board.queens & w, board.rooks & w, board.bishops & w, board.knights & w,
            board.pawns & w, board.kings & b, board.queens & b, board.rooks & b, board.bishops & b,
            board.knights & b, board.pawns & b)
    return ours == pos.bitboards
