"""Pure, model and ideal mates and stalemates on columns.

The test itself is the tree-walker's (:mod:`cqlindex.filters.position.matepatterns`, on a
python-chess board). It is asked only where the position is a mate (or a stalemate) at all,
a fact the frame reads with its rows: a few positions in a thousand, so a board each costs
little, and a query with these filters stays on the columnar engine.
"""

from __future__ import annotations

import numpy as np

#: Each pattern, with the fact it needs to hold first.
MATE_FACTS = {"puremate": "mate", "modelmate": "mate", "idealmate": "mate",
              "purestalemate": "stalemate", "modelstalemate": "stalemate", "idealstalemate": "stalemate"}


def mate_patterns(frame, name: str, rows: np.ndarray) -> np.ndarray:
    """The participants of pattern ``name`` at each of ``rows`` (frame rows), 0 where it is not one."""
    from cqlindex.columnar.generate import board_at  # python-chess, for the few rows that need it
    from cqlindex.filters.position.matepatterns import mate_pattern

    out = np.zeros(len(rows), np.uint64)
    for index in np.flatnonzero(frame.facts[MATE_FACTS[name]][rows].astype(bool)).tolist():
        out[index] = mate_pattern(name, board_at(frame, int(rows[index])))
    return out
