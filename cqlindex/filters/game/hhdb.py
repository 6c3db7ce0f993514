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
``dual``, ``diagram``, ``egdiagram``, ``firstcomment``, ``stipulation``, ``gbr``. The rest of the
grammar (``special``, ``max``, ``sort``, ``award``, ``composer``, the parts of ``gbr``,
``cooked``, ``sound``, the keys that need ``variations`` ...) is parsed and refused as unsupported.
"""

from __future__ import annotations

import re

from cqlindex.cql import ast
from cqlindex.cql.kinds import STRING, kind_of
from cqlindex.cql.reader import Reader
from cqlindex.cql.tokens import Kind, Token
from cqlindex.evaluate.context import Evaluator, evaluates
from cqlindex.evaluate.values import MATCH
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
#: Parsed and refused for now (their meaning is not pinned down against the reference).
_OTHER_WORDS = ("mainline", "variation", "cooked", "sound", "unsound", "composer", "search")
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
    "gbr": 'player black ~~ "[+-=]\\d{4}\\.\\d{2}[a-h][1-8][a-h][1-8]"',
}
_GBR_PARTS = ("kings", "material", "pawns", "pieces")


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
        if parser.peek().kind is Kind.STRING and kind_of(node) == STRING:
            # 'hhdb stipulation "mate"': whether the string is then a search in the key's text is
            # not pinned down against the reference; refused rather than read as two filters
            parser.defer_unsupported(f"a string after 'hhdb {key}'", parser.peek())
        return node
    if start.kind is Kind.STRING and start.text.strip('"') in _MARKS:
        parser.next()
        parser.defer_unsupported(f"'hhdb {start.text}'", start)
        return ast.HHdb(token.span.to(start.span), start.text.strip('"'), frozenset())
    if start.kind is not Kind.WORD:
        raise parser.error("'hhdb' is followed by what it reads: prize, hm, composer, TT ...", start)
    if start.text in _FLAG_OF or start.text in _OTHER_WORDS:
        parser.next()
        end = start
        if start.text in _OTHER_WORDS:
            parser.defer_unsupported(f"'hhdb {start.text}'", start)
        return ast.HHdb(token.span.to(end.span), _FLAG_OF.get(start.text, start.text), frozenset())
    if start.text == "gbr":
        parser.next()
        end = parser.next() if parser.at_word(*_GBR_PARTS) else start
        parser.defer_unsupported("'hhdb gbr'", start.span.to(end.span))
        return ast.HHdb(token.span.to(end.span), "gbr", frozenset())
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
        parser.defer_unsupported(f"'hhdb {' '.join(sorted(modifiers | {kind or ''}))}'", span)
    return ast.HHdb(token.span.to(end.span), kind or "award", frozenset(modifiers))


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
    raise ev.unsupported(f"'hhdb {node.item}'", node)


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
