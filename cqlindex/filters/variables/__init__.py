"""Variables and echo: assigning and reading values, and pairs of positions."""

from cqlindex.cql import ast
from cqlindex.filters.spec import EXACT, LOGICAL, NARROWED, PYTHON, TREE, Traits, declare

d = declare("variables")
_SETS_VALUE = Traits(pure=False)

DECLS = (
    d("=", ast.Assign, LOGICAL, "'x = F': x takes F's value (also += -= *= /= %= and =? for sets)",
      sql=PYTHON, traits=_SETS_VALUE, example="x = #P x > 3"),
    d("echo", ast.Echo, LOGICAL, "'echo (s t) F': F for each pair of this position s and another t",
      grammar="parse_echo", sql=NARROWED, traits=TREE, example="echo (s t) check"),
    d("quiet", None, LOGICAL, "'echo quiet': no comments", where="echo", example="echo quiet (s t) check"),
    d("in all", None, LOGICAL, "'echo (s t) in all': t ranges over the whole game", where="echo",
      example="echo (s t) in all check"),
    d("persistent", ast.Lasting, LOGICAL, "a variable that keeps its value from game to game, printed at the end",
      grammar="parse_persistent", sql=PYTHON, traits=_SETS_VALUE, example="persistent x += 1"),
    d("quiet", None, LOGICAL, "'persistent quiet x': not printed at the end", where="persistent",
      example="persistent quiet x = 1"),
    d("atomic", ast.Assign, LOGICAL, "a variable a path's search restores when it backs out of a move",
      grammar="parse_persistent", sql=PYTHON, traits=_SETS_VALUE, example="atomic x = 1"),
    d("isbound", ast.Call, LOGICAL, "'isbound x': x has a value here", grammar="parse_binding_test", sql=PYTHON,
      example="x = 1 isbound x"),
    d("isunbound", ast.Call, LOGICAL, "'isunbound x': x has no value here (never assigned, or unbound)",
      grammar="parse_binding_test", sql=PYTHON, example="isunbound x"),
    d("unbind", ast.Call, LOGICAL, "'unbind x': x has no value from now on; 'unbind X[k]', a dictionary's entry",
      grammar="parse_binding_test", sql=PYTHON, traits=_SETS_VALUE, example="x = 1 unbind x"),
    d("function", ast.Keyword, LOGICAL, "'function f(x) {...}': a macro called as f(...)", grammar="parse_function",
      sql=EXACT, example="function f(x) {x} f(K)"),
)
