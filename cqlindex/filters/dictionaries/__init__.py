"""Dictionaries (CQL 6.1, ``local`` in 6.2): tables from keys to values that outlive a position.

``dictionary X`` declares X; ``X[k] = v`` stores, ``X[k]`` reads (no match without an entry),
``unbind X[k]`` removes an entry and ``unbind X`` empties X. A dictionary keeps its entries
from position to position and game to game; a ``local dictionary`` for one game only.
"""

from cqlindex.cql import ast
from cqlindex.filters.spec import LOGICAL, PYTHON, Traits, declare

d = declare("dictionaries")
_STATEFUL = Traits(pure=False)

DECLS = (
    d("dictionary", ast.Dictionary, LOGICAL, "'dictionary X': declares the dictionary X; X[k] = v, X[k]",
      grammar="parse_dictionary", sql=PYTHON, traits=_STATEFUL, example='dictionary X X["a"] = 1'),
    d("local", ast.Dictionary, LOGICAL, "'local dictionary X': a dictionary emptied at each game",
      grammar="parse_dictionary", sql=PYTHON, traits=_STATEFUL, example="local dictionary X X[1] = to"),
)
