"""Sequences of positions: ``line`` (CQL 6.1) and ``path`` (CQL 6.2)."""

from cqlindex.cql import ast
from cqlindex.filters.spec import NARROWED, NUMBER, PYTHON, TREE, declare

d = declare("sequences")
_LINE_PARAMS = (("firstmatch", "only the first match of each start"),
                ("lastposition", "its value is the last position"),
                ("singlecolor", "only the moves of one colour"), ("nestban", "no match inside another"),
                ("primary", "main-line moves only"), ("secondary", "at least one variation move"),
                ("quiet", "no comments"), ("nolinearize", "move filters see every move played (no linearization)"),
                ("nonatomic", "variables assigned in constituents are not restored per candidate line"))
_PATH_PARAMS = (("nestban", "no match inside another"), ("firstmatch", "only the first match"),
                ("primary", "main-line moves only"), ("secondary", "at least one variation move"),
                ("quiet", "no comments"))
_PATH_LATER = ("focus", "piecepath", "keepallbest", "title", "verbose", "max", "lastposition", "singlecolor",
               "nolinearize", "nonatomic")

DECLS = (
    d("line", ast.Line, NUMBER, "'line --> F --> G ...': consecutive positions matching the constituents",
      grammar="parse_line", sql=NARROWED, traits=TREE, example="line --> check --> check"),
    *(d(word, None, NUMBER, f"'line {word}': {what}", where="line", example=f"line {word} --> check --> check")
      for word, what in _LINE_PARAMS),
    d("path", ast.Path, NUMBER, "'path F -- G ...': the longest run of moves and filters (CQL 6.2)",
      grammar="parse_path", sql=PYTHON, traits=TREE, example="path check --"),
    *(d(word, None, NUMBER, f"'path {word}': {what}", where="path", example=f"path {word} check --")
      for word, what in _PATH_PARAMS),
    *(d(word, None, NUMBER, f"'path {word}'", where="path", refused="CQL 6.2's advanced path parameters",
        example=f"path {word} check --") for word in _PATH_LATER),
    *(d(word, None, NUMBER, f"'{word}': a path's {word[4:] or 'focus'}", refused="CQL 6.2's path family",
        at_once=True, example=word)
      for word in ("focus", "piecepath", "pathcount", "pathcountunfocused", "pathstart", "pathlastposition")),
)
