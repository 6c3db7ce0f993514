"""Logic: combining filters (and, or, not, if, braces) and comparing their values."""

from cqlindex.cql import ast
from cqlindex.filters.spec import EXACT, LOGICAL, declare

d = declare("logic")

DECLS = (
    d("and", ast.And, LOGICAL, "both sides match", sql=EXACT, example="check and mate"),
    d("or", ast.Or, LOGICAL, "either side matches", sql=EXACT, example="check or mate"),
    d("not", ast.Not, LOGICAL, "its argument does not match", grammar="parse_not_keyword", sql=EXACT,
      example="not check"),
    d("if", ast.If, "any", "'if C then F else G': F where C matches, G elsewhere", grammar="parse_if", sql=EXACT,
      example="if check mate else stalemate"),
    d("then", None, LOGICAL, "'if C then F'", where="if", example="if check then mate"),
    d("else", None, LOGICAL, "'if C F else G'", where="if", example="if check mate else stalemate"),
    d("{}", ast.Compound, "any", "'{F G ...}': every filter matches; the value of the last", sql=EXACT,
      example="{check mate}"),
    d("==", ast.Compare, LOGICAL, "comparisons < <= == >= > != of numbers, sets' sizes, strings, positions",
      sql=EXACT, example="#P == 8"),
)
