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
    ("echorotate45", "CQL 5's rotations by 45 degrees: they map directions, not squares, so CQL 5 stops the run "
                     "where one would compare a square (an empty comparison set compares none)"),
)
#: CQL 5's game-tree parameters (not in the seed; CQL 5.2's meaning), each with whether it takes a
#: range and what it holds to it. sd and td are the plies from the lowest common ancestor of
#: source and target down to the source and to the target.
TREE_PARAMS = (
    ("ancestor", False, "the target is an ancestor of the source (lcatarget 0)"),
    ("descendant", False, "the target is a descendant of the source (lcasource 0)"),
    ("lcamax", True, "max(sd, td), the plies from the lowest common ancestor to the farther of the two"),
    ("lcasum", True, "sd + td, the plies from source to target through their lowest common ancestor"),
    ("lcasource", True, "sd, the plies from the lowest common ancestor to the source"),
    ("lcatarget", True, "td, the plies from the lowest common ancestor to the target"),
    ("lcasubstring", True, "the longest run of the same moves (piece, from, to) played on both branches "
                           "below the lowest common ancestor, each branch at least one move long"),
)
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
    *(d(word, None, LOGICAL, f"'({word}{' R' if ranged else ''})': CQL 5: {what}", where=_RELATION,
        example=f"relation ({word}{' 1 3' if ranged else ''})") for word, ranged, what in TREE_PARAMS),
    d("on", ast.Binary, SET, "CQL 5: 'S on T', the squares of S that are in T (as 'S & T')", sql=EXACT,
      traits=SQUARES, example="K on darksquares"),
    *(d(word, ast.Pieces, SET, f"CQL 5: the {word[:-7]} squares", grammar="parse_cql5_squares", sql=EXACT,
        traits=SQUARES, example=word) for word in ("lightsquares", "darksquares")),
)


def checked_early(node: ast.Relation) -> int:
    """How many of the parameters of ``node`` the engines may test before the others, out of order.

    CQL 5 tries a target's parameters in order and stops at the first that fails, and it stops
    the whole run at ``echorotate45`` mapping a square or at ``lcasubstring`` meeting a null move.
    Such a parameter must meet every target the parameters before it let through, so the SQL's
    and the evaluator's cheap tests (side to move, piece counts) stop there.
    """
    return next((i for i, param in enumerate(node.params)
                 if param.echo == "echorotate45" or param.lca == "lcasubstring"), len(node.params))
