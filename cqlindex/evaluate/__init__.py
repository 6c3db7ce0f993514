"""The reference evaluator: CQL semantics in plain Python over game trees loaded from the index.

Every faster path (the SQL planner) must give exactly this evaluator's matches.
"""

# Every family registers its evaluators with cqlindex.evaluate.core when imported; importing the
# package therefore gives the whole evaluator, and core itself never imports a family.
from cqlindex.evaluate import (  # noqa: E402, F401
    consecutive, game, line, logic, moves, output, path, pins_rays, position, sets, transforms, variables,
)


def _check_every_supported_filter_is_evaluated() -> None:
    """The catalogue's promise "supported means evaluated", checked once every family registered."""
    from cqlindex.evaluate.core import evaluated_nodes
    from cqlindex.filters.catalogue import CatalogueError, declarations

    known = evaluated_nodes()
    for decl in declarations():
        if decl.supported and decl.is_filter and decl.node not in known:
            raise CatalogueError(f"{decl.family}: '{decl.name}' is supported but nothing evaluates {decl.node.__name__}")


_check_every_supported_filter_is_evaluated()
