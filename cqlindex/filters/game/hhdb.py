"""``hhdb``: the annotations of Harold van der Heijden's endgame study database (HHdb), as tags.

HHdb games carry their award at the head of the Event tag ("1.p", "1/2.p", "4.hm", ".c",
"sp.p" a special prize, "1.sp.p") and their flags after the stipulation in the Black tag
("(+0334.46a6h8) TT U2"). cqlindex reads these two; a game without them has no award and no
flag, so ``hhdb`` is false there (the reference engine answers so too). A flag (``TT``,
``"(c)"``, or its long name ``theme_tourney``, ``correction`` ...) is, as in the reference's
table of HHdb keys, the flag's code found anywhere in the Black tag.

What is run: ``hhdb prize`` / ``hm`` / ``commendation`` (the rank of an award of that kind
that is not special; an award written without a rank, ".p", ranks first: the reference's
answers on the studies sample, gameinfo2.cql) and the flags (``TT``, ``twin``, ``U1``, ``"(c)"`` ...).
The reference defines most other keys as CQL of its own, on the Black and Event tags and the
comments; so does cqlindex (``_MACROS``, parsed in place of the key under ``notransform``):
``"<cook>"``, ``"<eg>"``, ``"<minor_dual>"`` (markers in a position's original comment),
``dual``, ``diagram``, ``egdiagram``, ``firstcomment``, ``stipulation``, ``gbr``, ``composer``
(the composers: the first comment up to its first period when the Black tag says ``MC``, else
the White tag without a trailing `` NN``) and ``search`` (Event, White, Black and the first
comment, one a line). A quoted string after a key with a text value searches that text, as after
``player``. The parts of ``gbr`` are pieces of the code it finds: ``gbrpieces`` its four digits,
``gbrpawns`` the two after the period, ``gbrkings`` the kings' squares, ``gbrmaterial`` all but
the sign and the kings. The keys about variations (``"<main>"``, ``"<or>"``, ``mainline``,
``variation``) stop the run with an error unless the search has variations, as in the reference:
``"<main>"`` and ``"<or>"`` are markers in the position's comment, and a position is in a
``variation`` when it or one before it was reached by a move that is not the main continuation
whose comment has no ``"<main>"``. ``sort`` among an award's words sorts the games by that
award, best (the smallest rank) first: it is ``sort min`` around the key without ``sort``.
``cooked`` reads ``"<cook"`` anywhere in the game's text, variations included, so a main-line run
loads the comments of the rest of the game too (:func:`reads_game_text`, ``load_games(texts=True)``);
``unsound`` is a cooked study or one the Black tag flags with any of ``U1``-``U5`` (a dual, or a
solution that fails); ``sound`` is not the complement, as the reference engine defines the two: a
study is not sound when a ``U3``-``U5`` flag says its solution fails, or when it is cooked and a
``U1``/``U2`` dual is flagged too. So a study with only a cook, or only a dual flag, is both.
"""

from __future__ import annotations

import re

from cqlindex.cql import ast
from cqlindex.cql.kinds import STRING, kind_of
from cqlindex.cql.reader import Reader
from cqlindex.cql.tokens import Kind, Token
from cqlindex.evaluate.context import Evaluator, evaluates
from cqlindex.evaluate.values import MATCH
from cqlindex.errors import CqlError
from cqlindex.store.trees import Position

#: Flag codes of the Black tag and their long names.
FLAGS = {"AN": "anticipation", "CR": "colors_reversed", "MC": "too_many_composers", "PH": "posthumous",
         "TE": "theoretical_ending", "TT": "theme_tourney", "TW": "twin", "U1": "dual_at_move_1",
         "U2": "dual_after_move_1", "U3": "white_fails", "U4": "white_wins_in_draw", "U5": "unreachable",
         "(c)": "correction", "(m)": "modification", "(s)": "corrected_solution", "(v)": "version"}
_FLAG_OF = {**{code: code for code in FLAGS}, **{name: code for code, name in FLAGS.items()},
            "theme_tournament": "TT"}
