"""CQL 5's ``relation`` with its echo transform parameters (seed 001, reference/relation.md).

CQL 6 replaced ``relation`` by ``echo``; cqlindex keeps it so that one index answers both. The
source is the position where ``relation`` is evaluated; it matches when some other position of
the game (the main line, or the whole tree with variations) satisfies the target filters and
every parameter. The echo keywords compare the source with a transformed target; the identity
is never one of their transforms (the seed wins over CQL 5.2's ``echoflip``).
"""

from cqlindex.cql import ast
from cqlindex.filters.spec import EXACT, LOGICAL, NARROWED, SET, SQUARES, Traits, declare

d = declare("relation")
_RELATION = "relation"
#: Echo keywords of seed 001 and the synonyms CQL 5.2 accepts, with what each compares.
ECHO_KEYWORDS = (
    ("echoflip", "the seven non-identity rotations and reflections"),
    ("echoflipdihedral", "a synonym of echoflip"),
    ("echodihedral", "a synonym of echoflip"),
    ("echoflipvertical", "the reflection about the vertical bisector (a<->h)"),
    ("echofliphorizontal", "the reflection about the horizontal bisector (rank 1<->8)"),
    ("echorotate90", "the rotations by 90, 180 and 270 degrees"),
    ("echoshift", "every non-identity orthogonal shift (24x24 superboard)"),
    ("echoshifthorizontal", "every non-identity horizontal shift"),
    ("echoshiftvertical", "every non-identity vertical shift"),
)
#: CQL 5 parameters outside the seed: parsed where their syntax is known, then refused.
LATER_PARAMS = (("ancestor", False), ("descendant", False), ("lcamax", True), ("lcasum", True),
                ("lcasource", True), ("lcatarget", True), ("lcasubstring", True))
_EXAMPLE = "relation (tomove match) echoflipvertical (mismatch 0)"

DECLS = (
    d("relation", ast.Relation, LOGICAL,
      "CQL 5: 'relation F... (P)...': another position of the game satisfies the target filters F and "
      "every parameter P", grammar="parse_relation", sql=NARROWED,
      traits=Traits(reads_other_positions=True, transform="mapped"), example=_EXAMPLE),
    d("tomove", None, LOGICAL, "'(tomove match|mismatch)': the target has the same (other) side to move",
      where=_RELATION, example="relation (tomove mismatch)"),
    *(d(word, None, LOGICAL, f"'({word} S)': {what}", where=_RELATION, example=f"relation ({word} [Kk] mismatch 0)")
      for word, what in (("sourcesquares", "the squares compared, at the source (default: all)"),
                         ("targetsquares", "the squares compared, at the target (default: all)"))),
    *(d(word, None, LOGICAL, f"'({word} M [N])': the number of {word}ed squares is in the range (default 0 64)",
        where=_RELATION, example=f"relation ({word} 0 4)") for word in ("match", "mismatch")),
    *(d(word, None, LOGICAL, f"'{word} (square parameter)': {what}", where=_RELATION,
        example=f"relation {word} (mismatch 0)") for word, what in ECHO_KEYWORDS),
    d("echorotate45", None, LOGICAL, "'echorotate45 (square parameter)': CQL 5's 45 degree rotations",
      where=_RELATION, refused="CQL 5's echorotate45 (not part of seed 001)", example="relation echorotate45 (mismatch 0)"),
    *(d(word, None, LOGICAL, f"'({word}{' R' if ranged else ''})': CQL 5: {what}", where=_RELATION,
        refused="CQL 5's game-tree parameters of relation (not part of seed 001)",
        example=f"relation ({word}{' 1 3' if ranged else ''})")
      for word, ranged in LATER_PARAMS
      for what in ("the target is an ancestor or descendant of the source" if not ranged
                   else "a bound on the distances through the lowest common ancestor",)),
    d("on", ast.Binary, SET, "CQL 5: 'S on T', the squares of S that are in T (as 'S & T')", sql=EXACT,
      traits=SQUARES, example="K on darksquares"),
    *(d(word, ast.Pieces, SET, f"CQL 5: the {word[:-7]} squares", grammar="parse_cql5_squares", sql=EXACT,
        traits=SQUARES, example=word) for word in ("lightsquares", "darksquares")),
)
