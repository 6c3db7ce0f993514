"""Transform filters expanded by rewriting the AST: ``T F`` becomes the list of F's transformed versions.

Why a rewrite: the seeds define a transform filter as the ``or`` (``|`` for sets) of its argument
rewritten by each basic transform of the filter (seeds/000_56d7533d38fabce2.txt, 002_4f0573ab690dd7cb.txt).
Producing those rewritten filters as ordinary AST nodes lets the reference evaluator and the SQL planner
share one expansion, so the two engines cannot disagree about what a transform means; each only has to
combine the members (union, maximum, disjunction, or a count for ``T count F``).

* :func:`members` lists the basic transforms of a transform filter (identity first when it has one).
* :func:`apply` rewrites a filter by one basic transform, or returns ``None`` when the seeds drop that
  transformed filter (a shift leaves a piece designator with no square on the board).
* :func:`expand` gives the distinct transformed versions of a ``Transform`` node's argument.

Rules, with where they come from:

* Piece designators: squares mapped by the square map (cqlindex.board.transforms is the one definition);
  under the colour swap ``K``<->``k`` ... (``_`` stays). A designator that is unchanged stays the very same
  node. ``Pieces.text`` is left as written: like ``span`` it says where the designator came from in the
  query, so the transformed squares are in ``squares`` only (this also makes members from one argument
  compare by their squares and pieces alone, and makes ``reflecth`` twice give back the original AST).
* Shifts (seed 000, "shift transforms" and "wraparound"): a full rank (8 squares) of a designator is not
  moved horizontally and a full file is not moved vertically; the other squares move, and those pushed
  off the board disappear. The rule is applied line by line inside a designator ("shiftvertical does not
  alter a file of 8 squares"), horizontal step first and then the vertical step on its result, because
  ``shift`` is ``shifthorizontal shiftvertical``. If a designator is left with no square at all, the whole
  transformed filter is dropped ("piece designators with empty square sets eliminate the entire
  transform"). So ``shift K`` is ``K`` (all 64 squares are full ranks and full files) and
  ``shiftvertical {Kd2-8 Ba2}`` has the member ``{Kd3-8 Ba3}``.
* Directions (``up``, ``diagonal`` ..., ``ray`` direction lists) turn with the board: each direction is a
  set of unit vectors, mapped by the linear part of the square map; shifts leave directions alone.
* Colour swap (seed 000, "The flipcolor and reversecolor transforms"): ``wtm``<->``btm``,
  ``player``/``elo`` ``white``<->``black``, ``result 1-0``<->``0-1``, pieces swapped, squares mirrored.
  Decided here (the seeds are silent): the signed observables are negated, ``sidetomove`` ->
  ``-sidetomove`` and ``colortype x`` -> ``-colortype x``, while the numeric constants ``white`` (1) and
  ``black`` (-1) stay: swapping both would turn ``flipcolor sidetomove == white`` back into "white to
  move". A negation this module added is removed again by a second colour swap.
* ``light``/``dark``: swapped when the basic transform sends light squares to dark ones (rotate90,
  rotate270, reflecth, reflectv, the colour swap; a shift with an odd ``df + dr``). Decided here for
  shifts: the swap follows the translation even though full ranks/files of a designator stay put.
* Everything else (numbers, strings, ``makesquare``, ``rank``/``file`` values, castling) is copied with its
  children transformed; spans are kept.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Callable
from functools import lru_cache

from cqlindex.board.transforms import COLORSWAP, DIHEDRAL, map_bitboard, shift, shift_name
from cqlindex.cql import ast
from cqlindex.cql.frozen import Frozen, frozen
from cqlindex.filters import catalogue

SquareMap = Callable[[int], "int | None"]


@frozen
class BasicTransform(Frozen):
    """One basic transform: a square map, and whether colours are swapped too."""

    name: str  # "id", "rotate90", "reflecth", "colorswap", "shift(1,-2)", ...
    squares: SquareMap | None  # square -> square (None off the board); None is read as the identity
    color: bool  # True for the colour swap (flipcolor's non-identity member, reversecolor)


IDENTITY = BasicTransform("id", DIHEDRAL["id"], False)
COLOR_SWAP = BasicTransform("colorswap", COLORSWAP, True)


def _dihedral(*names: str) -> tuple[BasicTransform, ...]:
    return tuple(IDENTITY if name == "id" else BasicTransform(name, DIHEDRAL[name], False) for name in names)


def _shifts(files: range, ranks: range) -> tuple[BasicTransform, ...]:
    out = [IDENTITY]
    for df in files:
        for dr in ranks:
            if df or dr:
                out.append(BasicTransform(shift_name(df, dr), shift(df, dr), False))
    return tuple(out)


def _rotations45() -> tuple[BasicTransform, ...]:
    """rotate45's cyclic group of order 8: directions turn by k * 45 degrees, squares stay (seed 000)."""
    return (IDENTITY, *(BasicTransform(f"rotate45({k})", None, False) for k in range(1, 8)))


