"""Transforms by rewriting: members, the seeds' worked examples, dropping, dedupe, involutions.

The worked examples are those of seeds/000_56d7533d38fabce2.txt (transform filters, shifts) and
seeds/002_4f0573ab690dd7cb.txt (flip), plus the measured facts of the language report (a.7).
Members are compared with parsed expected filters after blanking ``Pieces.text`` (the rewrite keeps
the source text; the squares and pieces are what it changes).
"""

from __future__ import annotations

import dataclasses
import glob
import json

import pytest

from cqlindex.board.squares import SQUARE_NAMES, parse_square, squares_of
from cqlindex.board.transforms import map_bitboard, masks, shift
from cqlindex.cql import ast
from cqlindex.cql.parser import TRANSFORMS, parse
from cqlindex.cql.tokens import Span
from cqlindex.errors import CqlSyntaxError, CqlUnsupportedError
from cqlindex.query.rewrite import (COLOR_SWAP, IDENTITY, BasicTransform, apply, expand, members,
                                         shift_designator)
from tests.conftest import shared_path

SPAN = Span(1, 1, 0, 0)
ALL = (1 << 64) - 1


# -- helpers ---------------------------------------------------------------------------------------

def node_of(text: str) -> ast.Node:
    body = parse(text).body
    return body.items[0] if len(body.items) == 1 else body


def blank(node: object) -> object:
    """The tree with every Pieces.text emptied (structure, pieces and squares kept)."""
    if isinstance(node, ast.Pieces):
        return dataclasses.replace(node, text="")
    if isinstance(node, ast.Node):
        return dataclasses.replace(node, **{f.name: blank(getattr(node, f.name))
                                            for f in dataclasses.fields(node) if f.name != "span"})
    if isinstance(node, tuple):
        return tuple(blank(x) for x in node)
    return node


def expanded(text: str) -> list[ast.Node]:
    node = node_of(text)
    assert isinstance(node, ast.Transform), text
    return expand(node)


def pieces_in(node: object) -> list[ast.Pieces]:
    if isinstance(node, ast.Pieces):
        return [node]
    if isinstance(node, ast.Node):
        return [p for f in dataclasses.fields(node) if f.name != "span" for p in pieces_in(getattr(node, f.name))]
    if isinstance(node, tuple):
        return [p for x in node for p in pieces_in(x)]
    return []


def names(bitboard: int) -> set[str]:
    return {SQUARE_NAMES[sq] for sq in squares_of(bitboard)}


def mask(*squares: str) -> int:
    return sum(1 << parse_square(s) for s in squares)


_STEP = {"up": (0, 1), "down": (0, -1), "right": (1, 0), "left": (-1, 0), "northeast": (1, 1),
         "northwest": (-1, 1), "southeast": (1, -1), "southwest": (-1, -1)}


def direction_image(node: ast.Direction) -> set[str]:
    """Squares of a one-step direction over a constant designator (enough for the measured facts)."""
    assert node.low == node.high == 1 and isinstance(node.arg, ast.Pieces)
    df, dr = _STEP[node.name]
    out = set()
    for sq in squares_of(node.arg.squares):
        f, r = sq % 8 + df, sq // 8 + dr
        if 0 <= f < 8 and 0 <= r < 8:
            out.add(SQUARE_NAMES[r * 8 + f])
    return out


def by_name(transform: str, name: str) -> BasicTransform:
    return next(t for t in members(transform) if t.name == name)


# -- members ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, size, has_identity", [
    ("flipcolor", 2, True),
    ("reversecolor", 1, False),
    ("flip", 8, True),
    ("fliphorizontal", 2, True),
    ("flipvertical", 2, True),
    ("rotate90", 4, True),
    ("shift", 225, True),
    ("shifthorizontal", 15, True),
    ("shiftvertical", 15, True),
])
def test_members_sizes(name, size, has_identity):
    ms = members(name)
    assert len(ms) == size
    assert len({t.name for t in ms}) == size
    assert (ms[0] == IDENTITY) is has_identity
    assert sum(t == IDENTITY for t in ms) == (1 if has_identity else 0)


def test_members_cover_every_parsed_transform_and_refuse_others():
    for name in TRANSFORMS:
        assert members(name)
    with pytest.raises(ValueError):
        members("rotate30")


