"""Output: comments in the PGN written, messages, and sort values that order the games."""

from cqlindex.cql import ast
from cqlindex.filters.spec import EXACT, LOGICAL, NUMBER, PYTHON, Traits, declare

d = declare("output")
_SAYS = Traits(pure=False)

DECLS = (
    d("comment", ast.Output, LOGICAL, "write text at this position of the PGN output (always matches)",
      grammar="parse_output", sql=EXACT, traits=_SAYS, example="check comment (\"check\")"),
    d("///", ast.Output, LOGICAL, "'/// text': the rest of the line as a comment", sql=EXACT, traits=_SAYS,
      example="/// a comment\ncheck"),
    d("message", ast.Output, LOGICAL, "print text as the query runs (a debugging aid; always matches)",
      grammar="parse_output", sql=EXACT, traits=_SAYS, example="message (\"here\")"),
    d("quiet", None, LOGICAL, "'message quiet': the text alone", where="message", example="message quiet (\"x\")"),
    d("sort", ast.Sort, "any", "'sort [\"doc\"] [min] F': order the games by F's best value", grammar="parse_sort",
      sql=EXACT, traits=_SAYS, example="sort ply"),
    d("min", None, NUMBER, "'sort min \"doc\"': smallest first", where="sort", example='sort min "plies" ply'),
    d("max", None, NUMBER, "'sort max \"doc\"': smallest first too, as the reference sorts it (the default, "
      "no word, is largest first)", where="sort", example='sort max "plies" ply'),
    d("quiet", None, LOGICAL, "'sort quiet': no comment (cqlindex writes none)", where="sort",
      example='sort quiet "plies" ply'),
    d("removecomment", ast.Call, LOGICAL, "remove the comment after the move that led here from the output",
      grammar="parse_string_function", sql=PYTHON, traits=_SAYS, example="removecomment"),
)
