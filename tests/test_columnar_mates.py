"""columnar/mates: every mate pattern the tree-walker knows is taken, each behind its fact.

Their answers are held to the tree-walker's at every position by the position family table
(tests/filters/test_position.py: puremate, modelmate ... idealstalemate).
"""

from __future__ import annotations

from cqlindex.columnar.mates import MATE_FACTS
from cqlindex.filters.position.matepatterns import NAMES


def test_every_pattern_has_the_fact_it_needs() -> None:
    assert set(MATE_FACTS) == set(NAMES)
    assert all(MATE_FACTS[name] == ("stalemate" if name.endswith("stalemate") else "mate") for name in NAMES)
