"""Game filters on columns: a game's tags decide them once per game, then every row of the game
takes its game's answer (:mod:`cqlindex.filters.game.python` gives the rules)."""

from __future__ import annotations

import numpy as np

from cqlindex.columnar.engine import Columnar, Ctx, kernel
from cqlindex.columnar.values import NotColumnar, Val, distinct, matched, number
from cqlindex.cql import ast
from cqlindex.filters.game.python import TAGS, elo, player

#: The game filters the kernel decides: a tag compared with a string, or a rating or year.
NAMES = frozenset({"result", "year", "elo", "player", *TAGS})


def _per_game(node: ast.GameFilter, game: tuple) -> object:
    """The filter's answer for one game (None: no match), from its games row."""
    _, result, year, white_elo, black_elo, white, black, tags = game
    strings = [a.value for a in node.args if isinstance(a, ast.String)]
    side = next((a.name for a in node.args if isinstance(a, ast.Keyword)), None)
    if node.name == "result":
        return True if (result or "") == strings[0] else None
    if node.name == "year":
        return year
    if node.name == "elo":
        return elo(white_elo, black_elo, side)
    text = player(white, black, side) if node.name == "player" else dict(tags or {}).get(TAGS[node.name])
    if node.name == "player" and text is None:
        return None
    return True if strings[0] in (text or "") else None


@kernel(ast.GameFilter)
def game_filter(cm: Columnar, node: ast.GameFilter, ctx: Ctx) -> Val:
    if node.name not in NAMES or (node.name not in ("year", "elo") and not any(
            isinstance(a, ast.String) for a in node.args)):
        raise NotColumnar(node, f"'{node.name}' as a value")
    frame = cm.frame
    key = ("game", node)
    per_row = cm.memo.get(key)
    if per_row is None:
        numbers = distinct(frame.gamenumber)
        answers = [_per_game(node, frame.games[g]) for g in numbers.tolist()]
        ok = np.array([a is not None for a in answers], bool)
        values = np.array([a if isinstance(a, int) and not isinstance(a, bool) else 0 for a in answers], np.int64)
        index = np.searchsorted(numbers, frame.gamenumber)
        per_row = cm.memo[key] = (ok[index], values[index])
    ok, values = per_row
    rows = ctx.rows
    if node.name in ("year", "elo"):
        return number(values[rows], ok[rows])
    return matched(ok[rows])
