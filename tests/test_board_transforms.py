"""Tests for cqlindex.board.transforms: the square maps behind CQL's transforms, and the masks.

These maps are written into the ``square_transforms`` / ``square_masks`` tables, so a wrong image
here silently changes the answer of every transformed query in SQL and in the evaluator alike.
python-chess's own flip functions serve as an independent oracle for the reflections.
"""

from __future__ import annotations

import itertools

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cqlindex.board.squares import SQUARE_NAMES, parse_square
from cqlindex.board.transforms import (
    COLORSWAP,
    DIHEDRAL,
    all_transforms,
    map_bitboard,
    masks,
    shift,
    shift_name,
)

squares = st.integers(min_value=0, max_value=63)
bitboards = st.integers(min_value=0, max_value=(1 << 64) - 1)
offsets = st.integers(min_value=-8, max_value=8)
FAST = settings(max_examples=200, deadline=None)

INVOLUTIONS = ["reflecth", "reflectv", "reflecta1h8", "reflecth1a8", "rotate180"]


def _table(fn) -> tuple:
    """The map as a 64-tuple of images: compositions and equality become tuple operations."""
    return tuple(fn(sq) for sq in range(64))


# --------------------------------------------------------------------------------------------
# Dihedral group
# --------------------------------------------------------------------------------------------
def test_dihedral_has_the_eight_seed_names() -> None:
    """The build keys the transform table by these names; the parser looks them up verbatim."""
    assert set(DIHEDRAL) == {
        "id", "rotate90", "rotate180", "rotate270", "reflecth", "reflectv", "reflecta1h8", "reflecth1a8",
    }


@pytest.mark.parametrize("name", INVOLUTIONS)
@FAST
@given(sq=squares)
def test_reflections_and_rotate180_are_involutions(name: str, sq: int) -> None:
    """Applying a reflection (or a half turn) twice gives the square back."""
    fn = DIHEDRAL[name]
    assert fn(fn(sq)) == sq


@pytest.mark.parametrize("name", INVOLUTIONS)
def test_involutions_are_not_identity(name: str) -> None:
    """An involution that is the identity would also pass the property above."""
    fn = DIHEDRAL[name]
    assert any(fn(sq) != sq for sq in range(64))


@FAST
@given(sq=squares)
def test_rotate90_has_order_four(sq: int) -> None:
    """Four quarter turns are the identity; two are the half turn; rotate270 undoes rotate90."""
    r90, r180, r270 = DIHEDRAL["rotate90"], DIHEDRAL["rotate180"], DIHEDRAL["rotate270"]
    assert r90(r90(r90(r90(sq)))) == sq
    assert r90(r90(sq)) == r180(sq)
    assert r90(r270(sq)) == sq
    assert r270(r90(sq)) == sq
    assert r90(r90(r90(sq))) == r270(sq)


def test_rotate90_is_not_an_involution() -> None:
    """A quarter turn that squares to the identity would be a reflection in disguise."""
    r90 = DIHEDRAL["rotate90"]
    assert any(r90(r90(sq)) != sq for sq in range(64))


@pytest.mark.parametrize("name", sorted(DIHEDRAL))
def test_dihedral_maps_are_bijections(name: str) -> None:
    """Every map permutes the 64 squares (no square lost, none hit twice)."""
    assert sorted(_table(DIHEDRAL[name])) == list(range(64))


def test_dihedral_maps_are_distinct() -> None:
    """Eight names, eight different permutations (a copy-paste slip would merge two)."""
    assert len({_table(fn) for fn in DIHEDRAL.values()}) == 8


def test_dihedral_closed_under_composition() -> None:
    """The eight maps form a group: any composition is again one of the eight."""
    tables = {_table(fn): name for name, fn in DIHEDRAL.items()}
    for (n1, f1), (n2, f2) in itertools.product(DIHEDRAL.items(), repeat=2):
        composed = tuple(f1(f2(sq)) for sq in range(64))
        assert composed in tables, f"{n1} ∘ {n2} is not a board symmetry"