_AWARD_WORDS = ("award", "commendation", "hm", "prize")
_MODIFIERS = ("max", "sort", "special")
#: Keys read from the game's whole text, variations included (see the module's docstring).
_OTHER_WORDS = ("cooked", "sound", "unsound")
#: The Black tag's flags of a dual (U1, U2) and of a solution that fails (U3-U5).
_DUAL = ("U1", "U2")
_FAILING = ("U3", "U4", "U5")
#: Keys about variations: evaluated in Python (an error without variations, see hhdb()).
_VARIATION_KEYS = ("mainline", "variation")
_MARKS = ("<main>", "<or>")
#: Keys the reference defines as CQL: what each means, written as CQL (run under notransform, so
#: that a transform around it leaves the tags alone). '\\1' is the regular expression's first group.
_MACROS = {
    "<cook>": '"<cook" in originalcomment',
    "<eg>": '"<eg>" in originalcomment',
    "<minor_dual>": '"<minor_dual" in originalcomment',
    "dual": '"U1" in player black or "U2" in player black',
    "diagram": '{event ~~ "#([^ ]+)" \\1}',
    "egdiagram": 'position 0 : {originalcomment ~~ "EG#(\\d+)" int \\1}',
    "firstcomment": "position 0 : originalcomment",
    "stipulation": 'position 0 : {originalcomment ~~ "stipulation: ([^.]+)\\." \\1}',
    "gbr": 'player black ~~ "%s"',
    "composer": 'if player black "MC" {position 0 : {originalcomment ~~ "^([^.]+)[.]" \\1}} '
                'else if player white[-3:] == " NN" player white[:-3] else player white',
    "search": 'event + \\n + {tag "White"} + \\n + {tag "Black"} + '
              'if (position 0 : originalcomment) \\n + position 0 : originalcomment else ""',
}
#: The GBR code at the head of an HHdb Black tag (sign, four piece digits, '.', two pawn digits, kings).
GBR = r"[+-=]\d{4}\.\d{2}[a-h][1-8][a-h][1-8]"
_MACROS["gbr"] = _MACROS["gbr"] % GBR
#: Each part of the GBR code: a slice of the code found.
_GBR_PARTS = {"kings": slice(-4, None), "material": slice(1, -4), "pawns": slice(6, 8), "pieces": slice(1, 5)}


def read_hhdb(parser: Reader, token: Token) -> ast.Node:
    """``hhdb`` and what it reads: an award (with ``max`` ``sort`` ``special``), a flag, a word, a mark."""
    start = parser.peek()
    if start.kind is Kind.STRING and start.text.strip('"') in FLAGS:  # hhdb "(c)": a flag written quoted
        parser.next()
        return ast.HHdb(token.span.to(start.span), start.text.strip('"'), frozenset())
    key = start.text.strip('"') if start.kind is Kind.STRING else start.text if start.kind is Kind.WORD else None
    if key in _MACROS and not (key == "gbr" and parser.peek(1).is_word(*_GBR_PARTS)):
        parser.next()
        node = parser.parse_macro(f"notransform {{{_MACROS[key]}}}", token.span.to(start.span))
        return _searched(parser, node)
    if start.kind is Kind.STRING and start.text.strip('"') in _MARKS:
        parser.next()
        return ast.HHdb(token.span.to(start.span), start.text.strip('"'), frozenset())
    if start.kind is not Kind.WORD:
        raise parser.error("'hhdb' is followed by what it reads: prize, hm, composer, TT ...", start)
    if start.text in _FLAG_OF or start.text in _OTHER_WORDS or start.text in _VARIATION_KEYS:
        parser.next()
        return ast.HHdb(token.span.to(start.span), _FLAG_OF.get(start.text, start.text), frozenset())
    if start.text == "gbr":
        parser.next()
        end = parser.next()  # one of _GBR_PARTS (else the macro above took it)
        return _searched(parser, ast.HHdb(token.span.to(end.span), f"gbr{end.text}", frozenset()))
    kind: str | None = None
    modifiers: set[str] = set()
    end = start
    while parser.at_word(*_AWARD_WORDS, *_MODIFIERS):
        word = parser.peek()
        if word.text in modifiers or (word.text in _AWARD_WORDS and kind is not None):
            raise parser.error(f"'{word.text}' twice in 'hhdb'", word)
        if word.text in _AWARD_WORDS:
            kind = word.text
        else:
            modifiers.add(word.text)
        end = parser.next()
    if kind is None and not modifiers:
        raise parser.error("'hhdb' is followed by what it reads: prize, hm, composer, TT ...", parser.peek())
    span = start.span.to(end.span)
    if "sort" in modifiers:  # the reference's own rules for 'hhdb sort'
        if end.text == "sort":
            raise parser.error("'sort' last after 'hhdb' would read as a sort filter: put it right after 'hhdb'", end)
        if kind is None and "special" not in modifiers:
            raise parser.error("'hhdb sort' needs 'special', 'award', 'prize', 'hm' or 'commendation'", span)
        if "max" in modifiers:
            raise parser.error("'hhdb' takes 'sort' or 'max', not both", span)
        key = ast.HHdb(token.span.to(end.span), kind or "award", frozenset(modifiers - {"sort"}))
        return ast.Sort(token.span.to(end.span), None, True, key)  # best award (smallest rank) first
    return ast.HHdb(token.span.to(end.span), kind or "award", frozenset(modifiers))


def _searched(parser: Reader, node: ast.Node) -> ast.Node:
    """``node``, or with a quoted string after it and a text value, whether the string is in that
    text (the reference reads a trailing string so after every key it defines)."""
    if parser.peek().kind is not Kind.STRING or kind_of(node) not in (STRING, "any"):
        return node
    string = parser.next()
    return ast.Binary(node.span.to(string.span), "in", ast.String(string.span, string.text), node)