_OFFSETS = range(-7, 8)


@lru_cache(maxsize=None)
def _members() -> dict[str, tuple[BasicTransform, ...]]:
    """The basic transforms of each transform filter, tabulated on first use: the shifts' 225
    square maps cost ~5 ms, which a query without a transform need not pay at start-up (issue 16)."""
    return {
        "flipcolor": (IDENTITY, COLOR_SWAP),
        "reversecolor": (COLOR_SWAP,),
        "flip": _dihedral(*DIHEDRAL),
        "fliphorizontal": _dihedral("id", "reflecth"),
        "flipvertical": _dihedral("id", "reflectv"),
        "rotate90": _dihedral("id", "rotate90", "rotate180", "rotate270"),
        "rotate45": _rotations45(),
        "notransform": (IDENTITY,),  # its argument as written: the walk below leaves it untouched
        "shift": _shifts(_OFFSETS, _OFFSETS),
        "shifthorizontal": _shifts(_OFFSETS, range(0, 1)),
        "shiftvertical": _shifts(range(0, 1), _OFFSETS),
    }


def members(name: str) -> list[BasicTransform]:
    """The basic transforms of the transform filter ``name``, identity first when the set has it."""
    try:
        return list(_members()[name])
    except KeyError:
        raise ValueError(f"not a transform filter cqlindex expands: {name!r}") from None


@lru_cache(maxsize=None)
def _basic() -> dict[str, BasicTransform]:
    """Every basic transform by name, for the ``@name`` steps of ``Transform.then``."""
    return {t.name: t for family in _members().values() for t in family}


def chain(node: ast.Transform) -> list[tuple[BasicTransform, ...]]:
    """The basic transforms that make each member of ``node``, in the order they apply.

    One per member of the transform filter itself, followed by one of each ``then`` step: the
    reference composes a transform with the transforms of the transform filter it encloses.
    """
    steps = [members(node.name)]
    for step in node.then:
        steps.append([_basic()[step[1:]]] if step.startswith("@") else members(step))
    return list(itertools.product(*steps))


def expand(node: ast.Transform) -> list[ast.Node]:
    """The distinct transformed versions of ``node.arg``, in member order, dropped members omitted."""
    out: list[ast.Node] = []
    seen: set[ast.Node] = set()
    counted = node.count or node.low is not None
    for ts in chain(node):
        member: ast.Node | None = node.arg
        for t in ts:
            # A chain applies the innermost transform first; currenttransform lists the outermost first.
            member = apply(member, t, compose=counted, prepend=len(ts) > 1)
            if member is None:
                break
        if member is None:
            continue
        try:
            if member in seen:
                continue
            seen.add(member)
        except TypeError:  # an unhashable node: fall back to a linear search
            if member in out:
                continue
        out.append(member)
    return out


def apply(node: ast.Node, t: BasicTransform, compose: bool = False, prepend: bool = False) -> ast.Node | None:
    """``node`` rewritten by ``t``; None when a shift pushes a piece designator off the board.

    ``prepend``: ``t`` is more outer than the transforms already applied (a chain of composed
    members), so a ``currenttransform`` inside puts its name first rather than last."""
    if t.name == "id" and not t.color:
        return node
    try:
        return _walk(node, _context(t, compose, prepend))
    except _Dropped:
        return None


# -- squares ---------------------------------------------------------------------------------------

_ALL = (1 << 64) - 1
_RANKS = tuple(0xFF << (8 * r) for r in range(8))
_FILES = tuple(0x0101010101010101 << f for f in range(8))
_SHIFT_NAME = re.compile(r"shift\((-?\d+),(-?\d+)\)\Z")
_ROTATE45_NAME = re.compile(r"rotate45\((\d)\)\Z")


def shift_designator(squares: int, df: int, dr: int) -> int:
    """A designator's square set under the shift (df, dr), with the seed's full-rank/full-file rule.

    Horizontal step first: a full rank stays, the squares of any other rank move ``df`` files (those
    leaving the board disappear). Then the vertical step on that result: a full file stays, the squares
    of any other file move ``dr`` ranks.
    """
    if df:
        out = 0
        for rank in _RANKS:
            row = squares & rank
            if row == rank:
                out |= row
            elif row:
                out |= (row << df if df > 0 else row >> -df) & rank
        squares = out
    if dr:
        out = 0
        for file in _FILES:
            column = squares & file
            if column == file:
                out |= column
            elif column:
                out |= (column << 8 * dr if dr > 0 else column >> -8 * dr) & file & _ALL
        squares = out
    return squares