@pytest.mark.parametrize(
    ("outer", "inner", "expected"),
    [
        ("reflecth", "reflectv", "rotate180"),
        ("reflectv", "reflecth", "rotate180"),
        ("reflecta1h8", "reflecth1a8", "rotate180"),
        ("rotate90", "rotate90", "rotate180"),
        ("reflectv", "reflecta1h8", "rotate90"),   # counterclockwise: a1 → h1
        ("reflecth", "reflecta1h8", "rotate270"),
        ("rotate180", "rotate180", "id"),
    ],
)
def test_dihedral_composition_table(outer: str, inner: str, expected: str) -> None:
    """A few entries of the group table pin down the direction of the rotations."""
    f, g = DIHEDRAL[outer], DIHEDRAL[inner]
    assert tuple(f(g(sq)) for sq in range(64)) == _table(DIHEDRAL[expected])


def test_identity_is_identity() -> None:
    assert _table(DIHEDRAL["id"]) == tuple(range(64))


@pytest.mark.parametrize(
    ("name", "image"),
    [
        ("id", "g6"),
        ("reflecth", "g3"),
        ("reflectv", "b6"),
        ("rotate90", "c7"),
        ("rotate180", "b3"),
        ("rotate270", "f2"),
        ("reflecta1h8", "f7"),
        ("reflecth1a8", "c2"),
    ],
)
def test_seed_worked_example_g6(name: str, image: str) -> None:
    """The seeds' worked example: where g6 lands under each of the eight maps."""
    assert SQUARE_NAMES[DIHEDRAL[name](parse_square("g6"))] == image
    assert DIHEDRAL[name](parse_square("g6")) == parse_square(image)


@pytest.mark.parametrize(
    ("name", "corner_images"),
    [
        # images of a1, h1, h8, a8
        ("rotate90", ("h1", "h8", "a8", "a1")),
        ("rotate270", ("a8", "a1", "h1", "h8")),
        ("reflecth", ("a8", "h8", "h1", "a1")),
        ("reflectv", ("h1", "a1", "a8", "h8")),
        ("reflecta1h8", ("a1", "a8", "h8", "h1")),
        ("reflecth1a8", ("h8", "h1", "a1", "a8")),
    ],
)
def test_corners(name: str, corner_images: tuple[str, ...]) -> None:
    """Corners make the orientation conventions (counterclockwise, which mirror is which) explicit."""
    corners = [parse_square(n) for n in ("a1", "h1", "h8", "a8")]
    assert tuple(SQUARE_NAMES[DIHEDRAL[name](sq)] for sq in corners) == corner_images


@pytest.mark.parametrize(
    ("name", "oracle"),
    [
        ("id", lambda bb: bb),
        ("reflecth", chess.flip_vertical),          # python-chess: "vertical" flip swaps ranks
        ("reflectv", chess.flip_horizontal),        # python-chess: "horizontal" flip swaps files
        ("reflecta1h8", chess.flip_diagonal),
        ("reflecth1a8", chess.flip_anti_diagonal),
        ("rotate180", lambda bb: chess.flip_vertical(chess.flip_horizontal(bb))),
        ("rotate90", lambda bb: chess.flip_horizontal(chess.flip_diagonal(bb))),
        ("rotate270", lambda bb: chess.flip_vertical(chess.flip_diagonal(bb))),
    ],
)
@FAST
@given(bb=bitboards)
def test_map_bitboard_matches_python_chess_flips(name: str, oracle, bb: int) -> None:
    """An independent implementation (python-chess bit tricks) agrees on every bitboard."""
    assert map_bitboard(bb, DIHEDRAL[name]) == oracle(bb)


def test_colorswap_moves_squares_like_reflecth() -> None:
    """The colour swap mirrors ranks (a1↔a8); the colour change itself happens elsewhere."""
    assert _table(COLORSWAP) == _table(DIHEDRAL["reflecth"])
    assert COLORSWAP(parse_square("e1")) == parse_square("e8")


