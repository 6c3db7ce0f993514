"""The transforms of each echo keyword and the vectorised count of one square parameter.

Seed 001 gives each echo keyword a set of non-identity transforms; reference/relation.md
(section 1.5) gives the counting rule that reproduces the reference engine for one transform t
and a comparison set C (sourcesquares at the source & targetsquares at the target):

* mapped comparisons: each q of C against the target's t(q), or against *empty* when t(q) is off
  the board (the seed's 24x24 superboard, where everything outside the real board is empty);
* the remainder: each square of C that is not the image of a square of C must be empty in the target;
* matches and mismatches are each capped at 64, then held to their ranges.

The parameter holds when some transform succeeds. Everything here works on numpy arrays for
all the targets of one source and all the transforms of one keyword at once: a board is 65
piece codes (0 empty, 1..12 K Q R B N P k q r b n p), the 65th an always-empty square that
stands for "off the board", so a transform is a gather through an index table.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from cqlindex.board.transforms import DIHEDRAL, shift

OFF = 64  # the index of the off-board square (always empty)
CAP = 64  # the reference engine's cap on either count

_DIHEDRAL_SETS = {
    "echoflip": ("rotate90", "rotate180", "rotate270", "reflecth", "reflectv", "reflecta1h8", "reflecth1a8"),
    "echoflipvertical": ("reflectv",),  # about the vertical bisector: files a<->h
    "echofliphorizontal": ("reflecth",),  # about the horizontal bisector: ranks 1<->8
    "echorotate90": ("rotate90", "rotate180", "rotate270"),
}
_SYNONYMS = {"echoflipdihedral": "echoflip", "echodihedral": "echoflip"}
_STEPS = range(-7, 8)
_SHIFT_SETS = {
    "echoshift": tuple((df, dr) for df in _STEPS for dr in _STEPS if (df, dr) != (0, 0)),
    "echoshifthorizontal": tuple((df, 0) for df in _STEPS if df),
    "echoshiftvertical": tuple((0, dr) for dr in _STEPS if dr),
}
#: Keywords whose transforms are bijections of the board (a full-board comparison has no remainder).
BIJECTIVE = frozenset((None, *_DIHEDRAL_SETS, *_SYNONYMS))


def is_shift(keyword: str | None) -> bool:
    return keyword in _SHIFT_SETS


@lru_cache(maxsize=None)
def tables(keyword: str | None) -> tuple[np.ndarray, np.ndarray]:
    """(forward, inverse) index tables of the keyword's transforms, shape (T, 65) each.

    forward[t, q] is the image of square q (OFF when it leaves the board); inverse[t, r] is the
    square whose image is r (OFF when none). Column OFF maps to OFF in both. ``None`` is the
    identity alone: a square parameter without an echo keyword.
    """
    keyword = _SYNONYMS.get(keyword, keyword)
    if keyword is None:
        maps = [lambda square: square]
    elif keyword in _DIHEDRAL_SETS:
        maps = [DIHEDRAL[name] for name in _DIHEDRAL_SETS[keyword]]
    else:
        maps = [shift(df, dr) for df, dr in _SHIFT_SETS[keyword]]
    forward = np.full((len(maps), 65), OFF, dtype=np.intp)
    inverse = np.full((len(maps), 65), OFF, dtype=np.intp)
    for t, square_map in enumerate(maps):
        for q in range(64):
            image = square_map(q)
            if image is not None:
                forward[t, q] = image
                inverse[t, image] = q
    for table in (forward, inverse):
        table.setflags(write=False)
    return forward, inverse


def holds(keyword: str | None, source: np.ndarray, sourcesquares: np.ndarray, targets: np.ndarray,
          targetsquares: np.ndarray | None, match: tuple[int, int], mismatch: tuple[int, int]) -> np.ndarray:
    """For each target, whether some transform of ``keyword`` makes the square parameter hold.

    ``source``: the source board (65 codes); ``sourcesquares``: its comparison squares (65 bools,
    the last False); ``targets``: the boards (n, 65); ``targetsquares``: their comparison squares
    (n, 65), or None for all squares. Returns n bools. The arrays are laid out (square,
    transform, target) so that each count is a sum of k slabs, k the number of source squares.
    """
    n = targets.shape[0]
    forward, inverse = tables(keyword)
    squares = np.flatnonzero(sourcesquares[:OFF])
    if n == 0:
        return np.zeros(0, dtype=bool)
    if squares.size == 0:  # an empty comparison set: 0 matches, 0 mismatches
        return np.full(n, _within(0, match) and _within(0, mismatch))
    by_square = targets.T  # (65, n)
    images = forward[:, squares].T  # (k, T)
    if targetsquares is None:
        # A source piece whose image leaves the board mismatches whatever the target holds.
        lost = ((images == OFF) & (source[squares] != 0)[:, None]).sum(axis=0)
        usable = lost <= mismatch[1]
        if not usable.any():
            return np.zeros(n, dtype=bool)
        images = images[:, usable]
        preimages = inverse[usable][:, squares].T  # (k, T)
    else:
        preimages = inverse[:, squares].T
    equal = by_square[images] == source[squares][:, None, None]  # (k, T, n): the mapped comparisons
    empty = by_square[squares] == 0  # (k, n): a remainder square is compared with empty
    # A square of C is tested when its pre-image is in C too; the others form the remainder.
    if targetsquares is None:
        mapped_match = equal.sum(axis=0, dtype=np.int16)  # (T, n)
        mapped_mismatch = squares.size - mapped_match
        remainder = ~sourcesquares[preimages]  # (k, T)
        rest_match = remainder.T.astype(np.int16) @ empty.astype(np.int16)  # (T, n)
        rest_mismatch = remainder.sum(axis=0, dtype=np.int16)[:, None] - rest_match
    else:
        in_c = (targetsquares & sourcesquares).T  # (65, n)
        compared = in_c[squares][:, None, :]  # (k, 1, n)
        mapped_match = (equal & compared).sum(axis=0, dtype=np.int16)
        mapped_mismatch = compared.sum(axis=0, dtype=np.int16) - mapped_match
        remainder = compared & ~in_c[preimages]  # (k, T, n)
        rest_match = (remainder & empty[:, None, :]).sum(axis=0, dtype=np.int16)
        rest_mismatch = remainder.sum(axis=0, dtype=np.int16) - rest_match
    return _in_ranges(mapped_match + rest_match, mapped_mismatch + rest_mismatch, match, mismatch)


def _in_ranges(matches: np.ndarray, mismatches: np.ndarray, match: tuple[int, int],
               mismatch: tuple[int, int]) -> np.ndarray:
    """(T, n) counts -> n bools: some transform has both capped counts in their ranges."""
    matches = np.minimum(CAP, matches)
    mismatches = np.minimum(CAP, mismatches)
    ok = (matches >= match[0]) & (matches <= match[1]) & (mismatches >= mismatch[0]) & (mismatches <= mismatch[1])
    return ok.any(axis=0)


def holds_full_board(keyword: str | None, source: np.ndarray, targets: np.ndarray, occupied: np.ndarray,
                     match: tuple[int, int], mismatch: tuple[int, int]) -> np.ndarray:
    """:func:`holds` for the whole board (no sourcesquares, no targetsquares), from the pieces alone.

    With C the whole board the comparisons cover U = board | t(board) (the superboard squares that
    a shift reaches; the board itself for a dihedral map), and a square of U mismatches iff it is
    occupied in the shifted source or in the target and the two differ. So with A the source's k
    pieces (those shifted off the board included) and B the target's, mismatches = |A| + |B| -
    |A & B on the board| - |same piece on the same square|, and matches = |U| - mismatches: only
    the source's occupied squares need gathering. A source piece leaving the board is always a
    mismatch, which drops shifts up front when the mismatch range is narrow.
    ``occupied``: the number of pieces of each target.
    """
    forward, _ = tables(keyword)
    pieces = np.flatnonzero(source[:OFF])
    images = forward[:, pieces].T  # (k, T)
    usable = (images == OFF).sum(axis=0) <= mismatch[1]
    if not usable.any() or targets.shape[0] == 0:
        return np.zeros(targets.shape[0], dtype=bool)
    images = images[:, usable]
    found = targets.T[images]  # (k, T, n)
    same = (found == source[pieces][:, None, None]).sum(axis=0, dtype=np.int16)
    overlap = (found != 0).sum(axis=0, dtype=np.int16)
    mismatches = pieces.size + occupied[None, :].astype(np.int16) - overlap - same
    return _in_ranges(_union_size(keyword)[usable][:, None] - mismatches, mismatches, match, mismatch)


@lru_cache(maxsize=None)
def _union_size(keyword: str | None) -> np.ndarray:
    """|board | t(board)| for each transform: 64 plus the squares t leaves uncovered (the remainder)."""
    forward, _ = tables(keyword)
    covered = (forward[:, :OFF] != OFF).sum(axis=1)
    return (128 - covered).astype(np.int16)


def full_board_limit(param) -> int | None:
    """The most mismatches a full-board square parameter (no sourcesquares, no targetsquares)
    allows, when below the cap; None for other parameters or no bound.

    A dihedral map (or the identity) makes exactly 64 comparisons, so there matches = 64 -
    mismatches and the match range bounds the mismatches too.
    """
    if (param.tomove is not None or param.lca is not None or param.echo == "echorotate45"
            or param.sourcesquares is not None or param.targetsquares is not None):
        return None
    limit = param.mismatch[1]
    if param.echo in BIJECTIVE:
        limit = min(limit, CAP - param.match[0])
    return limit if limit < CAP else None


def is_exact_image(param) -> bool:
    """Whether a full-board square parameter holds exactly when the target is t(source) for some t.

    With no mismatch allowed every compared square agrees: for a dihedral map (or the identity)
    that is the target being the image; for a shift it also means no source piece leaves the
    board. The matches are then 64 (a shift's more than 64 comparisons are capped), so the match
    range must allow 64.
    """
    return full_board_limit(param) == 0 and param.mismatch[1] == 0 and param.match[0] <= CAP <= param.match[1]


# A polynomial hash, key = sum of code[q] * BASE**q (mod 2**64): translating a board by d squares
# with every piece staying on the board multiplies its key by BASE**d (BASE is odd, so invertible).
_BASE = np.uint64(0x9E3779B97F4A7C15)
_BASE_INVERSE = np.uint64(pow(int(_BASE), -1, 1 << 64))


def _power(exponent: int) -> np.uint64:
    base = _BASE if exponent >= 0 else _BASE_INVERSE
    return np.uint64(pow(int(base), abs(exponent), 1 << 64))


_WEIGHTS = np.array([_power(q) for q in range(64)], dtype=np.uint64)


def board_keys(boards: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each board (..., 65): equal boards have equal keys (not conversely)."""
    with np.errstate(over="ignore"):
        return (boards[..., :OFF].astype(np.uint64) * _WEIGHTS).sum(axis=-1, dtype=np.uint64)


@lru_cache(maxsize=None)
def _shift_steps(keyword: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """File steps, rank steps and key multipliers BASE**(8 * rank step + file step) of a shift keyword."""
    steps = _SHIFT_SETS[keyword]
    files = np.array([df for df, _ in steps])
    ranks = np.array([dr for _, dr in steps])
    return files, ranks, np.array([_power(8 * dr + df) for df, dr in steps], dtype=np.uint64)


def _shifted_keys(keyword: str, boards: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(keys of every shifted board, whether the shift keeps every piece on the board), (N, T) each."""
    occupied = (boards[:, :OFF] != 0).reshape(-1, 8, 8)  # (N, rank, file)
    files_used, ranks_used = occupied.any(axis=1), occupied.any(axis=2)
    empty = ~files_used.any(axis=1)
    low_file = np.where(empty, 7, files_used.argmax(axis=1))
    high_file = np.where(empty, 0, 7 - files_used[:, ::-1].argmax(axis=1))
    low_rank = np.where(empty, 7, ranks_used.argmax(axis=1))
    high_rank = np.where(empty, 0, 7 - ranks_used[:, ::-1].argmax(axis=1))
    df, dr, multipliers = _shift_steps(keyword)
    kept = ((low_file[:, None] + df >= 0) & (high_file[:, None] + df <= 7)
            & (low_rank[:, None] + dr >= 0) & (high_rank[:, None] + dr <= 7))
    with np.errstate(over="ignore"):
        return keys[:, None] * multipliers[None, :], kept


def image_pairs(keyword: str | None, boards: np.ndarray, occupied: np.ndarray, sources: np.ndarray) -> np.ndarray:
    """(len(sources), N) bools: the board of position j has the key of t(board of source i) for
    some transform t of the keyword that keeps every piece of the source on the board.

    A necessary condition of :func:`is_exact_image` parameters (equal boards have equal keys),
    for many pairs at once; :func:`holds_full_board` still decides each pair kept. A shift's
    keys come from the board's own key (a translation multiplies it), a dihedral map's from the
    mapped boards.
    """
    keyword = _SYNONYMS.get(keyword, keyword)
    targets = board_keys(boards)
    if is_shift(keyword):
        keys, kept = _shifted_keys(keyword, boards[sources], targets[sources])
    else:
        _, inverse = tables(keyword)
        images = boards[sources][:, inverse]  # (s, T, 65): image[r] = board[inverse[r]]
        kept = (images[..., :OFF] != 0).sum(axis=2) == occupied[sources][:, None]
        keys = board_keys(images)
    unique, group = np.unique(targets, return_inverse=True)
    where = np.minimum(np.searchsorted(unique, keys), unique.size - 1)
    found = kept & (unique[where] == keys)
    hits = np.zeros((sources.size, unique.size), dtype=bool)
    rows = np.broadcast_to(np.arange(sources.size)[:, None], found.shape)
    hits[rows[found], where[found]] = True
    return hits[:, group]


def _within(value: int, bounds: tuple[int, int]) -> bool:
    return bounds[0] <= value <= bounds[1]


def mismatch_floor(counts_source: np.ndarray, counts_targets: np.ndarray) -> np.ndarray:
    """A lower bound of the (capped) mismatches of a full-board comparison under ANY transform.

    Every piece of either board lies in the compared squares (the superboard for a shift), and a
    mismatched square changes at most two piece-type counts, so mismatches >= half the L1 distance
    of the 12 piece counts. Used to drop targets before the transforms are tried.
    """
    distance = np.abs(counts_targets - counts_source).sum(axis=-1)
    return np.minimum(CAP, (distance + 1) // 2)
