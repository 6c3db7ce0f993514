"""Import every family of filter evaluators so that they register themselves."""

from cqlindex.evaluate import (  # noqa: F401
    consecutive, game, line, logic, moves, output, path, pins_rays, position, sets, transforms, variables,
)
