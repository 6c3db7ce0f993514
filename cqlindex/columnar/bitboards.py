"""Bitboard arithmetic on numpy arrays of uint64: one board per element, many positions at once.

The tree-walking evaluator asks python-chess about one square of one position at a time; the
columnar engine asks the same questions of every position of a batch in a handful of array
operations. Sliding pieces use occluded fills (Kogge-Stone): each direction's fill doubles its
reach three times, so a slide over any number of squares is nine shifts and masks per array.
Bit ``i`` is square ``i`` (a1 = 0, h8 = 63), as in python-chess and the index.
"""

from __future__ import annotations

import numpy as np

from cqlindex.board.fills import fill

U64 = np.uint64
EMPTY = U64(0)
FULL = U64(0xFFFF_FFFF_FFFF_FFFF)
FILE_A = U64(0x0101_0101_0101_0101)
FILE_H = U64(0x8080_8080_8080_8080)
NOT_A = ~FILE_A
NOT_H = ~FILE_H
NOT_AB = ~(FILE_A | (FILE_A << U64(1)))
NOT_GH = ~(FILE_H | (FILE_H >> U64(1)))
LIGHT = U64(0x55AA_55AA_55AA_55AA)
DARK = ~LIGHT

#: Each basic direction as (shift in bits: positive is towards h8, the mask a step must land in).
STEP: dict[str, tuple[int, np.uint64]] = {
    "up": (8, FULL), "down": (-8, FULL), "right": (1, NOT_A), "left": (-1, NOT_H),
    "northeast": (9, NOT_A), "northwest": (7, NOT_H), "southeast": (-7, NOT_A), "southwest": (-9, NOT_H),
}
OPPOSITE = {"up": "down", "down": "up", "right": "left", "left": "right", "northeast": "southwest",
            "southwest": "northeast", "northwest": "southeast", "southeast": "northwest"}
ORTHOGONAL = ("up", "down", "left", "right")
DIAGONAL = ("northeast", "northwest", "southeast", "southwest")


def shift(boards: np.ndarray, bits: int) -> np.ndarray:
    """Every board moved ``bits`` squares towards h8 (negative: towards a1); what leaves is lost."""
    if bits >= 0:
        return boards << U64(bits)
    return boards >> U64(-bits)


def step(boards: np.ndarray, direction: str) -> np.ndarray:
    """One step in a basic direction, without wrapping around the board's edge."""
    bits, mask = STEP[direction]
    return shift(boards, bits) & mask


def slide(generators: np.ndarray, empty: np.ndarray, direction: str) -> np.ndarray:
    """The squares a slider on each generator square reaches in ``direction``: the empty squares
    on the way and the first occupied one (the union over generators of their rays)."""
    bits, mask = STEP[direction]
    return fill(generators, empty, bits, mask)


def _slides(squares: np.ndarray, occupied: np.ndarray, directions: tuple[str, ...]) -> np.ndarray:
    empty = ~occupied
    out = slide(squares, empty, directions[0])
    for direction in directions[1:]:
        out |= slide(squares, empty, direction)
    return out


def rook_attacks(squares: np.ndarray, occupied: np.ndarray) -> np.ndarray:
    return _slides(squares, occupied, ORTHOGONAL)


def bishop_attacks(squares: np.ndarray, occupied: np.ndarray) -> np.ndarray:
    return _slides(squares, occupied, DIAGONAL)


def knight_attacks(squares: np.ndarray) -> np.ndarray:
    out = (squares << U64(17)) & NOT_A
    out |= (squares << U64(15)) & NOT_H
    out |= (squares << U64(10)) & NOT_AB
    out |= (squares << U64(6)) & NOT_GH
    out |= (squares >> U64(17)) & NOT_H
    out |= (squares >> U64(15)) & NOT_A
    out |= (squares >> U64(10)) & NOT_GH
    out |= (squares >> U64(6)) & NOT_AB
    return out


def king_attacks(squares: np.ndarray) -> np.ndarray:
    sideways = ((squares << U64(1)) & NOT_A) | ((squares >> U64(1)) & NOT_H)
    row = squares | sideways
    return sideways | (row << U64(8)) | (row >> U64(8))


def white_pawn_attacks(squares: np.ndarray) -> np.ndarray:
    return ((squares << U64(9)) & NOT_A) | ((squares << U64(7)) & NOT_H)


def black_pawn_attacks(squares: np.ndarray) -> np.ndarray:
    return ((squares >> U64(7)) & NOT_A) | ((squares >> U64(9)) & NOT_H)


def popcount(boards: np.ndarray) -> np.ndarray:
    return np.bitwise_count(boards).astype(np.int64)


