"""``path`` on columns: the first longest walk from every start of a frame at once.

The tree-walker searches each start depth first (:mod:`cqlindex.filters.sequences.path_walk`).
Where no constituent changes anything, the search is a finite machine
(:mod:`cqlindex.columnar.path_machine`) whose walks :mod:`cqlindex.columnar.path_walks` works
out from every position of a forest at once. What a walk does from a position then depends on
the position, and on the values of the variables the path reads and the pieces it focuses on.
So the starts are put in classes that share those, per game:

* none (no variable, no focus, or a focus on a whole side, whose moves in focus are that
  side's moves wherever the path starts): the frame itself is the forest, once per side;
* otherwise each class works on its own copy of the stretch of its game below its starts,
  with its variables' values and its focused pieces (by name: the square each stood on at
  the root, :attr:`cqlindex.columnar.frame.Frame.piece_ids`), a few classes at a time.

Left to the tree-walker: ``max``, ``firstmatch``, constituents that change something (a path
inside a path sets what ``pathcount`` reads), see :func:`why_not`.
"""

from __future__ import annotations

import numpy as np

from cqlindex.columnar.bitboards import lowest_square
from cqlindex.columnar.engine import Columnar, Ctx, PieceVar, kernel
from cqlindex.columnar.kernels_line import edges
from cqlindex.columnar.path_machine import Machine
from cqlindex.columnar.path_walks import Forest, in_level_order, longest
from cqlindex.columnar.values import BOOL, POS, NotColumnar, Val, number
from cqlindex.columnar.variables import free_variables
from cqlindex.cql import ast
from cqlindex.query.analyse import fresh_name, quiet_path

#: Parameters the kernel follows (the rest of what it takes shapes comments only).
PARAMS = frozenset({"quiet", "title", "verbose", "piecepath", "keepallbest", "primary", "nestban", "lastposition",
                    "focus", "singlecolor"})
#: A constituent filter that the walker tests itself, not as a filter of the position.
_WALK_KEYWORDS = ("primary", "secondary")
#: The (position, state) cells worked on at once where starts are in classes: bounds the memory.
CELLS = 8_000_000


def why_not(node: ast.Path, body: ast.Node | None = None) -> str | None:
    """Why ``node`` is left to the tree-walker, or None when this kernel evaluates it. ``body``:
    the query's, where an assignment in a step is looked for readers elsewhere (:func:`local`)."""
    if node.max is not None:
        return "'path max' has no columnar kernel yet"
    unknown = node.params - PARAMS
    if unknown:
        return f"'path {sorted(unknown)[0]}' has no columnar kernel yet"
    if not quiet_path(node, fresh=True) and (body is None or not quiet_path(node, fresh=True, also=local(node, body))):
        return "a path whose constituents change something has no columnar kernel yet"
    return None


def local(node: ast.Path, body: ast.Node) -> set[int]:
    """The assignments in ``node``'s steps that change nothing anyone sees (by id): a member of a
    compound whose variable the query reads nowhere but in that compound's later members (a
    function's working variable, ``kingfield = .<-k`` in indian.cql). Its value at a position is
    then made there before it is read, whatever the walk did before."""
    uses: dict[str, int] = {}
    for inner in ast.walk(body):
        if isinstance(inner, (ast.Variable, ast.Assign)):
            uses[inner.name] = uses.get(inner.name, 0) + 1
    found: set[int] = set()
    for compound in ast.walk(node.items):
        if not isinstance(compound, ast.Compound):
            continue
        for index, item in enumerate(compound.items):
            if not isinstance(item, ast.Assign) or item.op != "=" or item.piece:
                continue
            later = sum(isinstance(x, (ast.Variable, ast.Assign)) and x.name == item.name
                        for x in ast.walk(compound.items[index + 1:]))
            if uses.get(item.name, 0) == 1 + later and not ast.mentions(item.value, item.name):
                found.add(id(item))
    return found


_SIDES = (frozenset("KQRBNP"), frozenset("kqrbnp"), frozenset("KQRBNPkqrbnp"))
_EVERY_SQUARE = (1 << 64) - 1