def _shift_offsets(t: BasicTransform) -> tuple[int, int] | None:
    match = _SHIFT_NAME.match(t.name)
    return (int(match.group(1)), int(match.group(2))) if match else None


# -- directions ------------------------------------------------------------------------------------

_UNIT = {"up": (0, 1), "down": (0, -1), "right": (1, 0), "left": (-1, 0), "northeast": (1, 1),
         "northwest": (-1, 1), "southeast": (1, -1), "southwest": (-1, -1)}
_DIRECTIONS: dict[str, frozenset[tuple[int, int]]] = {name: frozenset({v}) for name, v in _UNIT.items()}
_DIRECTIONS.update({
    "vertical": frozenset({(0, 1), (0, -1)}),
    "horizontal": frozenset({(1, 0), (-1, 0)}),
    "orthogonal": frozenset({(0, 1), (0, -1), (1, 0), (-1, 0)}),
    "diagonal": frozenset({(1, 1), (-1, 1), (1, -1), (-1, -1)}),
    "anydirection": frozenset(_UNIT.values()),
    "maindiagonal": frozenset({(1, 1), (-1, -1)}),  # along a1-h8
    "offdiagonal": frozenset({(-1, 1), (1, -1)}),  # along h1-a8
})
_DIRECTION_NAMES = {vectors: name for name, vectors in _DIRECTIONS.items()}
#: The eight unit vectors counterclockwise from up: rotate45 turns each one step on (up -> northwest).
_COMPASS = ((0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1), (1, 0), (1, 1))


def _turn45(name: str, steps: int) -> str:
    """The direction ``name`` turned counterclockwise by ``steps`` * 45 degrees."""
    turned = frozenset(_COMPASS[(_COMPASS.index(v) + steps) % 8] for v in _DIRECTIONS[name])
    return _DIRECTION_NAMES.get(turned, name)


class _Dropped(Exception):
    """A shift left a piece designator without squares: the whole transformed filter goes."""


@frozen
class _Context(Frozen):
    t: BasicTransform
    offsets: tuple[int, int] | None  # (df, dr) for a shift, else None
    directions: dict[str, str]  # direction name -> its image
    swaps_light: bool  # the map sends light squares to dark ones
    color: bool
    compose: bool  # for a counted orbit: an enclosed transform filter composes (see _walk)
    prepend: bool = False  # currenttransform: this transform is more outer than those already named


@lru_cache(maxsize=None)
def _context(t: BasicTransform, compose: bool = False, prepend: bool = False) -> _Context:
    offsets = _shift_offsets(t)
    fn = t.squares or DIHEDRAL["id"]
    turn = _ROTATE45_NAME.match(t.name)
    if turn is not None:
        directions = {name: _turn45(name, int(turn.group(1))) for name in _DIRECTIONS}
        swaps_light = False
    elif offsets is not None:
        directions = {name: name for name in _DIRECTIONS}
        swaps_light = sum(offsets) % 2 == 1
    else:
        directions = {name: _map_direction(name, fn) for name in _DIRECTIONS}
        swaps_light = _swaps_light(fn)
    return _Context(t, offsets, directions, swaps_light, t.color, compose, prepend)