@pytest.mark.parametrize("name, expected", [
    ("flipcolor", ["id", "colorswap"]),
    ("reversecolor", ["colorswap"]),
    ("fliphorizontal", ["id", "reflecth"]),
    ("flipvertical", ["id", "reflectv"]),
    ("rotate90", ["id", "rotate90", "rotate180", "rotate270"]),
    ("flip", ["id", "rotate90", "rotate180", "rotate270", "reflecth", "reflectv", "reflecta1h8", "reflecth1a8"]),
])
def test_member_names(name, expected):
    assert [t.name for t in members(name)] == expected
    assert [t.color for t in members(name)] == [n == "colorswap" for n in expected]


def test_shift_member_names_and_maps():
    ms = members("shift")
    assert {t.name for t in ms} == {"id"} | {f"shift({df},{dr})" for df in range(-7, 8) for dr in range(-7, 8)
                                             if df or dr}
    assert {t.name for t in members("shifthorizontal")} == {"id"} | {f"shift({d},0)" for d in range(-7, 8) if d}
    assert {t.name for t in members("shiftvertical")} == {"id"} | {f"shift(0,{d})" for d in range(-7, 8) if d}
    t = by_name("shift", "shift(1,-2)")
    assert t.squares(parse_square("c4")) == parse_square("d2") and t.squares(parse_square("a1")) is None
    assert not t.color


# -- the seeds' worked examples: squares of a single designator -----------------------------------

@pytest.mark.parametrize("query, expected", [
    # seed 000, dihedral transforms (g6 -> g3 reflecth, b6 reflectv, c7 rotate90, b3, f2, f7, c2)
    ("fliphorizontal Pg6", [{"g6"}, {"g3"}]),
    ("flipvertical Pg6", [{"g6"}, {"b6"}]),
    ("flip Pg6", [{"g6"}, {"c7"}, {"b3"}, {"f2"}, {"g3"}, {"b6"}, {"f7"}, {"c2"}]),
    ("rotate90 Pg6", [{"g6"}, {"c7"}, {"b3"}, {"f2"}]),
    ("rotate90 Ra1", [{"a1"}, {"h1"}, {"h8"}, {"a8"}]),
    ("flipvertical Ba4", [{"a4"}, {"h4"}]),
    # seed 002: flip a1 is [a1,h1,a8,h8]; report a.7: `flip count a1` = 4
    ("flip a1", [{"a1"}, {"h1"}, {"h8"}, {"a8"}]),
    # report a.7: fliphorizontal swaps ranks, flipvertical files
    ("fliphorizontal a1", [{"a1"}, {"a8"}]),
    ("fliphorizontal c2", [{"c2"}, {"c7"}]),
    ("flipvertical a1", [{"a1"}, {"h1"}]),
    # seed 000: colour swap reflects about the horizontal bisector
    ("flipcolor a2", [{"a2"}, {"a7"}]),
    ("reversecolor Ba1", [{"a8"}]),
    # seed 000, shiftvertical g6 = g1 | g2 | ... | g8
    ("shiftvertical g6", [{f"g{r}"} for r in (6, 1, 2, 3, 4, 5, 7, 8)]),
])
def test_single_designator_members(query, expected):
    got = expanded(query)
    assert all(isinstance(m, ast.Pieces) for m in got)
    assert sorted(sorted(names(m.squares)) for m in got) == sorted(sorted(s) for s in expected)
    assert names(got[0].squares) == expected[0]  # identity (or reversecolor's only member) first


@pytest.mark.parametrize("query, union", [
    ("shiftvertical g6", {f"g{r}" for r in range(1, 9)}),
    ("shiftvertical [g2,g4]", {f"g{r}" for r in range(1, 9)}),
    ("shift Ka2", set(SQUARE_NAMES)),  # seed: shift Ka2 is K
    ("flip g6", {"g6", "g3", "b6", "c7", "b3", "f2", "f7", "c2"}),
    ("rotate90 fliphorizontal g6", {"g6", "g3", "b6", "c7", "b3", "f2", "f7", "c2"}),
])
def test_union_of_members(query, union):
    got = set()
    stack = expanded(query)
    while stack:
        member = stack.pop()
        if isinstance(member, ast.Transform):
            stack.extend(expand(member))
        else:
            got |= names(member.squares)
    assert got == union