def _whole_side(node: ast.Node | None) -> bool:
    """Whether a focus is every piece of a side (or of both) wherever it is asked: ``A``, ``a``,
    ``[Aa]``, ``if wtm A else a``. Pieces are never added to a side, so the pieces a focus takes
    at the start are all the pieces that side moves later: the moves in focus are that side's
    moves (and with ``capture``, the other side's captures), whatever the start."""
    if isinstance(node, ast.Pieces):
        return node.pieces in _SIDES and node.squares == _EVERY_SQUARE
    if isinstance(node, ast.If):
        return _whole_side(node.then) and _whole_side(node.other)
    return False


def _reads(cm: Columnar, path: ast.Path, node: ast.Node) -> frozenset[str]:
    """The variables ``node`` (``path`` or one of its steps) reads from outside: a function's
    parameter, inlined in a step, and a variable assigned there for that step alone
    (:func:`local`) are bound there first."""
    key = ("path locals", id(path))
    entry = cm.memo.get(key)
    if entry is None or entry[0] is not path:
        kept = local(path, cm.query.body)
        entry = (path, frozenset(x.name for x in ast.walk(path.items) if id(x) in kept))
        cm.memo[key] = entry
    return frozenset(name for name in free_variables(node) if not fresh_name(name) and name not in entry[1])


def _machine(cm: Columnar, node: ast.Path) -> Machine:
    key = ("path machine", id(node))
    entry = cm.memo.get(key)
    if entry is None or entry.node is not node:
        entry = Machine(node)
        cm.memo[key] = entry
    return entry


def _frame_forest(cm: Columnar) -> Forest:
    """The frame's rows as one forest (kept for the frame)."""
    entry = cm.memo.get("path forest")
    if entry is None:
        frame = cm.frame
        entry = in_level_order(np.arange(frame.size), frame.parent, frame.depth)[0]
        cm.memo["path forest"] = entry
    return entry


def _main(cm: Columnar) -> tuple[np.ndarray, np.ndarray]:
    """(per frame row, whether it has a parent; whether it is its parent's first child), kept for
    the frame: every batch of classes asks."""
    entry = cm.memo.get("path main")
    if entry is None:
        frame = cm.frame
        has = frame.parent >= 0
        main = np.zeros(frame.size, bool)
        main[has] = np.flatnonzero(has) == frame.parent[has] + 1  # a first child follows its parent
        entry = cm.memo["path main"] = (has, main)
    return entry


def _verdicts(cm: Columnar, machine: Machine, forest: Forest, inputs: dict | None) -> list[np.ndarray | None]:
    """Per state, where its test holds over ``forest`` (a move: the positions reached by it).
    ``inputs``: the variables at each position of the forest (None: the path reads none)."""
    frame = cm.frame
    rows = forest.rows
    has, main = _main(cm)
    primary = "primary" in machine.node.params  # (CQL 6.2 refuses it with a focus)
    out: list[np.ndarray | None] = [None] * len(machine.steps)
    entered = _entered(machine)
    arrive: dict[int, np.ndarray] = {}  # where a walk can be in a test state, where that is known
    # Moves first, then tests in the machine's order: a test that only moves and such tests lead
    # into is asked only where a walk can arrive.
    for index in sorted(range(len(machine.steps)), key=lambda i: (machine.steps[i][0] != "move", i)):
        step = machine.steps[index]
        kind = step[0]
        if kind not in ("move", "test"):
            continue
        item = step[1]
        reads = inputs is not None and _reads(cm, machine.node, item)
        froms = entered.get(index)
        if kind == "test" and froms is not None and all(k == "move" or j in arrive for k, j in froms):
            here = np.zeros(forest.size, bool)
            for k, j in froms:
                here |= out[j] if k == "move" else arrive[j] & out[j]
            arrive[index] = here
            if reads:
                asked = np.flatnonzero(here)
                verdict = np.zeros(forest.size, bool)
                if len(asked):
                    verdict[asked] = cm.test(item, Ctx(rows[asked], {k: v.take(asked) for k, v in inputs.items()},
                                                       None, True))
                out[index] = verdict
                continue
        if kind == "move":
            if not reads:
                verdict = edges(cm, item, False)[0][rows]
            else:  # the move into each position, asked at its parent with the class's variables
                verdict = np.zeros(forest.size, bool)
                moved = np.flatnonzero(forest.parent >= 0)
                child = rows[moved]
                asked = Ctx(frame.parent[child], {k: v.take(moved) for k, v in inputs.items()}, child, True)
                verdict[moved] = cm.test(item, asked)
            out[index] = verdict & main[rows] if primary else verdict
        elif isinstance(item, ast.Keyword) and item.name in _WALK_KEYWORDS:
            out[index] = (has & (main if item.name == "primary" else ~main))[rows]
        elif not reads:
            out[index] = cm.everywhere(item).truth()[rows]
        else:
            out[index] = cm.test(item, Ctx(rows, dict(inputs), None, True))
    return out


