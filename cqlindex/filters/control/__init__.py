"""Control flow of CQL 6.2: ``try`` (a white try of a study), ``loop``, ``while`` and ``assert``.

All are decided by the evaluator: ``try`` walks back to the root of the game tree, ``loop`` and
``while`` repeat a filter that usually changes variables, which SQL has no notion of, and
``assert`` stops the run with an error wherever its filter fails (so a query using it is
evaluated at every position, as CQL does: see :mod:`cqlindex.query.analyse`).
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
    d("while", ast.Control, LOGICAL, "'while (C) F': F again and again as long as C matches; always matches",
      grammar="parse_control", sql=PYTHON, traits=Traits(pure=False, reads_other_positions=True),
      example="x = 0 while (x < 3) x += 1"),
    d("assert", ast.Control, LOGICAL, "'assert F': F, or stop the run with an error where F fails",
      grammar="parse_control", sql=PYTHON, traits=Traits(pure=False), example="assert true"),
    d("cql_abort", ast.Control, LOGICAL, "stop the run with an error where it is evaluated",
      grammar="parse_control", sql=PYTHON, traits=Traits(pure=False), example="x = 1 if x == 2 cql_abort"),
)