def test_shift_count_a1_is_64():  # report a.7, measured
    assert len(expanded("shift a1")) == 64
    assert len(expanded("shifthorizontal a1")) == 8
    assert len(expanded("shiftvertical a1")) == 8


# -- the seeds' worked examples: whole filters -----------------------------------------------------

@pytest.mark.parametrize("query, expected", [
    ("flipcolor Pa2", ["Pa2", "pa7"]),
    ("flipcolor Ba1", ["Ba1", "ba8"]),
    ("reversecolor Ba1", ["ba8"]),
    ("flipcolor R", ["R", "r"]),
    ("flipcolor [Rnq]", ["[Rnq]", "[rNQ]"]),
    ("flipcolor {[Rnq]a3 wtm stalemate}", ["{[Rnq]a3 wtm stalemate}", "{[rNQ]a6 btm stalemate}"]),
    ("flipcolor {wtm result 1-0 [Pk]a-h2}", ["{wtm result 1-0 [Pk]a-h2}", "{btm result 0-1 [pK]a-h7}"]),
    ("flipcolor up P", ["up P", "down p"]),
    ("flip {Ka1 kh8}", ["{Ka1 kh8}", "{Kh1 ka8}", "{Ka8 kh1}", "{Kh8 ka1}"]),
    ("flipvertical {Rg6 attacks k}", ["{Rg6 attacks k}", "{Rb6 attacks k}"]),
    ("rotate90 {Rg6 attacks k}", ["{Rg6 attacks k}", "{Rc7 attacks k}", "{Rb3 attacks k}", "{Rf2 attacks k}"]),
    ("rotate90 ray up (R[g6,a1] k)",
     ["ray up (R[g6,a1] k)", "ray left (R[c7,h1] k)", "ray down (R[b3,h8] k)", "ray right (R[f2,a8] k)"]),
    ("rotate90 find Ra1", ["find Ra1", "find Rh1", "find Rh8", "find Ra8"]),
    ("shifthorizontal {Kb1 kg6}", ["{Kb1 kg6}", "{Ka1 kf6}", "{Kc1 kh6}"]),
    ("shiftvertical {Kb1 kg6}", ["{Kb1 kg6}", "{Kb2 kg7}", "{Kb3 kg8}"]),
    ("shift {Kb1 kg6}", ["{Kb1 kg6}", "{Ka1 kf6}", "{Kc1 kh6}", "{Kb2 kg7}", "{Ka2 kf7}", "{Kc2 kh7}",
                         "{Kb3 kg8}", "{Ka3 kf8}", "{Kc3 kh8}"]),
    # wraparound: a full file is not moved vertically ...
    ("shiftvertical {Kd1-8 Ba2}", [f"{{Kd1-8 Ba{r}}}" for r in (2, 1, 3, 4, 5, 6, 7, 8)]),
    # ... but a partial file moves and loses the squares pushed off the board
    ("shiftvertical {Kd2-8 Ba2}", ["{Kd2-8 Ba2}", "{Kd3-8 Ba3}", "{Kd4-8 Ba4}", "{Kd5-8 Ba5}", "{Kd6-8 Ba6}",
                                   "{Kd7-8 Ba7}", "{Kd8 Ba8}", "{Kd1-7 Ba1}"]),
    # a full rank is not moved horizontally
    ("shifthorizontal {Ka-h2 Ba4}", [f"{{Ka-h2 B{f}4}}" for f in "abcdefgh"]),
    ("shift K", ["K"]),
    ("flip K", ["K"]),
    ("shift .", ["."]),
    # report a.7, measured: directions turn with the board
    ("rotate90 up 1 a1", ["up 1 a1", "left 1 h1", "down 1 h8", "right 1 a8"]),
    ("flipvertical right 1 a1", ["right 1 a1", "left 1 h1"]),
    ("flipcolor up 1 a1", ["up 1 a1", "down 1 a8"]),
    # seed 002: flip ray up (R K) is ray orthogonal (R K)
    ("flip ray up (R K)", ["ray up (R K)", "ray left (R K)", "ray down (R K)", "ray right (R K)"]),
    ("flip ray maindiagonal (B k)", ["ray maindiagonal (B k)", "ray offdiagonal (B k)"]),
    ("flip ray vertical (R k)", ["ray vertical (R k)", "ray horizontal (R k)"]),
    ("shift up 1 Ka1", [f"up 1 K{f}{r}" for f in "abcdefgh" for r in range(1, 9)]),
])
def test_worked_examples(query, expected):
    got = [blank(m) for m in expanded(query)]
    want = [blank(node_of(e)) for e in expected]
    assert len(got) == len(want)
    assert set(got) == set(want)
    assert got[0] == want[0]


