"""Game tags: the game's result, players, ratings, event, and the FEN of a position."""

from cqlindex.cql import ast
from cqlindex.filters.spec import EXACT, LOGICAL, NUMBER, PYTHON, STRING, Traits, declare

d = declare("game")
_G = ast.GameFilter
_SWAPS = Traits(colour_swap="swapped")

DECLS = (
    d("result", _G, LOGICAL, "the game's result: 1-0, 0-1, 1/2-1/2 or *", grammar="parse_game_filter", sql=EXACT,
      traits=_SWAPS, example="result 1-0"),
    d("player", _G, LOGICAL, "'player [white|black] \"name\"': a player's name contains the text",
      grammar="parse_game_filter", sql=EXACT, traits=_SWAPS, example="player \"Carlsen\""),
    d("elo", _G, NUMBER, "'elo white|black': a player's rating", grammar="parse_game_filter", sql=EXACT,
      traits=_SWAPS, example="elo white > 2700"),
    d("year", _G, NUMBER, "the year of the game's date", grammar="parse_game_filter", sql=EXACT,
      example="year > 1990"),
    *(d(tag, _G, LOGICAL, f"'{tag} \"x\"': the game's {tag} contains the text; alone, that text (CQL 6.1)",
        grammar="parse_game_filter", sql=EXACT, example=f"{tag} \"19\"") for tag in ("event", "site", "date", "eco")),
    d("fen", _G, LOGICAL, "'fen \"...\"': the board (and side to move) of a FEN", grammar="parse_fen", sql=EXACT,
      example="fen \"8/8/8/8/8/8/8/K6k w\""),
    d("white", None, LOGICAL, "'player white', 'elo white'", where="player, elo", traits=Traits(colour_swap="black"),
      example="player white \"A\""),
    d("black", None, LOGICAL, "'player black', 'elo black'", where="player, elo", traits=Traits(colour_swap="white"),
      example="player black \"A\""),
    d("eventdate", _G, LOGICAL, "'eventdate \"x\"': the EventDate tag contains the text; alone, that text",
      grammar="parse_game_filter", sql=EXACT, example="eventdate \"19\""),
    *(d(name, _G, LOGICAL, f"'{name} \"x\"': {what} contains the text; alone, that text", grammar="parse_game_filter",
        sql=EXACT, example=f"{name} \"good\"") for name, what in (
        ("originalcomment", "the comment the PGN has after the move that led here"),
        ("hascomment", "the comment after the move that led here (CQL 6.1's older name)"))),
    d("tag", ast.Call, STRING, "'tag \"Name\"': the text of any PGN tag (no match if the game has none)",
      grammar="parse_string_function", sql=EXACT, example="tag \"ECO\" == \"C42\""),
    d("settag", ast.Call, LOGICAL, "'settag(\"Name\" \"value\")': set a PGN tag of the game written",
      grammar="parse_string_function", sql=PYTHON, traits=Traits(pure=False), example="settag(\"A\" \"B\")"),
    d("removetag", ast.Call, LOGICAL, "'removetag \"Name\"': remove a PGN tag of the game written (CQLi)",
      grammar="parse_string_function", sql=PYTHON, traits=Traits(pure=False), example="removetag \"Annotator\""),
)