# --------------------------------------------------------------------------------------------
# Shifts
# --------------------------------------------------------------------------------------------
@FAST
@given(sq=squares, dfile=offsets, drank=offsets)
def test_shift_moves_by_exactly_the_offset_or_falls_off(sq: int, dfile: int, drank: int) -> None:
    """On-board images are exactly (dfile, drank) away; off-board ones are None (never wrapped)."""
    image = shift(dfile, drank)(sq)
    file, rank = chess.square_file(sq) + dfile, chess.square_rank(sq) + drank
    if 0 <= file < 8 and 0 <= rank < 8:
        assert image is not None
        assert chess.square_file(image) - chess.square_file(sq) == dfile
        assert chess.square_rank(image) - chess.square_rank(sq) == drank
    else:
        assert image is None


@FAST
@given(sq=squares, dfile=offsets, drank=offsets)
def test_shift_then_inverse_shift_is_identity(sq: int, dfile: int, drank: int) -> None:
    """shift(a, b) then shift(-a, -b) returns the square wherever the first step stays on board."""
    image = shift(dfile, drank)(sq)
    if image is not None:
        assert shift(-dfile, -drank)(image) == sq


@pytest.mark.parametrize(
    ("start", "dfile", "drank", "image"),
    [
        ("a1", 1, 0, "b1"),
        ("h1", 1, 0, None),       # must not wrap to a2
        ("a2", -1, 0, None),      # must not wrap to h1
        ("h8", 0, 1, None),
        ("a1", 7, 7, "h8"),
        ("h8", -7, -7, "a1"),
        ("e4", -1, 2, "d6"),
        ("e4", 0, 0, "e4"),
        ("b7", 2, -6, "d1"),
        ("b7", 2, -7, None),
    ],
)
def test_shift_examples(start: str, dfile: int, drank: int, image: str | None) -> None:
    """Concrete shifts, especially the file-wrap cases a flat +/-1 on the index would get wrong."""
    got = shift(dfile, drank)(parse_square(start))
    assert got == (None if image is None else parse_square(image))


def test_shift_name_format() -> None:
    """The stable table key for shifts; other code parses CQL's shift names against it."""
    assert shift_name(-1, 2) == "shift(-1,2)"
    assert shift_name(0, -7) == "shift(0,-7)"


@FAST
@given(bb=bitboards, dfile=st.integers(-7, 7), drank=st.integers(-7, 7))
def test_map_bitboard_shift_drops_off_board_squares(bb: int, dfile: int, drank: int) -> None:
    """Under a shift the image is exactly the on-board images; nothing spills past bit 63."""
    fn = shift(dfile, drank)
    expected = 0
    for sq in chess.SquareSet(bb):
        image = fn(sq)
        if image is not None:
            expected |= 1 << image
    result = map_bitboard(bb, fn)
    assert result == expected
    assert 0 <= result < 1 << 64


# --------------------------------------------------------------------------------------------
# map_bitboard with dihedral maps
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(DIHEDRAL))
@FAST
@given(bb=bitboards)
def test_map_bitboard_dihedral_is_union_of_images(name: str, bb: int) -> None:
    """A symmetry preserves the number of squares and maps the set square by square."""
    fn = DIHEDRAL[name]
    result = map_bitboard(bb, fn)
    assert result.bit_count() == bb.bit_count()
    expected = 0
    for sq in range(64):
        if bb >> sq & 1:
            expected |= 1 << fn(sq)
    assert result == expected


@pytest.mark.parametrize("bb", [0, 1, 1 << 63, (1 << 64) - 1, chess.BB_LIGHT_SQUARES, chess.BB_RANK_1])
def test_map_bitboard_edge_bitboards(bb: int) -> None:
    """Empty, corner bits and the full board (bit 63 is the sign bit at the storage boundary)."""
    assert map_bitboard(bb, DIHEDRAL["id"]) == bb
    assert map_bitboard(bb, DIHEDRAL["rotate180"]).bit_count() == bb.bit_count()