def test_shift_with_full_rank_moves_only_vertically():
    """Seed 000: shift {Ka-h2 Ba4} = {Ka-h2 Ba-h4} | {Ka-h3 Ba-h5} | ... | {Ka-h6 Ba-h8} | {Ka-h1 Ba-h3}."""
    groups: dict[frozenset[str], set[str]] = {}
    for member in expanded("shift {Ka-h2 Ba4}"):
        king, bishop = member.items
        groups.setdefault(frozenset(names(king.squares)), set()).update(names(bishop.squares))
    want = {frozenset(f"{f}{r}" for f in "abcdefgh"): {f"{f}{r + 2}" for f in "abcdefgh"} for r in range(1, 7)}
    assert groups == want


@pytest.mark.parametrize("query, size", [
    # orbit sizes under the seed rules (full files stay, partial fall-off is kept, empties drop)
    ("shiftvertical {_b1-8 [d1,d8]}", 9),
    ("shifthorizontal {_b1-8 [d1,d8]}", 6),
    ("shift {_b1-8 [d1,d8]}", 54),
    ("shiftvertical {_b1-8 [d1,d8] ray (c4 f7)}", 5),
    ("shifthorizontal {_b1-8 [d1,d8] ray (c4 f7)}", 4),
    ("shift {_b1-8 [d1,d8] ray (c4 f7)}", 20),
    ("shift {Ka1 kc1}", 48),
    ("flip {Kc3 ka1}", 4),
    ("flipcolor shifthorizontal Pb2-7", 2),
    ("shifthorizontal Pb2-7", 8),
])
def test_member_counts(query, size):
    assert len(expanded(query)) == size


# -- dropping --------------------------------------------------------------------------------------

def test_shift_drops_members_with_an_emptied_designator():
    off = by_name("shiftvertical", "shift(0,-1)")
    assert apply(node_of("{Kb1 kg6}"), off) is None
    assert apply(node_of("Kb1"), off) is None
    assert apply(node_of("not Kb1"), off) is None  # anywhere in the filter
    assert apply(node_of("{Kb2 not kg6}"), by_name("shiftvertical", "shift(0,3)")) is None
    assert len(expanded("shiftvertical {Kb1 not kg6}")) == 3  # dr = 0, 1, 2
    # partial fall-off is not a drop: d2-8 up one is d3-8
    assert names(apply(node_of("Kd2-8"), by_name("shiftvertical", "shift(0,1)")).squares) == \
        {f"d{r}" for r in range(3, 9)}


def test_empty_designator_drops_every_moved_member():
    """Decided from the seed's wording ("piece designators with empty square sets eliminate the entire
    transform"): an empty designator such as [] leaves only the identity member of a shift."""
    assert [blank(m) for m in expanded("shifthorizontal {Ka1 []}")] == [blank(node_of("{Ka1 []}"))]
    assert len(expanded("flip {Ka1 []}")) == 4  # dihedral maps never drop


def test_all_squares_designator_never_moves_or_drops():
    for t in members("shift") + members("flip"):
        assert apply(node_of("K"), t) == node_of("K")
        assert apply(node_of("."), t) == node_of(".")


def test_full_lines_stay_inside_a_mixed_designator():
    """Decided from the seed ("shiftvertical does not alter a file of 8 squares"): the rule works line by
    line, so the other squares of the same designator still move."""
    up = by_name("shiftvertical", "shift(0,1)")
    moved = apply(node_of("[d1-8,a2]"), up)
    assert names(moved.squares) == {f"d{r}" for r in range(1, 9)} | {"a3"}
    right = by_name("shifthorizontal", "shift(1,0)")
    assert names(apply(node_of("[a-h2,a4]"), right).squares) == {f"{f}2" for f in "abcdefgh"} | {"b4"}


