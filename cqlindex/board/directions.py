"""CQL's direction names: the eight steps and the composite directions made of them.

One table for the parser (which rejects a ray listing a direction twice) and the evaluator
(which walks the steps).
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
