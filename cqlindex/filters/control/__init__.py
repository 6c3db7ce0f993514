"""Control flow of CQL 6.2: ``try`` (a white try of a study) and ``loop``.

Both are decided by the evaluator: ``try`` walks back to the root of the game tree, ``loop``
repeats a filter that usually changes variables, which SQL has no notion of.
"""

from cqlindex.cql import ast
from cqlindex.filters.spec import LOGICAL, PYTHON, Traits, declare

d = declare("control")

DECLS = (
    d("try", ast.Control, LOGICAL, "a top-level white try: exactly one white move on the way here is not primary",
      grammar="parse_control", sql=PYTHON, traits=Traits(reads_other_positions=True), example="try"),
    d("loop", ast.Control, LOGICAL, "'loop F': F again and again until it fails; matches if F matched once",
      grammar="parse_control", sql=PYTHON, traits=Traits(pure=False, reads_other_positions=True),
      example="x = 0 loop {x += 1 x < 3}"),
)
