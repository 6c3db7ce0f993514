"""Line geometry over the board: ``pin [from S] [through S] [to S]``, ``ray [dirs] (S1 ... Sn)``
and ``xray [dirs] (S1 ... Sn)``.

Definitions (CQL 6.0.5/6.1 pages for pin and xray, CQLi manual "ray filters"):

* A *ray match* is a sequence of squares s1, ..., sn met in this order while stepping from s1
  in one direction, with si in Si and only empty squares strictly between consecutive members.
  ``ray`` tries the given directions (default ``anydirection``); its value is the set of end
  squares sn of the matches.
* ``xray (S1 ...)`` is ``ray orthogonal ({S1 & [RrQq]} ...) | ray diagonal ({S1 & [BbQq]} ...)``:
  the first member must be a slider that moves along the line.
* A *pin* is (pinning piece, pinned piece, to square) on one line: the pinning piece is a rook,
  bishop or queen moving along that line, the pinned piece is the first piece it meets and is
  of the other colour, and the to square lies beyond it with only empty squares between; the
  to square is empty or holds a piece of the pinned piece's colour. Defaults: from ``[Aa]``,
  through ``[Aa]``, to ``[Kk]``. The value is the pinning pieces' squares if ``from`` is the
  first parameter written, the to squares if ``to`` is, and the pinned pieces' squares
  otherwise.
"""

from __future__ import annotations

import chess

from cqlindex.board.directions import STEPS, steps_of
from cqlindex.cql import ast
from cqlindex.evaluate.context import Evaluator, evaluates
from cqlindex.evaluate.values import Squares
from cqlindex.filters.sets.python import as_set
from cqlindex.store.trees import Position

_ORTHOGONAL = frozenset(("up", "down", "left", "right"))
_DIAGONAL = frozenset(("northeast", "northwest", "southeast", "southwest"))
_ALL = tuple(STEPS)


def _walk(square: int, step: str) -> tuple[int, ...]:
    df, dr = STEPS[step]
    f, r = chess.square_file(square) + df, chess.square_rank(square) + dr
    out = []
    while 0 <= f < 8 and 0 <= r < 8:
        out.append(chess.square(f, r))
        f += df
        r += dr
    return tuple(out)


#: _RAYS[step][square]: the squares met stepping from ``square`` (excluded) towards the edge.
_RAYS = {step: tuple(_walk(sq, step) for sq in chess.SQUARES) for step in _ALL}
#: _LINES[step][square]: those squares as one bitboard.
_LINES = {step: tuple(sum(1 << sq for sq in ray) for ray in rays) for step, rays in _RAYS.items()}


def _occupied(pos: Position) -> tuple[int, int]:
    bb = pos.bitboards
    white = bb[0] | bb[1] | bb[2] | bb[3] | bb[4] | bb[5]
    black = bb[6] | bb[7] | bb[8] | bb[9] | bb[10] | bb[11]
    return white, black


def ray_ends(sets: list[int], steps: tuple[str, ...], occupied: int) -> int:
    """End squares of the ray matches of ``sets`` along ``steps`` (see the module docstring)."""
    last = len(sets) - 1
    out = 0
    rest = sets[1:]
    for step in steps:
        rays, lines = _RAYS[step], _LINES[step]
        for start in chess.scan_forward(sets[0]):
            line = lines[start]
            if not all(line & later for later in rest):  # some set has no square along it: no match
                continue  # (a chain of arrows asks each of its sets' squares in all eight steps)
            states = {0}  # k: S1..S(k+1) matched, only empty squares since the last member
            for sq in rays[start]:
                bit = 1 << sq
                empty = not occupied & bit
                nxt: set[int] = set()
                for k in states:
                    if sets[k + 1] & bit:
                        if k + 1 == last:
                            out |= bit
                        else:
                            nxt.add(k + 1)
                    if empty:
                        nxt.add(k)
                if not nxt:
                    break
                states = nxt
    return out


def _arg_sets(ev: Evaluator, node: ast.Ray, pos: Position) -> list[int] | None:
    sets = []
    for arg in node.args:
        mask = as_set(ev.eval(arg, pos))
        if mask is None:
            return None
        sets.append(mask)
    return sets