def _map_direction(name: str, fn: SquareMap) -> str:
    """The direction ``name`` turned by the linear part of the (affine) square map ``fn``."""
    images = set()
    for df, dr in _DIRECTIONS[name]:
        start, end = fn(3 * 8 + 3), fn((3 + dr) * 8 + 3 + df)  # d4 and its neighbour
        if start is None or end is None:
            return name
        images.add((end % 8 - start % 8, end // 8 - start // 8))
    return _DIRECTION_NAMES.get(frozenset(images), name)


def _swaps_light(fn: SquareMap) -> bool:
    for sq in range(64):
        image = fn(sq)
        if image is not None:
            return (image % 8 + image // 8) % 2 != (sq % 8 + sq // 8) % 2
    return False


# -- the walk --------------------------------------------------------------------------------------

def _walk(node: ast.Node, ctx: _Context) -> ast.Node:
    if isinstance(node, ast.Transform):
        if node.name == "notransform":
            return node  # 'notransform F': F is not transformed by an enclosing transform
        if ctx.compose or node.count or node.low is not None:
            # The reference composes each member s of the enclosed transform with this one, t(s(F)).
            # Where members are counted (here, or an enclosing 'T count'/'T m n') that is not the
            # same as s(t(F)): 'rotate90 count fliphorizontal Ka1' counts {r(Ka1), r(h(Ka1))} per r.
            # A union of members is the same either way, and transforming the argument keeps
            # subtrees comparable, so the plain case below does that.
            if node.then and node.then[-1].startswith("@") and _undoes(ctx.t, _basic()[node.then[-1][1:]]):
                return dataclasses.replace(node, then=node.then[:-1])
            return dataclasses.replace(node, then=(*node.then, f"@{ctx.t.name}"))
    handler = _HANDLERS.get(type(node))
    return handler(node, ctx) if handler is not None else _copy(node, ctx)


def _undoes(t: BasicTransform, before: BasicTransform) -> bool:
    """Whether ``t`` after ``before`` is the identity: a board symmetry and its inverse (shifts are not,
    since a square pushed off the board is gone)."""
    if t.color != before.color or t.squares is None or before.squares is None or "(" in t.name + before.name:
        return False
    return all(t.squares(before.squares(sq)) == sq for sq in range(64))


def _value(value: object, ctx: _Context) -> object:
    """A field value with every node inside it transformed (nodes, tuples of nodes, (name, node) pairs)."""
    if isinstance(value, ast.Node):
        return _walk(value, ctx)
    if isinstance(value, tuple):
        items = tuple(_value(item, ctx) for item in value)
        return value if all(a is b for a, b in zip(items, value)) else items
    return value


def _copy(node: ast.Node, ctx: _Context, **fixed: object) -> ast.Node:
    """``node`` with its children transformed (and ``fixed`` fields set); the same object if unchanged."""
    changes = dict(fixed)
    for f in dataclasses.fields(node):
        if f.name == "span" or f.name in changes:
            continue
        old = getattr(node, f.name)
        new = _value(old, ctx)
        if new is not old:
            changes[f.name] = new
    changes = {name: value for name, value in changes.items() if not _same(getattr(node, name), value)}
    return dataclasses.replace(node, **changes) if changes else node


def _same(old: object, new: object) -> bool:
    """Nodes by identity (the walk returns the very node when nothing changed), the rest by value."""
    if old is new:
        return True
    if isinstance(old, tuple) and isinstance(new, tuple):
        return len(old) == len(new) and all(_same(a, b) for a, b in zip(old, new))
    return not isinstance(old, ast.Node) and not isinstance(new, ast.Node) and old == new


def _pieces(node: ast.Pieces, ctx: _Context) -> ast.Node:
    pieces = frozenset(p.swapcase() for p in node.pieces) if ctx.color else node.pieces
    if ctx.offsets is not None:
        squares = shift_designator(node.squares, *ctx.offsets)
        if not squares and ctx.offsets != (0, 0):
            raise _Dropped
    else:
        squares = map_bitboard(node.squares, ctx.t.squares or DIHEDRAL["id"])
        if not squares and node.squares:
            raise _Dropped
    if pieces == node.pieces and squares == node.squares:
        return node
    return dataclasses.replace(node, pieces=pieces, squares=squares)


def _direction(node: ast.Direction, ctx: _Context) -> ast.Node:
    return _copy(node, ctx, name=ctx.directions.get(node.name, node.name))


def _ray(node: ast.Ray, ctx: _Context) -> ast.Node:
    return _copy(node, ctx, directions=tuple(ctx.directions.get(d, d) for d in node.directions))


#: Images under the colour swap, from the catalogue's traits: filters that become another one
#: (wtm <-> btm), the sides named in 'player white' and 'elo black', and signed values.
_KEPT = ("same", "negated", "swapped")
_COLOR_KEYWORDS = {d.name: d.traits.colour_swap for d in catalogue.declarations()
                   if d.node is ast.Keyword and d.traits.colour_swap not in _KEPT}
_SIDES = {d.name: d.traits.colour_swap for d in catalogue.declarations()
          if d.where == "player, elo" and d.traits.colour_swap not in _KEPT}
_NEGATED = frozenset((d.node, d.name) for d in catalogue.declarations() if d.traits.colour_swap == "negated")
_RESULTS = {"1-0": "0-1", "0-1": "1-0"}


def _signed(node: ast.Node) -> bool:
    """A value whose sign is its colour: negated by the colour swap."""
    return (type(node), getattr(node, "name", getattr(node, "op", None))) in _NEGATED


def _keyword(node: ast.Keyword, ctx: _Context) -> ast.Node:
    if not ctx.color:
        return node
    if node.name in _COLOR_KEYWORDS:
        return dataclasses.replace(node, name=_COLOR_KEYWORDS[node.name])
    if _signed(node):
        return ast.Unary(node.span, "-", node)
    return node


def _unsigned_image(node: ast.Node, ctx: _Context) -> ast.Node:
    """The colour-swapped ``node`` (a signed value) without the negation the swap adds."""
    return node if isinstance(node, ast.Keyword) else _copy(node, ctx)


def _unary(node: ast.Unary, ctx: _Context) -> ast.Node:
    if ctx.color and node.op == "-" and _signed(node.arg):
        return _unsigned_image(node.arg, ctx)  # -(sidetomove) swapped is sidetomove again
    if ctx.color and _signed(node):
        return ast.Unary(node.span, "-", _copy(node, ctx))
    if node.op in ("light", "dark") and ctx.swaps_light:
        return _copy(node, ctx, op="dark" if node.op == "light" else "light")
    return _copy(node, ctx)


def _game_filter(node: ast.GameFilter, ctx: _Context) -> ast.Node:
    if not ctx.color:
        return _copy(node, ctx)
    args = []
    for arg in node.args:
        if node.name == "result" and isinstance(arg, ast.String) and arg.value in _RESULTS:
            arg = dataclasses.replace(arg, value=_RESULTS[arg.value])
        elif node.name in ("player", "elo") and isinstance(arg, ast.Keyword) and arg.name in _SIDES:
            arg = dataclasses.replace(arg, name=_SIDES[arg.name])
        else:
            arg = _walk(arg, ctx)
        args.append(arg)
    return _copy(node, ctx, args=tuple(args))


def _current_transform(node: ast.CurrentTransform, ctx: _Context) -> ast.Node:
    name = display_name(ctx.t)
    return dataclasses.replace(node, applied=(name, *node.applied) if ctx.prepend else (*node.applied, name))


#: The reference engine's names of the dihedral transforms (its rotations named by their sense:
#: cqlindex's rotate90 is counterclockwise, board/transforms.py), the colour swap as it is.
_DISPLAY = {"rotate90": "counterclockwise90", "rotate180": "rotate180", "rotate270": "clockwise90",
            "reflecth": "reflect_h", "reflectv": "reflect_v", "reflecta1h8": "reflect_a1h8",
            "reflecth1a8": "reflect_a8h1", "colorswap": "colorswap"}


def display_name(t: BasicTransform) -> str:
    """How ``currenttransform`` names one basic transform: a dihedral one as the reference engine
    names it (``reflect_v`` under ``flipvertical``, as the manual prints it; ``clockwise90``); a shift is its horizontal part
    U_i then its vertical part V_j (the manual's names for them), one or both."""
    offsets = _shift_offsets(t)
    if offsets is not None:
        df, dr = offsets
        return " ".join(part for part in (f"U_{df}" if df else "", f"V_{dr}" if dr else "") if part)
    turn = _ROTATE45_NAME.match(t.name)
    if turn is not None:
        return f"rotate_{45 * int(turn.group(1))}"
    return _DISPLAY.get(t.name, t.name)


_HANDLERS: dict[type, Callable[[ast.Node, _Context], ast.Node]] = {
    ast.CurrentTransform: _current_transform,
    ast.Pieces: _pieces,
    ast.Direction: _direction,
    ast.Ray: _ray,
    ast.Keyword: _keyword,
    ast.Unary: _unary,
    ast.GameFilter: _game_filter,
}

__all__ = ["BasicTransform", "members", "chain", "apply", "expand", "shift_designator", "IDENTITY", "COLOR_SWAP"]


class Expansions:
    """Every transform filter of one query with its members, rewritten once and shared by both engines.

    Built when the query is prepared; the planner and the evaluator ask it for a ``Transform``
    node's members instead of rewriting again at each position. Keyed by node identity (hashing
    a frozen subtree at every lookup would cost more than the lookup saves); a node made after
    preparation (the planner builds a few) is expanded when first asked for and kept.
    """

    def __init__(self, root: ast.Node) -> None:
        self._table: dict[int, tuple[ast.Transform, list[ast.Node]]] = {}
        self._add(root)

    def _add(self, root: ast.Node) -> None:
        for node in ast.walk(root):
            if isinstance(node, ast.Transform) and id(node) not in self._table:
                found = expand(node)
                self._table[id(node)] = (node, found)
                for member in found:
                    self._add(member)

    def __call__(self, node: ast.Transform) -> list[ast.Node]:
        entry = self._table.get(id(node))
        if entry is None or entry[0] is not node:
            self._add(node)
            entry = self._table[id(node)]
        return entry[1]
