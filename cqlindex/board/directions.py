"""CQL's direction names: the eight steps and the composite directions made of them.

One table for the parser (which rejects a ray listing a direction twice) and the evaluator
(which walks the steps); and the squares a direction filter reaches from a set, on plain
integers, which the planner asks of a constant set (``up 1 7 d4``) without python-chess (its
attack tables cost a query's start-up 0.1 s: p26 of the patterns plans 48 of them).
"""

from __future__ import annotations

#: (file step, rank step) of each basic direction.
STEPS: dict[str, tuple[int, int]] = {
    "up": (0, 1), "down": (0, -1), "right": (1, 0), "left": (-1, 0), "northeast": (1, 1),
    "northwest": (-1, 1), "southeast": (1, -1), "southwest": (-1, -1),
}
#: The basic directions each composite direction stands for.
COMPOSITE: dict[str, tuple[str, ...]] = {
    "vertical": ("up", "down"), "horizontal": ("left", "right"),
    "diagonal": ("northeast", "northwest", "southeast", "southwest"),
    "orthogonal": ("up", "down", "left", "right"),
    "anydirection": ("up", "down", "left", "right", "northeast", "northwest", "southeast", "southwest"),
    "maindiagonal": ("northeast", "southwest"), "offdiagonal": ("northwest", "southeast"),
}


def basic(name: str) -> tuple[str, ...]:
    """The basic directions of ``name`` (itself if it is one)."""
    return COMPOSITE.get(name, (name,))


def steps_of(directions: tuple[str, ...]) -> tuple[str, ...]:
    """The basic directions that ``directions`` name, in order and each once (all eight when
    none is named, as ``ray`` reads an empty list)."""
    if not directions:
        return tuple(STEPS)
    out: list[str] = []
    for name in directions:
        for step in basic(name):
            if step not in out:
                out.append(step)
    return tuple(out)


_ALL = (1 << 64) - 1
_FILE_A = 0x0101_0101_0101_0101
_FILE_H = _FILE_A << 7


def _shift(mask: int, df: int, dr: int) -> int:
    if df > 0:
        for _ in range(df):
            mask = (mask & ~_FILE_H) << 1
    elif df < 0:
        for _ in range(-df):
            mask = (mask & ~_FILE_A) >> 1
    if dr > 0:
        mask = (mask << (8 * dr)) & _ALL
    elif dr < 0:
        mask >>= 8 * -dr
    return mask


def direction_mask(name: str, low: int, high: int, mask, shift=_shift, out=0):
    """Squares reached from ``mask`` by ``low``..``high`` steps in the direction(s) ``name``:
    an int, or with the columnar engine's ``shift`` and a zero ``out`` array, an array of boards.

    Eight steps or more leave the board whichever way, so the range is cut to -7..7 first: a
    distance such as 9223372036854775807 is empty at once instead of a loop of that length."""
    first, last = max(min(low, high), -7), min(max(low, high), 7)
    for step_name in COMPOSITE.get(name, (name,)):
        df, dr = STEPS[step_name]
        for k in range(first, last + 1):
            out |= shift(mask, df * k, dr * k)
    return out
