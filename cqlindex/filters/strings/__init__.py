"""Strings (CQL 6.1): regular expressions, the string functions, and reading and writing files.

A string filter matches wherever it has a value; ``~~`` has the text its pattern matched, and
``\\0`` .. ``\\9`` what the groups of the last match caught. Files are read and written only
where the caller allows it (the command line does, as CQL does; the Python API only when asked
with ``allow_files=True``), so a service that embeds cqlindex cannot be made to touch files.
"""

from cqlindex.cql import ast
from cqlindex.filters.spec import ANY, EXACT, LOGICAL, NUMBER, PYTHON, STRING, Traits, declare

d = declare("strings")
_F = "parse_string_function"
_WRITES = Traits(pure=False)

DECLS = (
    d("~~", ast.Binary, STRING, "'x ~~ R': the text the regular expression R first matches in x (\\1 .. its groups)",
      sql=EXACT, example="event ~~ \"Lon\""),
    d("str", ast.Call, STRING, "the text of filters' values, joined ('str(\"x is \" x)')", grammar=_F, sql=PYTHON,
      example="str(K) == \"Ke1\""),
    d("int", ast.Call, NUMBER, "the number a string spells (no match if it spells none)", grammar=_F, sql=PYTHON,
      example="int \"3\" == 3"),
    d("lowercase", ast.Call, STRING, "a string in lower case", grammar=_F, sql=PYTHON,
      example="lowercase \"A\" == \"a\""),
    d("uppercase", ast.Call, STRING, "a string in upper case", grammar=_F, sql=PYTHON,
      example="uppercase \"a\" == \"A\""),
    d("ascii", ast.Call, ANY, "a one-character string's code, or the character of a code", grammar=_F, sql=PYTHON,
      example="ascii \"A\" == 65"),
    d("indexof", ast.Call, NUMBER, "'indexof(x y)': where x first occurs in y (-1: nowhere)", grammar=_F, sql=PYTHON,
      example="indexof(\"b\" \"abc\") == 1"),
    d("readfile", ast.Call, STRING, "the text of a file (where file access is allowed)", grammar=_F, sql=PYTHON,
      example="readfile \"a.txt\" == \"x\""),
    d("writefile", ast.Call, LOGICAL, "'writefile(F T)': append the text T to the file F (where allowed)", grammar=_F,
      sql=PYTHON, traits=_WRITES, example="writefile(\"a.txt\" \"x\")"),
)
