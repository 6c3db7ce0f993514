"""One game as JSON for the viewer and for scripts (``GET /api/games/N``): its tags and its tree.

Read from the index, not from the PGN file: every node of the tree (main line and variations)
with its parent, its rank among its siblings (0 the main continuation), the move that led there
(SAN and squares), the position's FEN (the schema's ``fen`` macro), the comments and NAGs, and
the check flag the board marks. The viewer nests the variations from ``parent`` and
``child_index`` as the PGN does; the node ids are CQL's position ids, the ones the query
results name.
"""

from __future__ import annotations

import chess

from cqlindex.errors import InputError

_GAME = ("SELECT gamenumber, event, site, date, round, white, black, result, year, eco, white_elo, black_elo, "
         "map_entries(tags) AS tags, start_fen, positions, source_file FROM games WHERE gamenumber = ?")
_NODES = ("SELECT positionid, parent, child_index, mainline, depth, ply, fullmove(p) AS movenumber, wtm, san, "
          "move_from, move_to, fen(p) AS fen, comment, comment_before, nags, is_check, is_mate "
          "FROM positions p WHERE gamenumber = ? ORDER BY positionid")


def game_json(con, gamenumber: int) -> dict:
    """The game ``gamenumber`` of the index behind ``con``; InputError when there is none."""
    cursor = con.cursor()
    try:
        head = cursor.execute(_GAME, [gamenumber]).fetchone()
        if head is None:
            raise InputError(f"no game {gamenumber} in this index")
        names = [d[0] for d in cursor.description]
        game = dict(zip(names, head))
        game["tags"] = {entry["key"]: entry["value"] for entry in game["tags"] or []}
        cursor.execute(_NODES, [gamenumber])
        names = [d[0] for d in cursor.description]
        nodes = [dict(zip(names, row)) for row in cursor.fetchall()]
    finally:
        cursor.close()
    for node in nodes:
        for end in ("move_from", "move_to"):
            node[end] = None if node[end] is None else chess.square_name(node[end])
        node["nags"] = list(node["nags"] or [])
    game["nodes"] = nodes
    return game
