"""The reference evaluator: CQL semantics in plain Python over game trees loaded from the index.

Every faster path (the SQL planner) must give exactly this evaluator's matches.
"""

# Every family registers its evaluators with cqlindex.evaluate.core when imported; importing the
# package therefore gives the whole evaluator, and core itself never imports a family.
from cqlindex.evaluate import (  # noqa: E402, F401
    consecutive, game, line, logic, moves, output, path, pins_rays, position, sets, transforms, variables,
)
