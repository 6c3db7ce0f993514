"""The game tree and ``:``: other positions of the game, and filters evaluated there."""

from cqlindex.cql import ast
from cqlindex.filters.spec import EXACT, LOGICAL, NUMBER, PYTHON, POSITION, TREE, declare

d = declare("tree")

DECLS = (
    d(":", ast.Colon, "any", "'P:F': F evaluated at the position P", sql=EXACT, traits=TREE,
      example="parent:check"),
    d("parent", ast.Keyword, POSITION, "the position before this one", grammar="parse_keyword", sql=EXACT,
      traits=TREE, example="parent"),
    d("child", ast.Keyword, POSITION, "the position after the main move ('child(n)': after the n-th move)",
      grammar="parse_child", sql=EXACT, traits=TREE, example="child"),
    d("position", ast.ChildN, POSITION, "'position N': the game's position with id N", grammar="parse_position",
      sql=EXACT, traits=TREE, example="position 0"),
    d("currentposition", ast.Keyword, POSITION, "this position", grammar="parse_keyword", sql=EXACT,
      example="currentposition"),
    d("initialposition", ast.Keyword, POSITION, "the game's first position", grammar="parse_keyword", sql=EXACT,
      traits=TREE, example="initialposition"),
    d("ancestor", ast.Call, LOGICAL, "'ancestor(x y)': x comes before y on y's line", grammar="parse_call",
      sql=PYTHON, traits=TREE, example="ancestor(parent currentposition)"),
    d("descendant", ast.Call, LOGICAL, "'descendant(x y)': x comes after y on x's line", grammar="parse_call",
      sql=PYTHON, traits=TREE, example="descendant(currentposition parent)"),
    d("lca", ast.Call, POSITION, "the last position two positions' lines share", grammar="parse_call", sql=PYTHON,
      traits=TREE,
      example="lca(parent currentposition)"),
    d("distance", ast.Call, NUMBER, "the number of moves between two positions of one line",
      grammar="parse_call", sql=PYTHON, traits=TREE, example="distance(parent currentposition) == 1"),
    d("find", ast.Find, POSITION, "'find F': a later position where F holds (earlier with <--)", grammar="parse_find",
      sql=EXACT, traits=TREE, example="find mate"),
    d("all", None, NUMBER, "'find all F': how many positions F holds at", where="find", example="find all check"),
    d("count", None, NUMBER, "'find count F': how many positions F holds at, matching at 0 too", where="find",
      example="find count check"),
    d("quiet", None, LOGICAL, "'find quiet F': no comments", where="find", example="find quiet check"),
    d("<--", None, LOGICAL, "'find <-- F': search backward", where="find", example="find <-- check"),
)