@evaluates(ast.Ray)
def ray(ev: Evaluator, node: ast.Ray, pos: Position) -> object:
    sets = _arg_sets(ev, node, pos)
    if sets is None:
        return None
    white, black = _occupied(pos)
    occupied = white | black
    if node.kind in ("->", "<-"):
        return Squares(arrow_chain(sets if node.kind == "->" else sets[::-1], pos, occupied, node.kind == "->"))
    steps = steps_of(node.directions)
    if node.kind == "ray":
        return Squares(ray_ends(sets, steps, occupied))
    bb = pos.bitboards
    rook_movers = bb[1] | bb[2] | bb[7] | bb[8]
    bishop_movers = bb[1] | bb[3] | bb[7] | bb[9]
    out = 0
    orthogonal = tuple(s for s in steps if s in _ORTHOGONAL)
    diagonal = tuple(s for s in steps if s in _DIAGONAL)
    if orthogonal:
        out |= ray_ends([sets[0] & rook_movers, *sets[1:]], orthogonal, occupied)
    if diagonal:
        out |= ray_ends([sets[0] & bishop_movers, *sets[1:]], diagonal, occupied)
    return Squares(out)


def arrow_chain(sets: list[int], pos: Position, occupied: int, starts: bool) -> int:
    """``S1 -> S2 -> ... -> Sn``: a ray match of the sets (as for ``ray``) along a line the piece on
    its first square moves along (a rook's, a bishop's or a queen's). The reference engine reads a
    chain of three or more arrows as such a ray of attacks; its value is the set of first squares
    that start one (``starts``), or, for ``Sn <- ... <- S1`` (the sets given here as S1 ... Sn),
    the set of last squares."""
    bb = pos.bitboards
    lines = {"up": bb[1] | bb[2] | bb[7] | bb[8], "diagonal": bb[1] | bb[3] | bb[7] | bb[9]}
    out = 0
    last = sets[-1]
    for start in chess.scan_forward(sets[0]):
        bit = 1 << start
        for step in _ALL:
            if not lines["up" if step in _ORTHOGONAL else "diagonal"] & bit or not _LINES[step][start] & last:
                continue
            ends = ray_ends([bit, *sets[1:]], (step,), occupied)
            if ends:
                out |= bit if starts else ends
    return out


def pins(pos: Position, pinners: int, pinned: int, targets: int) -> list[tuple[int, int, int]]:
    """Every pin (pinning square, pinned square, to square) with its parts in the given sets."""
    bb = pos.bitboards
    white, black = _occupied(pos)
    occupied = white | black
    out = []
    for base, enemy in ((0, black), (6, white)):
        queens, rooks, bishops = bb[base + 1], bb[base + 2], bb[base + 3]
        for sq in chess.scan_forward(pinners & (queens | rooks | bishops)):
            bit = 1 << sq
            if queens & bit:
                steps = _ALL
            elif rooks & bit:
                steps = tuple(_ORTHOGONAL)
            else:
                steps = tuple(_DIAGONAL)
            for step in steps:
                line = _RAYS[step][sq]
                for i, p in enumerate(line):  # noqa: B007 - i marks where the pinned piece stands
                    if occupied & (1 << p):
                        break
                else:
                    continue
                if not (enemy & (1 << p)) or not (pinned & (1 << p)):
                    continue
                for t in line[i + 1:]:
                    tbit = 1 << t
                    if occupied & tbit:
                        if enemy & tbit and targets & tbit:
                            out.append((sq, p, t))
                        break
                    if targets & tbit:
                        out.append((sq, p, t))
    return out


@evaluates(ast.Pin)
def pin(ev: Evaluator, node: ast.Pin, pos: Position) -> object:
    white, black = _occupied(pos)
    given: dict[str, int] = {}
    for name, arg in node.params:
        mask = as_set(ev.eval(arg, pos))
        if mask is None:
            return None
        given[name] = given[name] & mask if name in given else mask
    bb = pos.bitboards
    found = pins(pos, given.get("from", white | black), given.get("through", white | black),
                 given.get("to", bb[0] | bb[6]))
    first = node.params[0][0] if node.params else "through"
    index = {"from": 0, "through": 1, "to": 2}[first]
    out = 0
    for triple in found:
        out |= 1 << triple[index]
    return Squares(out)
