"""The evaluator with every family's evaluation registered: import :class:`Evaluator` from here.

Each family (``cqlindex/filters/<family>/python.py`` and its neighbours) registers its
functions with :func:`cqlindex.evaluate.context.evaluates` when imported; this module imports
them all, and then checks the catalogue's promise that every supported filter is evaluated.
"""

from __future__ import annotations

import cqlindex.filters.control.python  # noqa: F401
import cqlindex.filters.dictionaries.python
import cqlindex.filters.game.hhdb
import cqlindex.filters.game.python
import cqlindex.filters.logic.python
import cqlindex.filters.moves.consecutive
import cqlindex.filters.moves.python
import cqlindex.filters.output.python
import cqlindex.filters.position.python
import cqlindex.filters.position.similar
import cqlindex.filters.relation.python
import cqlindex.filters.sequences.line
import cqlindex.filters.sequences.path
import cqlindex.filters.sets.pins_rays
import cqlindex.filters.sets.python
import cqlindex.filters.strings.python
import cqlindex.filters.transforms.python
import cqlindex.filters.variables.python  # noqa: F401  (each import registers a family)
from cqlindex.evaluate.context import Evaluator, evaluated_nodes
from cqlindex.filters.catalogue import CatalogueError, declarations


def check_every_supported_filter_is_evaluated() -> None:
    """Raise CatalogueError naming a supported filter whose node nothing evaluates."""
    known = evaluated_nodes()
    for decl in declarations():
        if decl.supported and decl.is_filter and decl.node not in known:
            raise CatalogueError(f"{decl.family}: '{decl.name}' is supported but nothing evaluates "
                                 f"{decl.node.__name__}")


check_every_supported_filter_is_evaluated()

__all__ = ["Evaluator", "evaluated_nodes"]
