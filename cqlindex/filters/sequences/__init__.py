"""Sequences of positions: ``line`` (CQL 6.1) and ``path`` (CQL 6.2)."""

from cqlindex.cql import ast
from cqlindex.filters.sequences.path_refs import path_reference
from cqlindex.filters.spec import NARROWED, NUMBER, POSITION, PYTHON, TREE, declare

d = declare("sequences")
_LINE_PARAMS = (("firstmatch", "only the first match of each start"),
                ("lastposition", "its value is the last position"),
                ("singlecolor", "only the moves of one colour"), ("nestban", "no match inside another"),
                ("primary", "main-line moves only"), ("secondary", "at least one variation move"),
                ("quiet", "no comments"), ("nolinearize", "move filters see every move played (no linearization)"),
                ("nonatomic", "variables assigned in constituents are not restored per candidate line"))
_PATH_PARAMS = (("nestban", "no match starts inside another", "path nestban check --"),
                ("firstmatch", "the first walk found", "path firstmatch -- check"),
                ("primary", "main-line moves only", "path primary -- check"),
                ("quiet", "no comments", "path quiet -- check"),
                ("focus", "only the moves of these pieces count ('focus capture S': and captures of them)",
                 "path focus Q -- check"),
                ("capture", "'focus capture S': moves that take a focused piece count too",
                 "path focus capture Q -- check"),
                ("singlecolor", "only the moves of the side to move count", "path singlecolor -- check"),
                ("piecepath", "comment the focused piece's path", "path focus Q piecepath -- check"),
                ("keepallbest", "comment every best walk", "path keepallbest -- check"),
                ("title", "'title \"text\"': comments start with it", 'path title "t" -- check'),
                ("verbose", "comment each move", "path verbose -- check"),
                ("max", "'max F': keep the walk where F is largest at its end", "path max ply -- check"),
                ("lastposition", "its value is the last position", "path lastposition -- check"))
#: Filters about a path: inside it, the walk under way; elsewhere, the game's last matched path.
_PATH_REFS = (("pathcount", NUMBER, "the number of (focused) moves of the path"),
              ("pathcountunfocused", NUMBER, "the path's moves not in focus ('ply - pathstart:ply - pathcount')"),
              ("pathstart", POSITION, "the position the path started from"),
              ("pathlastposition", POSITION, "the last position of the path's best walk"))

DECLS = (
    d("line", ast.Line, NUMBER, "'line --> F --> G ...': consecutive positions matching the constituents",
      grammar="parse_line", sql=NARROWED, traits=TREE, example="line --> check{2,} --> mate"),
    *(d(word, None, NUMBER, f"'line {word}': {what}", where="line", example=f"line {word} --> check --> check")
      for word, what in _LINE_PARAMS),
    d("path", ast.Path, NUMBER, "'path F -- G ...': the longest run of moves and filters (CQL 6.2)",
      grammar="parse_path", sql=NARROWED, traits=TREE, example="path check --"),
    *(d(word, None, NUMBER, f"'path {word}': {what}", where="path", example=example)
      for word, what, example in _PATH_PARAMS),
    *(d(name, ast.Keyword, kind, description, grammar="parse_keyword", sql=PYTHON, traits=TREE,
        python=path_reference(name), example=name)
      for name, kind, description in _PATH_REFS),
)