def _entered(machine: Machine) -> dict[int, list[tuple[str, int]]]:
    """The test states that only moves and other tests lead into, and not the start's: each with
    those states. A walk is in such a state only at a position one of those moves reached, or
    where such a test held, so it need not be asked anywhere else (indian.cql's
    virtualstalemate, after ``I--S`` and a comment: asked over 615,000 copied positions, needed
    at the few a move of I to S reached)."""
    into: dict[int, list[tuple[str, int]]] = {}
    for index, step in enumerate(machine.steps):
        targets = step[1] if step[0] == "choose" else [step[2]] if step[0] in ("move", "test") else []
        for target in targets:
            into.setdefault(target, []).append((step[0], index))
    premove = set(machine.premove)
    return {index: into[index] for index, step in enumerate(machine.steps)
            if step[0] == "test" and index not in premove and index in into
            and all(kind in ("move", "test") for kind, _ in into[index])}


def _ban(frame, rows: np.ndarray, ok: np.ndarray, last: np.ndarray) -> np.ndarray:
    """``nestban``: in order, a match bans its start and the positions its walk passes through
    (all but its end) from starting a later match of the same path in the game."""
    ok = ok.copy()
    banned = np.zeros(frame.size, bool)
    parent = frame.parent
    for index in np.flatnonzero(ok).tolist():
        row = int(rows[index])
        if banned[row]:
            ok[index] = False
            continue
        at = int(last[index])
        while at != row:  # up to the start: with a focus, the plies between focused moves too
            at = int(parent[at])
            banned[at] = True
    return ok


#: The sides a focus on a whole side may take at a start: none, white, black, both.
_NOBODY, _WHITE, _BLACK, _BOTH = range(4)


def _focus_squares(cm: Columnar, node: ast.Path, ctx: Ctx) -> np.ndarray:
    """Per start, the squares of the pieces the focus takes there."""
    frame = cm.frame
    rows = ctx.rows
    if node.focus is None:  # singlecolor: the side to move's
        return np.where(frame.wtm[rows].astype(bool), frame.white[rows], frame.black[rows])
    return cm.eval(node.focus, ctx).board(node.focus) & frame.occupied[rows]


def _sides(cm: Columnar, squares: np.ndarray, rows: np.ndarray) -> np.ndarray:
    white, black = cm.frame.white[rows], cm.frame.black[rows]
    return np.select([squares == 0, squares == white, squares == black], [_NOBODY, _WHITE, _BLACK], _BOTH)


def _side_focus(frame, side: int, capture: bool) -> np.ndarray:
    """Per row, whether the move reaching it is in focus when the focus is ``side``'s pieces:
    one of them moves (castling: the king does), or with ``capture`` one is taken."""
    size = frame.size
    has = frame.parent >= 0
    mover_white = np.zeros(size, bool)
    mover_white[has] = frame.wtm[frame.parent[has]].astype(bool)
    moved = has & ~frame.null_move.astype(bool)
    mine = {_NOBODY: np.zeros(size, bool), _WHITE: mover_white, _BLACK: ~mover_white,
            _BOTH: np.ones(size, bool)}[side]
    focused = moved & mine
    if capture and side in (_WHITE, _BLACK):
        takes = (frame.captured >= 0) | frame.en_passant.astype(bool)
        focused |= moved & ~mine & takes
    return focused