def test_shift_designator_is_the_plain_translation_without_full_lines():
    designs = [mask("a1"), mask("d4", "e5", "h8"), mask("b2", "b3", "b4", "b5", "b6", "b7", "b8")]
    for bits in designs:
        for df in range(-7, 8):
            for dr in range(-7, 8):
                assert shift_designator(bits, df, dr) == map_bitboard(bits, shift(df, dr))
    assert shift_designator(ALL, 3, -2) == ALL
    assert shift_designator(mask(*(f"c{r}" for r in range(1, 9))), 2, 5) == mask(*(f"e{r}" for r in range(1, 9)))


# -- dedupe ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("query, size", [
    ("flip .", 1),
    ("flipcolor .", 1),
    ("flip K", 1),
    ("shift K", 1),
    ("flip [a1,h1,a8,h8]", 1),
    ("flip [d4,e4,d5,e5]", 1),
    ("rotate90 [a1,h8]", 2),
    ("flip a1", 4),
    ("flip {Ka1 kh8}", 4),
    ("fliphorizontal a-h1-8", 1),
    ("flipcolor wtm", 2),
    ("flip wtm", 1),
    ("flip ray diagonal (B k)", 1),
    ("flip anydirection 1 K", 1),
    ("shiftvertical [d1,d8]", 9),
])
def test_duplicates_removed(query, size):
    got = expanded(query)
    assert len(got) == size
    assert len(set(got)) == size


def test_identity_member_is_the_argument_itself():
    for query in ("flip Pg6", "flipcolor {wtm Ka1}", "shift {Kb1 kg6}", "rotate90 up P"):
        node = node_of(query)
        assert expand(node)[0] is node.arg
    node = node_of("reversecolor Ka1")
    assert expand(node)[0] != node.arg


# -- directions, light/dark, colours ---------------------------------------------------------------

@pytest.mark.parametrize("query, union", [
    ("rotate90 up 1 a1", {"g1", "a2", "h7", "b8"}),  # report a.7, measured
    ("flipvertical right 1 a1", {"b1", "g1"}),
    ("flipcolor up 1 a1", {"a2", "a7"}),
])
def test_measured_direction_facts(query, union):
    got = set()
    for member in expanded(query):
        got |= direction_image(member)
    assert got == union


@pytest.mark.parametrize("transform, images", [
    ("rotate90", {"up": "left", "right": "up", "northeast": "northwest", "vertical": "horizontal",
                  "maindiagonal": "offdiagonal"}),
    ("rotate180", {"up": "down", "left": "right", "northeast": "southwest", "vertical": "vertical",
                   "maindiagonal": "maindiagonal"}),
    ("rotate270", {"up": "right", "right": "down", "northeast": "southeast", "horizontal": "vertical",
                   "offdiagonal": "maindiagonal"}),
    ("reflecth", {"up": "down", "left": "left", "northeast": "southeast", "vertical": "vertical",
                  "maindiagonal": "offdiagonal"}),
    ("reflectv", {"up": "up", "left": "right", "northeast": "northwest", "horizontal": "horizontal",
                  "maindiagonal": "offdiagonal"}),
    ("reflecta1h8", {"up": "right", "left": "down", "northeast": "northeast", "vertical": "horizontal",
                     "maindiagonal": "maindiagonal", "offdiagonal": "offdiagonal"}),
    ("reflecth1a8", {"up": "left", "right": "down", "northwest": "northwest", "vertical": "horizontal",
                     "maindiagonal": "maindiagonal"}),
])
def test_direction_images(transform, images):
    t = by_name("flip", transform)
    for name, image in images.items():
        assert apply(node_of(f"{name} K"), t).name == image
    for name in ("orthogonal", "diagonal", "anydirection"):
        assert apply(node_of(f"{name} K"), t).name == name


