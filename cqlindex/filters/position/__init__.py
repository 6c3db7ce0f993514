"""Position flags and numbers: facts of the current position, one row of ``positions`` each."""

from cqlindex.cql import ast
from cqlindex.filters.spec import EXACT, LOGICAL, NUMBER, PYTHON, TREE, Traits, declare

d = declare("position")
_K = ast.Keyword

DECLS = (
    d("check", _K, LOGICAL, "the side to move is in check", grammar="parse_keyword", sql=EXACT, example="check"),
    d("mate", _K, LOGICAL, "the side to move is checkmated", grammar="parse_keyword", sql=EXACT, example="mate"),
    d("stalemate", _K, LOGICAL, "the side to move is stalemated", grammar="parse_keyword", sql=EXACT,
      example="stalemate"),
    d("wtm", _K, LOGICAL, "white to move", grammar="parse_keyword", sql=EXACT, traits=Traits(colour_swap="btm"),
      example="wtm"),
    d("btm", _K, LOGICAL, "black to move", grammar="parse_keyword", sql=EXACT, traits=Traits(colour_swap="wtm"),
      example="btm"),
    d("initial", _K, LOGICAL, "the game's first position", grammar="parse_keyword", sql=EXACT, example="initial"),
    d("terminal", _K, LOGICAL, "no move is played from here (in the line searched)", grammar="parse_keyword",
      sql=EXACT, traits=TREE, example="terminal"),
    d("mainline", _K, LOGICAL, "the position is on the main line", grammar="parse_keyword", sql=EXACT,
      example="mainline"),
    d("variation", _K, LOGICAL, "the position is in a variation", grammar="parse_keyword", sql=EXACT,
      example="variation"),
    d("true", _K, LOGICAL, "always matches", grammar="parse_keyword", sql=EXACT, example="true"),
    d("false", _K, LOGICAL, "never matches", grammar="parse_keyword", sql=EXACT, example="false"),
    d("ply", _K, NUMBER, "half-moves played to reach the position", grammar="parse_keyword", sql=EXACT,
      example="ply > 10"),
    d("movenumber", _K, NUMBER, "the move number of the next move", grammar="parse_keyword", sql=EXACT,
      example="movenumber == 20"),
    d("depth", _K, NUMBER, "how deep in variations the position is (0 on the main line)", grammar="parse_keyword",
      sql=EXACT, example="depth > 0"),
    d("positionid", _K, NUMBER, "the position's id in its game (CQL's numbering)", grammar="parse_keyword",
      sql=EXACT, example="positionid == 3"),
    d("gamenumber", _K, NUMBER, "the game's number in the collection", grammar="parse_keyword", sql=EXACT,
      example="gamenumber == 2"),
    d("lastgamenumber", _K, NUMBER, "the number of the collection's last game", grammar="parse_keyword",
      sql=PYTHON, example="lastgamenumber > 1"),
    d("sidetomove", _K, NUMBER, "1 when white is to move, -1 when black is", grammar="parse_keyword", sql=EXACT,
      traits=Traits(colour_swap="negated"), example="sidetomove == 1"),
    d("white", _K, NUMBER, "the constant 1 (compare with sidetomove or colortype)", grammar="parse_keyword",
      sql=EXACT, example="sidetomove == white"),
    d("black", _K, NUMBER, "the constant -1", grammar="parse_keyword", sql=EXACT, example="sidetomove == black"),
    d("virtualmainline", _K, LOGICAL, "on the line the engine took as main line", grammar="parse_keyword",
      refused="CQL 6.2 virtual main lines", example="virtualmainline"),
    d("hhdb", None, LOGICAL, "the HHdb study database's annotations", refused="HHdb annotations", at_once=True,
      example="hhdb"),
)