def _walks(cm: Columnar, node: ast.Path, side: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The walks from every frame row, where they read no variable (kept for the frame, per side)."""
    key = ("path", id(node), side)
    entry = cm.memo.get(key)
    if entry is None or entry[0] is not node:
        machine = _machine(cm, node)
        forest = _frame_forest(cm)
        focused = None if side is None else _side_focus(cm.frame, side, node.focus_capture)[forest.rows]
        moves, last = longest(forest, machine, _verdicts(cm, machine, forest, None), focused)
        every_moves, every_last = np.empty_like(moves), np.empty_like(last)
        every_moves[forest.rows], every_last[forest.rows] = moves, last
        entry = (node, every_moves, every_last)
        cm.memo[key] = entry
    return entry[1], entry[2]


def _named(cm: Columnar) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per frame row, the names (root squares, -1 for none) of the piece that made the move into
    it, of the rook that castled with it, and of the piece it took."""
    entry = cm.memo.get("path names")
    if entry is None:
        frame = cm.frame
        try:
            ids = frame.piece_ids
        except LookupError as error:
            raise NotColumnar(None, str(error)) from None
        size = frame.size
        rows = np.flatnonzero((frame.parent >= 0) & ~frame.null_move.astype(bool) & (frame.move_from >= 0))
        before = frame.parent[rows]
        mover, rook, taken = (np.full(size, -1, np.int64) for _ in range(3))
        mover[rows] = ids[before, frame.move_from[rows]]
        castles = rows[frame.castle[rows] >= 0]
        rook[castles] = ids[frame.parent[castles], frame.rook_from[castles]]
        square = frame.move_to[rows] + np.where(frame.en_passant[rows].astype(bool),
                                                np.where(frame.wtm[rows].astype(bool), 8, -8), 0)
        took = (frame.captured[rows] >= 0) | frame.en_passant[rows].astype(bool)
        taken[rows[took]] = ids[before[took], square[took]]
        entry = (mover, rook, taken)
        cm.memo["path names"] = entry
    return entry


def _names_on(cm: Columnar, squares: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Per start, the names of the pieces on ``squares`` there, as a mask of bits: a square at a
    time (a focus is a piece or two, mostly), not a look at all 64 of every start."""
    try:
        ids = cm.frame.piece_ids
    except LookupError as error:
        raise NotColumnar(None, str(error)) from None
    mask = np.zeros(len(rows), np.uint64)
    left = squares.copy()
    index = np.flatnonzero(left)
    while len(index):
        name = ids[rows[index], lowest_square(left[index])].astype(np.int64)
        on = name >= 0
        mask[index[on]] |= np.left_shift(np.uint64(1), name[on].astype(np.uint64))
        left[index] &= left[index] - np.uint64(1)
        index = index[left[index] != 0]
    return mask


def _value_key(cm: Columnar, name: str, value, node: ast.Path) -> list[np.ndarray]:
    """Columns that tell the values of a variable apart, per start."""
    if isinstance(value, PieceVar):  # a piece: its name, wherever it was bound
        try:
            ids = cm.frame.piece_ids
        except LookupError as error:
            raise NotColumnar(node, str(error)) from None
        some = value.bits != 0
        square = np.where(some, lowest_square(np.where(some, value.bits, np.uint64(1))), 0)
        return [np.where(some, ids[value.rows, square].astype(np.int64), -2)]
    if isinstance(value, Val):
        if value.kind == BOOL:
            return [value.ok.astype(np.int64)]
        return [value.ok.astype(np.int64), np.where(value.ok, value.data, 0).astype(np.int64)]
    raise NotColumnar(node, f"a path reading the variable {name} of this kind")


def _classed(cm: Columnar, node: ast.Path, ctx: Ctx) -> tuple[np.ndarray, np.ndarray]:
    """(moves, last) of the first longest walk from each start of ``ctx``, its starts in classes
    that read the same values (see the module's docstring). A start whose first move cannot be
    made (:func:`_may_start`) is answered at once: in a piece loop most are, and a class's copy
    of its game is the cost."""
    focus = node.focus is not None or "singlecolor" in node.params
    mask = _names_on(cm, _focus_squares(cm, node, ctx), ctx.rows) if focus else None
    machine = _machine(cm, node)
    moves = np.full(len(ctx), -1, np.int64)
    last = np.zeros(len(ctx), np.int64)
    alive = np.flatnonzero(_may_start(cm, node, machine, ctx, mask))
    if len(alive):
        found = _classed_starts(cm, node, machine, ctx.take(alive), None if mask is None else mask[alive])
        moves[alive], last[alive] = found
    return moves, last


def _may_start(cm: Columnar, node: ast.Path, machine: Machine, ctx: Ctx, mask: np.ndarray | None) -> np.ndarray:
    """Per start, whether some walk gets past its first move: the tests met before it hold there,
    and some child is reached by it (in focus, with a focus). Necessary, not sufficient."""
    frame = cm.frame
    rows = ctx.rows
    size = len(rows)
    first, order = frame.children
    counts = first[rows + 1] - first[rows]
    owner = np.repeat(np.arange(size), counts)
    child = order[first[rows][owner] + np.arange(len(owner)) - np.repeat(np.cumsum(counts) - counts, counts)] \
        if len(owner) else np.zeros(0, np.int64)
    has, main = _main(cm)
    reachable = np.ones(len(child), bool)
    if mask is not None:
        mover, rook, taken = _named(cm)
        names = mask[owner]
        reachable = _holds(names, mover[child]) | _holds(names, rook[child])
        if node.focus_capture:
            reachable |= _holds(names, taken[child])
    elif "primary" in node.params:
        reachable = main[child]
    can: dict[int, np.ndarray] = {}
    for index in reversed(machine.premove):
        step = machine.steps[index]
        kind = step[0]
        if kind == "end":
            can[index] = np.zeros(size, bool)  # a walk of no move is no match
        elif kind == "choose":
            can[index] = np.zeros(size, bool)
            for option in step[1]:
                can[index] |= can[option]
        elif kind == "test":
            item, later = step[1], can[step[2]]
            verdict = np.zeros(size, bool)
            asked = np.flatnonzero(later)
            if len(asked):
                if isinstance(item, ast.Keyword) and item.name in _WALK_KEYWORDS:
                    verdict[asked] = (has & (main if item.name == "primary" else ~main))[rows[asked]]
                else:
                    verdict[asked] = cm.test(item, Ctx(rows[asked], {k: v.take(asked) for k, v in ctx.vars.items()},
                                                       None, True))
            can[index] = verdict
        else:
            pairs = np.flatnonzero(reachable)
            made = np.zeros(size, bool)
            if len(pairs):
                at = owner[pairs]
                asked = Ctx(rows[at], {k: v.take(at) for k, v in ctx.vars.items()}, child[pairs], True)
                made[at[cm.test(step[1], asked)]] = True
            can[index] = made
    return can[machine.start]


def _classed_starts(cm: Columnar, node: ast.Path, machine: Machine, ctx: Ctx, mask: np.ndarray | None
                    ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_classed` for the starts that may match."""
    frame = cm.frame
    rows = ctx.rows
    reads = sorted(_reads(cm, node, node))
    columns = [frame.start[rows]]
    for name in reads:
        if name not in ctx.vars:
            raise NotColumnar(node, f"the variable {name} is not bound where the path is asked")
        columns += _value_key(cm, name, ctx.vars[name], node)
    if mask is not None:
        columns.append(mask.view(np.int64))
    first, klass = _classes(columns)
    count = len(first)
    low = np.full(count, frame.size, np.int64)
    high = np.full(count, -1, np.int64)
    np.minimum.at(low, klass, rows)
    np.maximum.at(high, klass, frame.last[rows])
    moves = np.full(len(rows), -1, np.int64)
    last = np.zeros(len(rows), np.int64)
    spans = high - low + 1
    begin = 0
    while begin < count:  # a few classes at a time, so that the cells stay within CELLS
        total = np.cumsum(spans[begin:]) * len(machine.steps)
        end = begin + max(1, int(np.searchsorted(total, CELLS, side="right")))
        group = np.arange(begin, end)
        _work(cm, node, machine, ctx, group, first[group], low[group], spans[group], mask, klass, moves, last)
        begin = end
    return moves, last


def _classes(columns: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(a start of each class, each start's class) of the starts whose ``columns`` are equal."""
    order = np.lexsort(columns[::-1])
    change = np.zeros(len(order), bool)
    if len(order):
        change[0] = True
    for column in columns:
        ranked = column[order]
        change[1:] |= ranked[1:] != ranked[:-1]
    klass = np.empty(len(order), np.int64)
    klass[order] = np.cumsum(change) - 1
    return order[change], klass


def _work(cm: Columnar, node: ast.Path, machine: Machine, ctx: Ctx, group: np.ndarray, firsts: np.ndarray,
          low: np.ndarray, spans: np.ndarray, mask: np.ndarray | None, klass: np.ndarray, moves: np.ndarray,
          last: np.ndarray) -> None:
    """The walks of the classes ``group``, each on its own copy of the rows below its starts."""
    frame = cm.frame
    offsets = np.r_[0, np.cumsum(spans)]
    total = int(offsets[-1])
    owner = np.repeat(np.arange(len(group)), spans)  # the class of each copied row
    copied = low[owner] + np.arange(total) - offsets[:-1][owner]
    up = frame.parent[copied]
    inside = up >= low[owner]
    parent = np.where(inside, up - low[owner] + offsets[:-1][owner], -1)
    forest, rank = in_level_order(copied, parent, frame.depth[copied])
    owner = owner[np.argsort(rank)]  # in the forest's order
    inputs = {name: value.take(firsts[owner]) for name, value in ctx.vars.items()}
    focused = None
    if mask is not None:
        mover, rook, taken = _named(cm)
        names = mask[firsts[owner]]
        focused = _holds(names, mover[forest.rows]) | _holds(names, rook[forest.rows])
        if node.focus_capture:
            focused |= _holds(names, taken[forest.rows])
    found_moves, found_last = longest(forest, machine, _verdicts(cm, machine, forest, inputs), focused)
    at = np.isin(klass, group)
    local = np.searchsorted(group, klass[at])
    index = rank[offsets[local] + ctx.rows[at] - low[local]]
    moves[at], last[at] = found_moves[index], found_last[index]


def _holds(names: np.ndarray, name: np.ndarray) -> np.ndarray:
    """Whether ``name`` (-1: none) is among the bits of ``names``."""
    some = name >= 0
    bit = np.left_shift(np.uint64(1), np.maximum(name, 0).astype(np.uint64))
    return some & ((names & bit) != 0)


@kernel(ast.Path)
def path(cm: Columnar, node: ast.Path, ctx: Ctx) -> Val:
    why = why_not(node, cm.query.body)
    if why is not None:
        raise NotColumnar(node, why)
    rows = ctx.rows
    focus = node.focus is not None or "singlecolor" in node.params
    if _reads(cm, node, node) or (node.focus is not None and not _whole_side(node.focus)):
        moves, last = _classed(cm, node, ctx)
    elif not focus:
        every_moves, every_last = _walks(cm, node, None)
        moves, last = every_moves[rows], every_last[rows]
    else:
        sides = _sides(cm, _focus_squares(cm, node, ctx), rows)
        moves = np.full(len(rows), -1, np.int64)
        last = np.zeros(len(rows), np.int64)
        for side in np.unique(sides).tolist():
            here = sides == side
            every_moves, every_last = _walks(cm, node, side)
            moves[here], last[here] = every_moves[rows[here]], every_last[rows[here]]
    ok = moves >= 1  # a walk of no move is no match
    if node.low is not None:
        ok &= (node.low <= moves) & (moves <= node.high)
    if "nestban" in node.params:
        ok = _ban(cm.frame, rows, ok, last)
    if "lastposition" in node.params:
        return Val(POS, np.where(ok, last, 0), ok)
    return number(np.where(ok, moves, 0), ok)
