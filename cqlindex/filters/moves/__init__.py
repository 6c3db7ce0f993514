"""Moves: the ``move`` filter and its parameters, CQL 6.2's dash filters, what the last move was."""

from cqlindex.cql import ast
from cqlindex.filters.spec import (EXACT, LOGICAL, NARROWED, NUMBER, PYTHON, SET, SQUARES, TREE, Traits,
                                   built, declare, facts)

d = declare("moves")
fact = facts("moves")
_MOVED = Traits(reads_other_positions=True, transform="mapped")
_GENERATED = Traits(transform="mapped")  # generated from the position alone
_LAST_MOVE = Traits(colour_swap="same")  # the row's own move columns
_SETS = (("from", "the moving piece stands on S"), ("to", "the move goes to S"),
         ("capture", "the move takes a piece on S"), ("promote", "the move promotes to a piece of S"),
         ("enpassantsquare", "an en passant capture onto S"))
_WORDS = (("enpassant", "an en passant capture"), ("null", "a null move"), ("o-o", "castling kingside"),
          ("o-o-o", "castling queenside"), ("castle", "castling"), ("primary", "a main-line move"),
          ("secondary", "a variation move"))

DECLS = (
    d("move", ast.Move, LOGICAL, "a move is played from here (or was, with previous) with the given properties",
      grammar="parse_move", sql=EXACT, traits=_MOVED, example="move from K"),
    *(d(word, None, SET, f"'move {word} S': {what}", where="move", traits=SQUARES, example=f"move {word} Q")
      for word, what in _SETS),
    *(d(word, None, LOGICAL, f"'move {word}': {what}", where="move", example=f"move {word}") for word, what in _WORDS),
    d("previous", None, LOGICAL, "'move previous': the move that led here", where="move",
      example="move previous from K"),
    d("legal", None, LOGICAL, "'move legal': a legal move of the position, played or not", where="move",
      example="move legal from K"),
    d("pseudolegal", None, LOGICAL, "'move pseudolegal': a move ignoring checks", where="move",
      example="move pseudolegal from K"),
    d("count", None, NUMBER, "'move legal count': the number of such moves", where="move",
      example="move legal count"),
    d("comment", None, LOGICAL, "'move comment (...)': say the text after each matching move played", where="move",
      example="move comment \"x\""),
    d("to", ast.Keyword, SET, "the square the last move went to", grammar="parse_keyword", sql=EXACT, traits=TREE,
      example="to"),
    d("from", ast.Keyword, SET, "the square the last move came from", grammar="parse_keyword", sql=EXACT,
      traits=TREE, example="from"),
    *(d(word, ast.Keyword, LOGICAL, f"the move that led here was {what} (so inside a dash's target: the move made)",
        grammar="parse_keyword", sql=EXACT, python=python, sql_of=sql_of, traits=_LAST_MOVE, example=word)
      for word, what, python, sql_of in (
          ("o-o", "castling kingside", lambda ev, pos: pos.castle == 1,
           built(lambda S, exp, a: S.definite(exp.EQ(this=S.col("castle", a), expression=S.num(1))))),
          ("o-o-o", "castling queenside", lambda ev, pos: pos.castle == 2,
           built(lambda S, exp, a: S.definite(exp.EQ(this=S.col("castle", a), expression=S.num(2))))),
          ("castle", "castling", lambda ev, pos: pos.castle is not None, built(lambda S, exp, a: S.not_null(S.col("castle", a)))),
          ("enpassant", "an en passant capture", lambda ev, pos: bool(pos.en_passant),
           built(lambda S, exp, a: S.definite(S.col("en_passant", a)))))),
    *(d(word, None, LOGICAL, f"'{word}' outside a move filter", refused="written outside the move filter it belongs to",
        at_once=True, example=word)
      for word in ("enpassantsquare",)),
    d("legal", ast.Dash, SET, "'legal F--G': a legal move from F to G, played or not (CQL 6.2)", grammar="parse_legal",
      sql=NARROWED, traits=_GENERATED, example="legal --(castle)"),
    d("pseudolegal", ast.Dash, SET, "'pseudolegal F--G': as legal, moves that leave the king in check too",
      grammar="parse_legal", sql=PYTHON, traits=_GENERATED, example="pseudolegal K--"),
    d("countmoves", ast.CountMoves, NUMBER, "'countmoves D': how many moves the dash filter D matches (CQL 6.2)",
      grammar="parse_countmoves", sql=PYTHON, traits=_MOVED, example="countmoves legal -- == 1"),
    d("--", ast.Dash, LOGICAL, "'F--G': a move from F to G (CQL 6.2), '=P' promotes, '(...)' holds after it",
      sql=EXACT, traits=_MOVED, example="K--g1"),
    d("[x]", ast.Dash, LOGICAL, "'F[x]G': a capture from F on G", sql=EXACT, traits=_MOVED, example="Q[x]r"),
    d("consecutivemoves", ast.ConsecutiveMoves, NUMBER, "the length of the longest run of moves two positions share",
      grammar="parse_consecutivemoves", sql=PYTHON, traits=TREE,
      example="echo (s t) consecutivemoves(s t) > 3"),
    d("quiet", None, LOGICAL, "'consecutivemoves quiet': no comments", where="consecutivemoves",
      example="echo (s t) consecutivemoves quiet (s t) > 3"),
    d("currentmove", ast.Call, LOGICAL, "'currentmove D': the dash D is the move that led here",
      grammar="parse_currentmove", sql=PYTHON, traits=_MOVED, example="currentmove P--"),
    fact("primary", LOGICAL, "the move that led here is its position's main continuation (CQL 6.2)",
         lambda ev, pos: pos.parent is not None and ev.tree.positions[pos.parent].children[0] == pos.id,
         built(lambda S, exp, a: S.both(S.not_null(S.col("parent", a)),
                                        S.definite(exp.EQ(this=S.col("child_index", a), expression=S.num(0))))),
         "primary",
         traits=TREE),
    fact("secondary", LOGICAL, "the move that led here is not its position's main continuation (CQL 6.2)",
         lambda ev, pos: pos.parent is not None and ev.tree.positions[pos.parent].children[0] != pos.id,
         built(lambda S, exp, a: S.definite(exp.GT(this=S.col("child_index", a), expression=S.num(0)))), "secondary",
         traits=TREE),
    fact("nullmove", LOGICAL, "the move that led here was a null move (CQL 6.2)", lambda ev, pos: pos.null_move,
         built(lambda S, exp, alias: S.col("null_move", alias)), "nullmove"),
)