def lowest_square(boards: np.ndarray) -> np.ndarray:
    """The index of each board's lowest set bit (meaningless where the board is empty)."""
    return popcount((boards & (~boards + U64(1))) - U64(1))


def bits_of(squares: np.ndarray) -> np.ndarray:
    """Square indexes (0-63) as one-square boards."""
    return np.left_shift(U64(1), squares.astype(np.uint64))


def explode(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every set bit of every board: (index of its board, the one-square board), boards in order
    and squares ascending within each, as a set iteration visits them. One round per bit of the
    fullest board, each round taking every board's lowest bit at once and writing it straight to
    its place (its board's offset plus the round)."""
    counts = np.bitwise_count(boards).astype(np.int64)
    owner = np.repeat(np.arange(len(boards)), counts)
    offsets = np.cumsum(counts) - counts
    bits = np.empty(len(owner), np.uint64)
    index = np.flatnonzero(counts)
    rest = boards[index]
    round_ = 0
    while len(index):
        low = rest & (~rest + U64(1))
        bits[offsets[index] + round_] = low
        rest = rest ^ low
        live = rest != EMPTY
        index, rest = index[live], rest[live]
        round_ += 1
    return owner, bits


def or_by_owner(owner: np.ndarray, boards: np.ndarray, size: int) -> np.ndarray:
    """The union of ``boards`` per owner (``owner`` ascending), as an array of ``size`` boards."""
    out = np.zeros(size, np.uint64)
    if len(owner):
        starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
        out[owner[starts]] = np.bitwise_or.reduceat(boards, starts)
    return out


# -- one square's sliding attacks by table look-up (kindergarten bitboards) -------------------
# For a slider on one known square, the squares it attacks along one line depend only on the
# occupancy of that line's inner squares: six bits, gathered by a shift or a multiplication
# that lines them up in the top bits. A table per square then answers every row at once.

_FILE_GATHER = 0x0080402010080400  # a2..a7 to the top six bits (the c2-h7 diagonal)
_B_FILE = 0x0202020202020202       # a diagonal's squares, one per file, to the top six bits


_LINES = {"rank": ("right", "left"), "file": ("up", "down"), "diagonal": ("northeast", "southwest"),
          "antidiagonal": ("southeast", "northwest")}
_RANKS_1_8 = U64(0xFF00_0000_0000_00FF)


def _gathered(kind: str, squares: np.ndarray, occupied: np.ndarray, masks: np.ndarray | None) -> np.ndarray:
    """The six-bit index of ``occupied``'s inner squares of each square's line (``masks``: the
    line of each square, read for the diagonals only), as int64 for a table look-up."""
    with np.errstate(over="ignore"):
        if kind == "rank":
            index = (occupied >> (U64(8) * (squares // 8).astype(np.uint64) + U64(1))) & U64(63)
        elif kind == "file":
            index = (((occupied >> (squares % 8).astype(np.uint64)) & FILE_A) * U64(_FILE_GATHER)) >> U64(58)
        else:
            index = ((occupied & masks) * U64(_B_FILE)) >> U64(58)
    return index.astype(np.int64)


def _build() -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Each line kind's masks (the line through each square) and attack tables (by square and
    index), every square and occupancy at once with the fills above: built one square and subset
    at a time in Python, they cost every post-filtered query ~0.05 s of start-up. Occupancy
    ``subset`` puts bit k of the subset on the k-th inner square of the line (subsets beyond the
    line's inner squares repeat smaller ones). The gather is checked to be one-to-one on each
    square's occupancies, so no two of them share a table entry."""
    masks, tables = {}, {}
    squares = np.arange(64)
    subsets = np.arange(64, dtype=np.uint64)
    origin = bits_of(squares)
    nothing = np.zeros(64, np.uint64)
    for kind, (one, other) in _LINES.items():
        mask = slide(origin, ~nothing, one) | slide(origin, ~nothing, other)
        # The squares whose occupancy matters: not the line's ends (nothing lies beyond them).
        inner = mask & ~(_RANKS_1_8 if kind == "file" else FILE_A | FILE_H)
        # The k-th inner square of each square's line (64 where it has fewer), and their counts.
        places = np.full((64, 6), 64)
        sizes = []
        for square, line in enumerate(inner.tolist()):
            ends = [s for s in range(64) if line >> s & 1]
            places[square, :len(ends)] = ends
            sizes.append(len(ends))
        occupied = np.zeros((64, 64), np.uint64)
        for k in range(6):
            present = places[:, k:k + 1] < 64
            bit = np.left_shift(U64(1), np.minimum(places[:, k:k + 1], 63).astype(np.uint64))
            occupied |= np.where(present & ((subsets >> U64(k)) & U64(1) == U64(1)), bit, EMPTY)
        generators = np.broadcast_to(origin[:, None], (64, 64))
        attack = slide(generators, ~occupied, one) | slide(generators, ~occupied, other)
        index = _gathered(kind, squares[:, None], occupied, mask[:, None])
        distinct = np.arange(64) < np.left_shift(1, np.array(sizes))[:, None]  # each occupancy once
        if np.bincount((squares[:, None] * 64 + index)[distinct], minlength=4096).max() > 1:
            raise AssertionError(f"the {kind} gather collides")
        table = np.zeros((64, 64), np.uint64)
        table[np.broadcast_to(squares[:, None], (64, 64)), index] = attack
        masks[kind], tables[kind] = mask, table
    return masks, tables


_MASKS, _TABLES = _build()


def _line_attacks(kind: str, squares: np.ndarray, occupied: np.ndarray) -> np.ndarray:
    if kind in ("rank", "file"):  # the slider's own square is on its rank and file: not an obstacle
        occupied = occupied & ~bits_of(squares)
    masks = _MASKS[kind][squares] if kind not in ("rank", "file") else None
    return _TABLES[kind][squares, _gathered(kind, squares, occupied, masks)]


def rook_attacks_from(squares: np.ndarray, occupied: np.ndarray) -> np.ndarray:
    """A rook's attacks from one square per board (``squares``: indexes 0-63)."""
    with np.errstate(over="ignore"):
        return _line_attacks("rank", squares, occupied) | _line_attacks("file", squares, occupied)


def bishop_attacks_from(squares: np.ndarray, occupied: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return _line_attacks("diagonal", squares, occupied) | _line_attacks("antidiagonal", squares, occupied)


#: Each basic direction's ray from each square to the board's edge (the square itself not on it).
RAYS = {direction: slide(bits_of(np.arange(64)), np.full(64, FULL), direction) for direction in STEP}
#: A rook's and a bishop's attacks from each square on an empty board: its lines.
ROOK_LINES = rook_attacks_from(np.arange(64), np.zeros(64, np.uint64))
BISHOP_LINES = bishop_attacks_from(np.arange(64), np.zeros(64, np.uint64))
KNIGHT = knight_attacks(bits_of(np.arange(64)))
KING = king_attacks(bits_of(np.arange(64)))
WHITE_PAWN = white_pawn_attacks(bits_of(np.arange(64)))
BLACK_PAWN = black_pawn_attacks(bits_of(np.arange(64)))


def attackers_of_square(square: np.ndarray, occupied: np.ndarray, kings, queens, rooks, bishops, knights,
                        white_pawns, black_pawns) -> np.ndarray:
    """The men of the given boards attacking ``square`` (one index per position) with ``occupied``
    standing: the ``attacks``/``attackedby`` kernels' and the move generator's check test."""
    out = knights & KNIGHT[square]
    out |= kings & KING[square]
    out |= (rooks | queens) & rook_attacks_from(square, occupied)
    out |= (bishops | queens) & bishop_attacks_from(square, occupied)
    out |= white_pawns & BLACK_PAWN[square]  # a white pawn attacks where a black one would be attacked from
    out |= black_pawns & WHITE_PAWN[square]
    return out


def attacked_by(occupied: np.ndarray, kings, queens, rooks, bishops, knights, white_pawns, black_pawns) -> np.ndarray:
    """Every square the men of the given boards attack with ``occupied`` standing."""
    out = knight_attacks(knights)
    out |= king_attacks(kings)
    out |= rook_attacks(rooks | queens, occupied)
    out |= bishop_attacks(bishops | queens, occupied)
    out |= white_pawn_attacks(white_pawns)
    out |= black_pawn_attacks(black_pawns)
    return out


def _between(a: int, b: int) -> int:
    """The squares strictly between squares ``a`` and ``b`` when they share a line, else none."""
    df, dr = b % 8 - a % 8, b // 8 - a // 8
    if (a == b) or not (df == 0 or dr == 0 or abs(df) == abs(dr)):
        return 0
    step = (dr > 0) - (dr < 0), (df > 0) - (df < 0)
    out, square = 0, a + 8 * step[0] + step[1]
    while square != b:
        out |= 1 << square
        square += 8 * step[0] + step[1]
    return out


#: The squares strictly between two squares on a rank, file or diagonal, by their indexes.
BETWEEN = np.array([[_between(a, b) for b in range(64)] for a in range(64)], np.uint64)
