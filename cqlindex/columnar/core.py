"""The columnar engine with every kernel family registered: import :class:`Columnar` from here."""

from __future__ import annotations

import cqlindex.columnar.kernels_consecutive  # noqa: F401
import cqlindex.columnar.kernels_echo
import cqlindex.columnar.kernels_game
import cqlindex.columnar.kernels_line
import cqlindex.columnar.kernels_rays
import cqlindex.columnar.kernels_logic
import cqlindex.columnar.kernels_path
import cqlindex.columnar.kernels_moves
import cqlindex.columnar.kernels_sets
import cqlindex.columnar.kernels_strings
import cqlindex.columnar.kernels_tree
import cqlindex.columnar.kernels_vars  # noqa: F401  (each import registers a family)
from cqlindex.columnar.engine import Columnar
from cqlindex.columnar.support import blocker, needed_facts, reads_games

__all__ = ["Columnar", "blocker", "needed_facts", "reads_games"]
