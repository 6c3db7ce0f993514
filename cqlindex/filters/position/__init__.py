"""Position flags and numbers: facts of the current position, one row of ``positions`` each.

A fact is declared with its Python value and its SQL (``python=``, ``sql_of=``), so a new
fact of this kind is one declaration here and its test; :mod:`.python` and :mod:`.sql` beside
this file read them.
"""

from cqlindex.cql import ast
from cqlindex.filters.spec import (EXACT, LOGICAL, NARROWED, NUMBER, PYTHON, SET, TREE, Traits, built, column, declare,
                                   facts)

d = declare("position")
fact = facts("position")


_side_to_move = built(lambda S, exp, alias: exp.Case(ifs=[exp.If(this=S.col("wtm", alias), true=S.num(1))],
                                                     default=S.num(-1)))


DECLS = (
    fact("check", LOGICAL, "the side to move is in check", lambda ev, pos: pos.is_check, column("is_check"), "check"),
    fact("mate", LOGICAL, "the side to move is checkmated", lambda ev, pos: pos.is_mate, column("is_mate"), "mate"),
    fact("stalemate", LOGICAL, "the side to move is stalemated", lambda ev, pos: pos.is_stalemate,
         column("is_stalemate"), "stalemate"),
    fact("wtm", LOGICAL, "white to move", lambda ev, pos: pos.wtm, column("wtm"), "wtm",
         traits=Traits(colour_swap="btm")),
    fact("btm", LOGICAL, "black to move", lambda ev, pos: not pos.wtm, built(lambda S, exp, a: S.negate(S.col("wtm", a))), "btm",
         traits=Traits(colour_swap="wtm")),
    fact("initial", LOGICAL, "the game's first position", lambda ev, pos: pos.parent is None,
         built(lambda S, exp, a: S.cmp("==", S.col("positionid", a), S.num(0))), "initial"),
    fact("mainline", LOGICAL, "the position is on the main line", lambda ev, pos: pos.mainline, column("mainline"),
         "mainline"),
    fact("variation", LOGICAL, "the position is in a variation", lambda ev, pos: not pos.mainline,
         built(lambda S, exp, a: S.negate(S.col("mainline", a))), "variation"),
    fact("true", LOGICAL, "always matches", lambda ev, pos: True, lambda a: None, "true"),
    fact("false", LOGICAL, "never matches", lambda ev, pos: False, built(lambda S, exp, a: S.false()), "false"),
    fact("ply", NUMBER, "half-moves played to reach the position", lambda ev, pos: pos.ply, column("ply"), "ply > 10"),
    fact("movenumber", NUMBER, "the move number of the next move", lambda ev, pos: pos.movenumber,
         column("movenumber"), "movenumber == 20"),
    fact("depth", NUMBER, "how deep in variations the position is (0 on the main line)", lambda ev, pos: pos.depth,
         column("depth"), "depth > 0"),
    fact("positionid", NUMBER, "the position's id in its game (CQL's numbering)", lambda ev, pos: pos.id,
         column("positionid"), "positionid == 3"),
    fact("gamenumber", NUMBER, "the game's number in the collection", lambda ev, pos: ev.tree.gamenumber,
         column("gamenumber"), "gamenumber == 2"),
    fact("sidetomove", NUMBER, "1 when white is to move, -1 when black is", lambda ev, pos: 1 if pos.wtm else -1,
         _side_to_move, "sidetomove == 1", traits=Traits(colour_swap="negated")),
    fact("white", NUMBER, "the constant 1 (compare with sidetomove or colortype)", lambda ev, pos: 1, lambda a: 1,
         "sidetomove == white"),
    fact("black", NUMBER, "the constant -1", lambda ev, pos: -1, lambda a: -1, "sidetomove == black"),
    d("terminal", ast.Keyword, LOGICAL, "no move is played from here (in the line searched)", grammar="parse_keyword",
      sql=EXACT, traits=TREE, example="terminal"),
    *(d(name, ast.Keyword, SET, f"the {what}: its participating pieces (problem chess, CQL 6.2)",
        grammar="parse_keyword", sql=NARROWED, example=name)
      for name, what in (("puremate", "pure mate"), ("modelmate", "model mate"), ("idealmate", "ideal mate"),
                         ("purestalemate", "pure stalemate"), ("modelstalemate", "model stalemate"),
                         ("idealstalemate", "ideal stalemate"))),
    d("lastgamenumber", ast.Keyword, NUMBER, "the number of the collection's last game", grammar="parse_keyword",
      sql=PYTHON, example="lastgamenumber > 1"),
    d("virtualmainline", ast.Keyword, LOGICAL, "reached without a null move and without an alternative White move",
      grammar="parse_keyword", sql=PYTHON, traits=TREE, example="virtualmainline"),
    d("similarposition", ast.SimilarPosition, LOGICAL,
      "'similarposition [notransform] [nosort] \"x.pgn\"': a main-line position of that file is like this one",
      grammar="parse_similarposition", sql=PYTHON, example='similarposition nosort "x.pgn"'),
    d("hhdb", ast.HHdb, "any", "an HHdb study annotation of the game: 'hhdb prize', 'hhdb TT' ...",
      grammar="parse_hhdb", sql=PYTHON, traits=TREE, example="hhdb prize == 1"),  # 'hhdb variation' reads back
)