def is_award(node: ast.HHdb) -> bool:
    """A number (the rank of an award) rather than a flag."""
    return node.item in _AWARD_WORDS


@evaluates(ast.HHdb)
def hhdb(ev: Evaluator, node: ast.HHdb, pos: Position) -> object:
    headers = ev.tree.headers
    if node.item in _AWARD_WORDS:
        return award(headers.get("Event", ""), node.item, "special" in node.modifiers, "max" in node.modifiers)
    if node.item in FLAGS:
        return MATCH if node.item in headers.get("Black", "") else None
    if node.item.startswith("gbr"):
        found = re.search(GBR, headers.get("Black", ""))
        return found.group(0)[_GBR_PARTS[node.item[3:]]] if found else None
    if node.item in _MARKS or node.item in _VARIATION_KEYS:
        if not ev.variations:
            raise CqlError(f"'hhdb {node.item}' needs variations (cql(variations), or --variations)",
                           ev.query.text, node.span, ev.query.source)
        if node.item in _MARKS:
            return MATCH if node.item in (pos.comment or "") else None
        return MATCH if _in_variation(ev, pos) == (node.item == "variation") else None
    if node.item in _OTHER_WORDS:
        black = headers.get("Black", "")
        dual, failing, cook = (any(f in black for f in _DUAL), any(f in black for f in _FAILING), cooked(ev))
        holds = {"cooked": cook, "unsound": cook or dual or failing,
                 "sound": not (failing or (cook and dual))}[node.item]
        return MATCH if holds else None
    raise ev.unsupported(f"'hhdb {node.item}'", node)


def cooked(ev: Evaluator) -> bool:
    """Whether ``"<cook"`` is in a comment anywhere in the game, variations included."""
    found = ev.memo.get(_COOKED)  # the memo lasts one game
    if found is None:
        tree = ev.tree
        texts = (*(p.comment for p in tree.positions if p is not None and p.comment), *tree.other_comments)
        found = ev.memo[_COOKED] = any("<cook" in text for text in texts)
    return found


_COOKED = ("hhdb", "cooked")


def reads_game_text(body: ast.Node) -> bool:
    """Whether ``body`` reads the game's whole text (``hhdb cooked`` ...): a main-line run then loads
    the comments of the variations too."""
    return any(isinstance(node, ast.HHdb) and node.item in _OTHER_WORDS for node in ast.walk(body))


def _in_variation(ev: Evaluator, pos: Position) -> bool:
    """Whether ``pos`` or a position before it was reached by a move that is not its parent's
    main continuation and whose comment has no ``<main>`` mark (HHdb's variations)."""
    positions = ev.tree.positions
    while pos.parent is not None:
        if positions[pos.parent].children[0] != pos.id and "<main>" not in (pos.comment or ""):
            return True
        pos = positions[pos.parent]
    return False


def award_rank(event: str, kind: str) -> int | None:
    """The rank of a non-special award of ``kind`` ("p", "hm", "c") at the head of an Event tag."""
    value = award(event, _KIND_WORDS[kind], False, False)
    return value if type(value) is int else None


#: The rank of an award written without one, for 'max' (the reference's largest place).
NO_RANK_MAX = 10000
_KIND_WORDS = {"p": "prize", "hm": "hm", "c": "commendation"}
_AWARD_HEAD = re.compile(r"(?:(\d+)(?:/(\d+))?)?")


def award(event: str, kind: str, special: bool, use_max: bool) -> object:
    """``hhdb [special] KIND [max]`` on an Event tag, as the reference reads the award at its head.

    The head is ``[rank[/rank]]`` then ``sp`` (``.sp`` after a rank) for a special award, then
    ``.p``, ``.hm`` or ``.c``. The value is the rank (the second one with ``max``; an award written
    without a rank ranks 1, or NO_RANK_MAX with ``max``). A special award asked for without
    ``special`` matches but has no rank (MATCH: no number to compare), as in the reference.
    """
    match = _AWARD_HEAD.match(event)
    low = int(match.group(1)) if match.group(1) else 0
    high = int(match.group(2)) if match.group(2) else low
    if match.group(2) and high <= low:
        return None  # malformed: '2/1.p'
    rest = event[match.end():]
    is_special = rest.startswith(".sp" if low else "sp")
    if is_special:
        rest = rest[3 if low else 2:]
    found = next((word for mark, word in ((".p", "prize"), (".hm", "hm"), (".c", "commendation"))
                  if rest.startswith(mark)), None)
    if found is None or kind != "award" and found != kind or special and not is_special:
        return None
    if not low:
        low, high = 1, NO_RANK_MAX
    if is_special and not special:
        return MATCH
    return high if use_max else low
