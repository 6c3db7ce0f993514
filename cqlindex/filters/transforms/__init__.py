"""Transforms: a filter, or the union of its images under a group of board symmetries."""

from cqlindex.cql import ast
from cqlindex.filters.spec import EXACT, NUMBER, PYTHON, SQUARES, STRING, declare

d = declare("transforms")
_WHAT = {"flipcolor": "and with colours swapped (mirrored vertically)", "reversecolor": "with colours swapped only",
         "flip": "and its seven images under the board's symmetries", "fliphorizontal": "and its mirror image a-h",
         "flipvertical": "and its mirror image 1-8", "rotate90": "and its rotations by 90 degrees",
         "shift": "and its translations", "shifthorizontal": "and its translations along ranks",
         "shiftvertical": "and its translations along files",
         "rotate45": "and its rotations by multiples of 45 degrees (directions only)"}

DECLS = (
    *(d(name, ast.Transform, "any", f"the filter {what}", grammar="parse_transform", sql=EXACT, traits=SQUARES,
        example=f"{name} K" if name == "rotate45" else f"{name} Ka1") for name, what in _WHAT.items()),
    d("count", None, NUMBER, "'T count F': how many images match", where="transforms", example="flip count Ka1"),
    d("notransform", ast.Transform, "any", "the filter, untouched by an enclosing transform",
      grammar="parse_unsupported_prefix", sql=EXACT, example="flip notransform K"),
    d("currenttransform", ast.CurrentTransform, STRING,
      "the transforms this copy of the filter was made by, outermost first: '<>', '<reflect_v>'",
      grammar="parse_currenttransform", sql=PYTHON, example="currenttransform"),
)