def test_map_bitboard_full_board_is_fixed_by_every_symmetry() -> None:
    full = (1 << 64) - 1
    for fn in DIHEDRAL.values():
        assert map_bitboard(full, fn) == full


# --------------------------------------------------------------------------------------------
# all_transforms
# --------------------------------------------------------------------------------------------
def test_all_transforms_counts_and_unique_names() -> None:
    """8 dihedral + 1 colour + 224 shifts (15×15 offsets minus the null shift), names unique."""
    rows = list(all_transforms())
    kinds = [kind for _, kind, _ in rows]
    assert kinds.count("dihedral") == 8
    assert kinds.count("color") == 1
    assert kinds.count("shift") == 224
    assert len(rows) == 233
    names = [name for name, _, _ in rows]
    assert len(set(names)) == len(names)
    assert "shift(0,0)" not in names
    assert {"shift(-7,-7)", "shift(7,7)", "shift(0,1)", "colorswap", "id"} <= set(names)


def test_all_transforms_shift_names_match_their_maps() -> None:
    """The row named shift(df,dr) really translates by (df, dr): the table is joined by name."""
    for name, kind, fn in all_transforms():
        if kind != "shift":
            continue
        df, dr = (int(x) for x in name[len("shift("):-1].split(","))
        assert name == shift_name(df, dr)
        assert _table(fn) == _table(shift(df, dr)), name


def test_all_transforms_dihedral_rows_are_the_dihedral_maps() -> None:
    rows = {name: (kind, fn) for name, kind, fn in all_transforms()}
    for name, fn in DIHEDRAL.items():
        kind, row_fn = rows[name]
        assert kind == "dihedral"
        assert _table(row_fn) == _table(fn)
    assert _table(rows["colorswap"][1]) == _table(DIHEDRAL["reflecth"])


# --------------------------------------------------------------------------------------------
# masks
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def named_masks() -> dict[str, int]:
    return masks()


@pytest.mark.parametrize("name", [f"file_{f}" for f in "abcdefgh"] + [f"rank_{r}" for r in range(1, 9)])
def test_files_and_ranks_have_eight_squares(named_masks: dict[str, int], name: str) -> None:
    assert named_masks[name].bit_count() == 8


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("file_a", chess.BB_FILE_A),
        ("file_h", chess.BB_FILE_H),
        ("rank_1", chess.BB_RANK_1),
        ("rank_8", chess.BB_RANK_8),
        ("dark", chess.BB_DARK_SQUARES),
        ("light", chess.BB_LIGHT_SQUARES),
        ("center", chess.BB_CENTER),
        ("all", chess.BB_ALL),
    ],
)
def test_masks_match_python_chess_constants(named_masks: dict[str, int], name: str, expected: int) -> None:
    """python-chess's constants are an independent reference for the common masks."""
    assert named_masks[name] == expected


def test_files_and_ranks_partition_the_board(named_masks: dict[str, int]) -> None:
    files = [named_masks[f"file_{f}"] for f in "abcdefgh"]
    ranks = [named_masks[f"rank_{r}"] for r in range(1, 9)]
    for group in (files, ranks):
        assert sum(group) == (1 << 64) - 1   # sum equals OR only if pairwise disjoint
    assert all((f & r).bit_count() == 1 for f in files for r in ranks)


def test_light_and_dark(named_masks: dict[str, int]) -> None:
    """light ∪ dark = all, disjoint, 32 each; a1 is dark and h1 is light."""
    light, dark = named_masks["light"], named_masks["dark"]
    assert light | dark == named_masks["all"] == (1 << 64) - 1
    assert light & dark == 0
    assert light.bit_count() == dark.bit_count() == 32
    assert dark >> parse_square("a1") & 1
    assert light >> parse_square("h1") & 1
    assert dark >> parse_square("h8") & 1


