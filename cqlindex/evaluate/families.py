"""Import every family of filter evaluators so that they register themselves."""

from cqlindex.evaluate import game, logic, moves, output, position, sets, transforms, variables  # noqa: F401