def test_directions_agree_with_the_square_maps():
    """For every dihedral map and colour swap: map(s + v) == map(s) + image(v) wherever both are on the board."""
    for t in members("flip") + [COLOR_SWAP]:
        for name, (df, dr) in _STEP.items():
            image = apply(node_of(f"{name} K"), t).name
            idf, idr = _STEP[image]
            for sq in range(64):
                f, r = sq % 8 + df, sq // 8 + dr
                if 0 <= f < 8 and 0 <= r < 8:
                    start, end = t.squares(sq), t.squares(r * 8 + f)
                    assert (end % 8 - start % 8, end // 8 - start // 8) == (idf, idr), (t.name, name, sq)


def test_shifts_leave_directions_alone():
    for t in members("shift")[1:20]:
        for query in ("up 1 K", "ray diagonal (B k)", "maindiagonal K"):
            member = apply(node_of(query), t)
            assert blank(member) == blank(node_of(query))


def test_light_dark_follow_the_square_colours():
    light, dark = masks()["light"], masks()["dark"]
    for t in members("flip") + [COLOR_SWAP]:
        op = apply(node_of("light K"), t).op
        assert map_bitboard(light, t.squares) == (light if op == "light" else dark), t.name
        assert apply(node_of("dark K"), t).op == ("dark" if op == "light" else "light")
    assert [apply(node_of("light K"), by_name("flip", n)).op for n in ("rotate90", "rotate180", "reflecth",
                                                                        "reflecta1h8")] == \
        ["dark", "light", "dark", "light"]


def test_light_dark_under_shifts():
    """Decided here: a shift by an odd df + dr swaps light and dark, an even one keeps them."""
    assert apply(node_of("light Ka1"), by_name("shift", "shift(1,0)")).op == "dark"
    assert apply(node_of("light Ka1"), by_name("shift", "shift(0,3)")).op == "dark"
    assert apply(node_of("light Ka1"), by_name("shift", "shift(1,1)")).op == "light"
    assert apply(node_of("dark Kd4"), by_name("shift", "shift(2,-1)")).op == "light"


@pytest.mark.parametrize("query, swapped", [
    ("wtm", "btm"),
    ("btm", "wtm"),
    ("player white \"Carlsen\"", "player black \"Carlsen\""),
    ("player black \"Carlsen\"", "player white \"Carlsen\""),
    ("player \"Carlsen\"", "player \"Carlsen\""),
    ("elo white > 2000", "elo black > 2000"),
    ("result 1-0", "result 0-1"),
    ("result 0-1", "result 1-0"),
    ("result 1/2-1/2", "result 1/2-1/2"),
    ("sidetomove == white", "-sidetomove == white"),
    ("-sidetomove == black", "sidetomove == black"),
    ("colortype a1 > 0", "-colortype a8 > 0"),
    ("move from Ka1 to a2 promote Q", "move from ka8 to a7 promote q"),
    ("move o-o", "move o-o"),
    ("pin from Ra1 through b2 to kc3", "pin from ra8 through b7 to Kc6"),
    ("light Pa2", "dark pa7"),
    ("check", "check"),
    ("flip Ka1", "flip ka8"),  # a nested transform keeps itself, its argument is rewritten
    ("square x in Ka1 x attacks k", "square x in ka8 x attacks K"),
    ("line --> Ka1 --> Kb2+", "line --> ka8 --> kb7+"),
    ("find Ka1", "find ka8"),
    ("x = Ka1", "x = ka8"),
    ("if Ka1 then Kb2 else Kc3", "if ka8 then kb7 else kc6"),
    ("between(a1 h8) & K", "between(a8 h1) & k"),
])
def test_colour_swap(query, swapped):
    assert blank(apply(node_of(query), COLOR_SWAP)) == blank(node_of(swapped))


def test_sidetomove_negation_means_the_other_side():
    """flipcolor {sidetomove == white} must mean "white to move" or "black to move": the observable is negated
    and the constant kept (swapping both would give white to move twice)."""
    members_ = expanded("flipcolor sidetomove == white")
    assert blank(members_[1]) == blank(node_of("-sidetomove == white"))
    assert blank(members_[1]) != blank(node_of("-sidetomove == black"))


def test_spans_and_text_are_kept():
    node = node_of("{Ka1 up Pb2}")
    out = apply(node, by_name("flip", "rotate90"))
    assert [p.span for p in pieces_in(out)] == [p.span for p in pieces_in(node)]
    assert [p.text for p in pieces_in(out)] == ["Ka1", "Pb2"]
    assert out.span == node.span and out.items[1].span == node.items[1].span
    assert names(out.items[0].squares) == {"h1"}


def test_unchanged_subtrees_are_shared():
    node = node_of("{Ka1 check K}")
    out = apply(node, by_name("flip", "reflectv"))
    assert out.items[1] is node.items[1] and out.items[2] is node.items[2]
    assert apply(node, IDENTITY) is node


# -- involutions -----------------------------------------------------------------------------------

INVOLUTION_QUERIES = [
    "Ka1", "{Pg6 kh8 up 2 Ra3}", "flipcolor {[Rnq]a3 wtm stalemate}", "ray maindiagonal (B[c1,f4] q k)",
    "light Ka1 == dark [a-h1-2]", "sidetomove == white", "-sidetomove == black", "colortype e4 > 0",
    "-colortype e4 < 0", "{result 1-0 player white \"x\" elo black > 2000}", "move from Ka1 to a2 promote Q",
    "pin from Ra1 through b2 to kc3", "square x in [a1,c3] {x attacks k northeast 1 x}", "find all check",
    "line --> check --> Ka1* --> mate", "if wtm then Kd4 else kd5", "x = A attacks k", "piece y in N y",
    "Ka1 | Kb2 & ~Kc3", "#[Aa]a-d1-4 > 3", "position 0 : Ka1", "child(0) : btm", "between(a1 h8) & q",
    "not {Kd4 and k or Q}", "flip {Kb1 orthogonal 3 q}", "shift {Kd1-8 Ba2}", "xray (R r k)",
]
INVOLUTIONS = [("flip", "reflecth"), ("flip", "reflectv"), ("flip", "reflecta1h8"), ("flip", "reflecth1a8"),
               ("flip", "rotate180"), ("flipcolor", "colorswap")]


@pytest.mark.parametrize("query", INVOLUTION_QUERIES)
def test_involutions_give_back_the_original(query):
    body = parse(query).body
    for family, name in INVOLUTIONS:
        t = by_name(family, name)
        once = apply(body, t)
        assert apply(once, t) == body, (query, name)
        assert [p.text for p in pieces_in(apply(once, t))] == [p.text for p in pieces_in(body)]
    r90, r270 = by_name("flip", "rotate90"), by_name("flip", "rotate270")
    assert apply(apply(body, r90), r270) == body
    assert apply(apply(apply(apply(body, r90), r90), r90), r90) == body


def test_shift_and_its_inverse_give_back_a_small_filter():
    body = parse("{Kd4 up 1 nc5 light Be3}").body
    assert apply(apply(body, by_name("shift", "shift(2,1)")), by_name("shift", "shift(-2,-1)")) == body


# -- every node type -------------------------------------------------------------------------------

def _ka1() -> ast.Pieces:
    return ast.Pieces(SPAN, frozenset("K"), 1, "Ka1")


def _node_table() -> list[ast.Node]:
    k = _ka1
    return [
        ast.Compound(SPAN, (k(),)), ast.And(SPAN, (k(), k())), ast.Or(SPAN, (k(),)), ast.Not(SPAN, k()),
        ast.Compare(SPAN, ("==",), (k(), k())), ast.Binary(SPAN, "|", k(), k()), ast.Unary(SPAN, "#", k()),
        ast.Direction(SPAN, "up", 1, 7, k()), ast.Transform(SPAN, "flip", False, k()),
        ast.Call(SPAN, "between", (k(), k())), ast.Colon(SPAN, ast.Keyword(SPAN, "parent"), k()),
        ast.ChildN(SPAN, "child", k()), ast.If(SPAN, k(), k(), k()), ast.Assign(SPAN, "x", "=", k()),
        ast.Iterate(SPAN, "square", False, "x", k(), k()), ast.Move(SPAN, "played", (("from", k()), ("o-o", None))),
        ast.Pin(SPAN, (("from", k()),)), ast.Ray(SPAN, "ray", ("up",), (k(), k())),
        ast.Dash(SPAN, k(), k(), True),
        ast.CountMoves(SPAN, ast.Dash(SPAN, k(), k(), False, mode="legal")),
        ast.Find(SPAN, False, False, False, None, None, k()), ast.Repeat(SPAN, k(), 0, None),
        ast.Sequence(SPAN, (k(), k())), ast.Line(SPAN, False, frozenset(), None, None, (k(),)),
        ast.Path(SPAN, frozenset(), (ast.Dash(SPAN, k(), None, False), k())),
        ast.Sort(SPAN, "doc", False, k()), ast.Echo(SPAN, "s", "t", False, False, k()),
        ast.ConsecutiveMoves(SPAN, False, 1, 5, ast.Variable(SPAN, "s"), ast.Variable(SPAN, "t")),
        ast.Capture(SPAN, 1, False), ast.Control(SPAN, "loop", (k(),)), ast.Dictionary(SPAN, "d", False),
        ast.HHdb(SPAN, "prize", frozenset()), ast.Index(SPAN, ast.String(SPAN, "abc"), ast.Number(SPAN, 1), None, False),
        ast.Lasting(SPAN, False, ast.Assign(SPAN, "x", "=", k())),
        ast.Relation(SPAN, (k(),), (ast.RelationParam(SPAN, None, "match", k(), k(), (0, 64), (0, 0)),)),
        ast.RelationParam(SPAN, "echoflip", None, k(), None, (0, 64), (0, 0)),
        ast.Subscript(SPAN, "d", k(), "number"), ast.SubscriptAssign(SPAN, "d", k(), k()),
        ast.GameFilter(SPAN, "elo", (ast.Keyword(SPAN, "white"),)),
        ast.Output(SPAN, "comment", False, (ast.String(SPAN, "x"), k())),
    ]


def test_every_node_type_is_rewritten():
    table = _node_table()
    leaves = {ast.Pieces, ast.Number, ast.String, ast.Keyword, ast.Variable, ast.CurrentTransform, ast.SimilarPosition}
    node_types = {c for c in vars(ast).values()
                  if isinstance(c, type) and issubclass(c, ast.Node) and c is not ast.Node}
    assert node_types - leaves == {type(n) for n in table}
    assert apply(ast.CurrentTransform(SPAN), COLOR_SWAP).applied == ("colorswap",)  # a leaf that records it
    for node in table:
        out = apply(node, COLOR_SWAP)
        assert type(out) is type(node)
        found = pieces_in(out)
        assert len(found) == len(pieces_in(node)), type(node)
        assert all(p.pieces == frozenset("k") and names(p.squares) == {"a8"} for p in found), type(node)
    assert apply(table[-2], COLOR_SWAP).args[0].name == "black"  # elo white -> elo black


# -- never raises on real queries ------------------------------------------------------------------

def _parsed_bodies() -> list[ast.Compound]:
    path = shared_path("acceptance/visible.jsonl")
    texts = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                texts.append(json.loads(line)["query"])
    for name in sorted(glob.glob(str(shared_path("data/cql-examples/ascii")) + "/*.cql")):
        with open(name, encoding="utf-8") as handle:
            texts.append(handle.read())
    bodies, seen = [], set()
    for text in texts:
        if text in seen:
            continue
        seen.add(text)
        try:
            bodies.append(parse(text).body)
        except (CqlSyntaxError, CqlUnsupportedError):
            continue
    return bodies


def _transforms_in(node: object) -> list[ast.Transform]:
    out = []
    if isinstance(node, ast.Transform):
        out.append(node)
    if isinstance(node, ast.Node):
        for f in dataclasses.fields(node):
            if f.name != "span":
                out += _transforms_in(getattr(node, f.name))
    elif isinstance(node, tuple):
        for x in node:
            out += _transforms_in(x)
    return out


def test_apply_never_raises_on_acceptance_queries():
    bodies = _parsed_bodies()
    assert len(bodies) > 50
    every = [t for name in ("flipcolor", "flip", "shift") for t in members(name)]
    for body in bodies:
        for t in every:
            out = apply(body, t)
            assert out is None or isinstance(out, ast.Compound)
        for node in _transforms_in(body):
            got = expand(node)
            assert got and all(isinstance(m, ast.Node) for m in got)
        assert apply(apply(body, COLOR_SWAP), COLOR_SWAP) == body