def test_long_diagonals(named_masks: dict[str, int]) -> None:
    """The two long diagonals have 8 squares and are named by their end squares."""
    assert named_masks["diagonal_a1h8"].bit_count() == 8
    assert named_masks["diagonal_a1h8"] == chess.BB_SQUARES[0] | chess.BB_SQUARES[9] | chess.BB_SQUARES[18] \
        | chess.BB_SQUARES[27] | chess.BB_SQUARES[36] | chess.BB_SQUARES[45] | chess.BB_SQUARES[54] \
        | chess.BB_SQUARES[63]
    assert named_masks["antidiagonal_h1a8"].bit_count() == 8
    assert named_masks["antidiagonal_h1a8"] >> parse_square("d5") & 1


def test_all_diagonals_present_with_at_least_two_squares(named_masks: dict[str, int]) -> None:
    """13 diagonals and 13 anti-diagonals of length ≥ 2; each named after its end squares."""
    diagonals = {k: v for k, v in named_masks.items() if k.startswith("diagonal_")}
    antis = {k: v for k, v in named_masks.items() if k.startswith("antidiagonal_")}
    assert len(diagonals) == 13 and len(antis) == 13
    for name, bb in {**diagonals, **antis}.items():
        assert bb.bit_count() >= 2, name
        ends = name.split("_", 1)[1]
        first, last = parse_square(ends[:2]), parse_square(ends[2:])
        assert bb >> first & 1 and bb >> last & 1, name
        members = list(chess.SquareSet(bb))
        assert (members[0], members[-1]) == (first, last), name
    assert "diagonal_a8a8" not in named_masks  # one-square corners are left out
    assert {"diagonal_b1h7", "diagonal_g1h2", "diagonal_a7b8", "antidiagonal_b1a2", "antidiagonal_h7g8"} <= set(named_masks)


# --------------------------------------------------------------------------------------------
# The maps are our own arithmetic (python-chess stays unimported at query start-up): held to
# python-chess's bitboard motions, which drop what leaves the board
# --------------------------------------------------------------------------------------------
def _motion_table(*motions) -> tuple:
    images = []
    for sq in range(64):
        bb = chess.BB_SQUARES[sq]
        for motion in motions:
            bb = motion(bb)
        images.append(chess.lsb(bb) if bb else None)
    return tuple(images)


CHESS_MOTIONS = {
    "id": (),
    "rotate90": (chess.flip_diagonal, chess.flip_horizontal),
    "rotate180": (chess.flip_vertical, chess.flip_horizontal),
    "rotate270": (chess.flip_diagonal, chess.flip_vertical),
    "reflecth": (chess.flip_vertical,),
    "reflectv": (chess.flip_horizontal,),
    "reflecta1h8": (chess.flip_diagonal,),
    "reflecth1a8": (chess.flip_anti_diagonal,),
}


@pytest.mark.parametrize("name", sorted(CHESS_MOTIONS))
def test_each_rigid_motion_is_python_chess_s(name: str) -> None:
    assert _table(DIHEDRAL[name]) == _motion_table(*CHESS_MOTIONS[name])


def test_every_shift_is_python_chess_s_one_square_steps() -> None:
    for dfile, drank in itertools.product(range(-8, 9), repeat=2):
        steps = ([chess.shift_right if dfile > 0 else chess.shift_left] * abs(dfile)
                 + [chess.shift_up if drank > 0 else chess.shift_down] * abs(drank))
        assert _table(shift(dfile, drank)) == _motion_table(*steps), (dfile, drank)


@FAST
@given(bb=bitboards)
def test_map_bitboard_is_the_motion_of_the_bitboard(bb: int) -> None:
    assert map_bitboard(bb, DIHEDRAL["rotate90"]) == chess.flip_horizontal(chess.flip_diagonal(bb))
    assert map_bitboard(bb, shift(2, -1)) == chess.shift_down(chess.shift_right(chess.shift_right(bb)))
