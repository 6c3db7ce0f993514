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
    (n, 65), or None for all squares. Returns n bools.
    """
    n = targets.shape[0]
    forward, inverse = tables(keyword)
    squares = np.flatnonzero(sourcesquares[:OFF])
    if n == 0:
        return np.zeros(0, dtype=bool)
    if squares.size == 0:  # an empty comparison set: 0 matches, 0 mismatches
        return np.full(n, _within(0, match) and _within(0, mismatch))
    images = forward[:, squares]  # (T, k)
    equal = targets[:, images] == source[squares]  # (n, T, k): the mapped comparisons
    empty = targets[:, squares] == 0  # (n, k): a remainder square is compared with empty
    # A square r of C is tested when its pre-image is in C too; the others form the remainder.
    if targetsquares is None:
        in_c = sourcesquares  # C = sourcesquares, the same for every target
        mapped_match = equal.sum(axis=2, dtype=np.int16)
        mapped_mismatch = squares.size - mapped_match
        remainder = ~in_c[inverse[:, squares]]  # (T, k)
        rest_match = empty.astype(np.int16) @ remainder.T.astype(np.int16)  # (n, T)
        rest_mismatch = remainder.sum(axis=1, dtype=np.int16) - rest_match
    else:
        in_c = targetsquares & sourcesquares  # (n, 65)
        compared = in_c[:, squares][:, None, :]  # (n, 1, k)
        mapped_match = (equal & compared).sum(axis=2, dtype=np.int16)
        mapped_mismatch = compared.sum(axis=2, dtype=np.int16) - mapped_match
        remainder = compared & ~in_c[:, inverse[:, squares]]  # (n, T, k)
        rest_match = (remainder & empty[:, None, :]).sum(axis=2, dtype=np.int16)
        rest_mismatch = remainder.sum(axis=2, dtype=np.int16) - rest_match
    matches = np.minimum(CAP, mapped_match + rest_match)
    mismatches = np.minimum(CAP, mapped_mismatch + rest_mismatch)
    ok = (matches >= match[0]) & (matches <= match[1]) & (mismatches >= mismatch[0]) & (mismatches <= mismatch[1])
    return ok.any(axis=1)


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
    images = forward[:, pieces]  # (T, k)
    off_board = (images == OFF).sum(axis=1)
    usable = off_board <= mismatch[1]
    if not usable.any() or targets.shape[0] == 0:
        return np.zeros(targets.shape[0], dtype=bool)
    images = images[usable]
    union = _union_size(keyword)[usable]  # (T,)
    found = targets[:, images]  # (n, T, k)
    same = (found == source[pieces]).sum(axis=2, dtype=np.int16)
    overlap = (found != 0).sum(axis=2, dtype=np.int16)
    mismatches = pieces.size + occupied[:, None].astype(np.int16) - overlap - same
    matches = np.minimum(CAP, union[None, :] - mismatches)
    mismatches = np.minimum(CAP, mismatches)
    ok = (matches >= match[0]) & (matches <= match[1]) & (mismatches >= mismatch[0]) & (mismatches <= mismatch[1])
    return ok.any(axis=1)


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
    if param.tomove is not None or param.sourcesquares is not None or param.targetsquares is not None:
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


_WEIGHTS = np.random.default_rng(20260401).integers(1, 2**63, size=64, dtype=np.uint64) | np.uint64(1)


def board_keys(boards: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each board (..., 65): equal boards have equal keys (not conversely)."""
    with np.errstate(over="ignore"):
        return (boards[..., :OFF].astype(np.uint64) * _WEIGHTS).sum(axis=-1, dtype=np.uint64)


def image_pairs(keyword: str | None, boards: np.ndarray, occupied: np.ndarray, sources: np.ndarray) -> np.ndarray:
    """(len(sources), N) bools: the board of position j has the key of t(board of source i) for
    some transform t of the keyword that keeps every source piece on the board.

    A necessary condition of :func:`is_exact_image` parameters (equal boards have equal keys),
    computed for all pairs at once; :func:`holds_full_board` still decides each pair kept.
    """
    _, inverse = tables(keyword)
    images = boards[sources][:, inverse]  # (s, T, 65): image[r] = source[inverse[r]]
    kept = (images[..., :OFF] != 0).sum(axis=2) == occupied[sources][:, None]
    keys = board_keys(images)
    targets = board_keys(boards)
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
