"""Sets of squares on columns: piece designators, set algebra, attacks, directions, squares' facts.

The answers are those of :mod:`cqlindex.filters.sets.python`: a piece attacks a square when an
enemy king there would be in check from it (pinned pieces attack, pawns attack diagonally), as
python-chess's ``attacks_mask``. ``S attacks T`` is found the other way round, from T: the
squares a knight on T would reach hold the knights that attack T, and so for each piece kind,
so one fill per kind answers every square of S at once.
"""

from __future__ import annotations

import numpy as np

from cqlindex.board import material
from cqlindex.board.directions import direction_mask
from cqlindex.columnar import bitboards as B
from cqlindex.columnar.engine import Columnar, Ctx, every_row, kernel
from cqlindex.columnar.narrowing import narrows
from cqlindex.columnar.values import NUM, POS, SET, NotColumnar, Val, distinct, matched, number, one_square, squares
from cqlindex.cql import ast

_LETTERS = "KQRBNPkqrbnp"
_POWER = (0, 9, 5, 3, 3, 1)  # K Q R B N P
#: The letters the ``material`` column counts, and those with the kings.
_COUNTED = frozenset(material.SHIFTS)
_COUNTED_OR_KINGS = _COUNTED | {"K", "k"}


def occupancy(cm: Columnar, letters: frozenset[str]) -> np.ndarray:
    """The squares holding one of ``letters`` (``_``: empty) at every row of the frame, kept per frame."""
    key = ("pieces", letters)
    entry = cm.memo.get(key)
    if entry is None:
        frame = cm.frame
        mask = np.zeros(frame.size, np.uint64)
        for index, letter in enumerate(_LETTERS):
            if letter in letters:
                mask |= frame.boards[index]
        if "_" in letters:
            mask |= ~frame.occupied
        entry = cm.memo[key] = mask
    return entry


@kernel(ast.Pieces)
def pieces(cm: Columnar, node: ast.Pieces, ctx: Ctx) -> Val:
    if len(node.pieces) == 13:
        return squares(np.full(len(ctx), node.squares, np.uint64))
    return squares(occupancy(cm, node.pieces)[ctx.rows] & np.uint64(node.squares))


def kinds(cm: Columnar, rows: np.ndarray) -> tuple[np.ndarray, ...]:
    """(kings, queens, rooks, bishops, knights, white pawns, black pawns, occupied) at ``rows``.
    Kept for the frame, and gathered once for the last row array asked: ``A attacks (. attackedby
    k)`` asks twice at the same rows."""
    table = cm.memo.get(("kinds",))
    if table is None:
        boards = cm.frame.boards
        table = cm.memo[("kinds",)] = (boards[0] | boards[6], boards[1] | boards[7], boards[2] | boards[8],
                                       boards[3] | boards[9], boards[4] | boards[10], boards[5], boards[11],
                                       cm.frame.occupied)
    if every_row(rows, cm.frame.size):  # the frame's own columns: no copy of eight columns
        return table
    last = cm.memo.get(("kinds at",))
    if last is None or last[0] is not rows:
        last = cm.memo[("kinds at",)] = (rows, tuple(column[rows] for column in table))
    return last[1]


def _by_square(fast, slow, cm: Columnar, rows: np.ndarray, boards: np.ndarray) -> np.ndarray:
    """``slow`` (fills from any set of squares), but ``fast`` (tables of one square) on the rows
    whose set is one square: an iteration's variable, the usual case."""
    single = np.bitwise_count(boards) == 1
    if not single.any():
        return slow(cm, rows, boards)
    if single.all():  # a king, a piece variable: no rows to pick out and scatter back
        return fast(cm, rows, B.lowest_square(boards))
    out = np.zeros(len(rows), np.uint64)
    one = np.flatnonzero(single)
    out[one] = fast(cm, rows[one], B.lowest_square(boards[one]))
    rest = np.flatnonzero(~single)
    out[rest] = slow(cm, rows[rest], boards[rest])
    return out


def _attackers_of_square(cm: Columnar, rows: np.ndarray, square: np.ndarray) -> np.ndarray:
    kings, queens, rooks, bishops, knights, white_pawns, black_pawns, occupied = kinds(cm, rows)
    return B.attackers_of_square(square, occupied, kings, queens, rooks, bishops, knights, white_pawns, black_pawns)


def _attacks_of_square(cm: Columnar, rows: np.ndarray, square: np.ndarray) -> np.ndarray:
    """The squares attacked by the piece on ``square`` (none where it is empty): each piece kind's
    look-up only at the rows where that kind stands there, and where it stands there at every row
    (``. attackedby k``: a king), that kind's look-up alone, with no rows picked out."""
    kings, queens, rooks, bishops, knights, white_pawns, black_pawns, occupied = kinds(cm, rows)
    bit = B.bits_of(square)
    out = np.zeros(len(rows), np.uint64)
    for board, table in ((kings, B.KING), (knights, B.KNIGHT), (white_pawns, B.WHITE_PAWN),
                         (black_pawns, B.BLACK_PAWN)):
        here = (board & bit) != 0
        if here.all():  # one piece a square: nothing else stands there
            return table[square]
        here = np.flatnonzero(here)
        if len(here):
            out[here] = table[square[here]]
    for movers, attacks_from in ((rooks | queens, B.rook_attacks_from), (bishops | queens, B.bishop_attacks_from)):
        here = np.flatnonzero(movers & bit)
        if len(here):
            out[here] |= attacks_from(square[here], occupied[here])
    return out


def attackers_of(cm: Columnar, rows: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """The squares whose piece attacks some square of ``targets``."""
    return _by_square(_attackers_of_square, _attackers_of_set, cm, rows, targets)


def attacked_from(cm: Columnar, rows: np.ndarray, sources: np.ndarray) -> np.ndarray:
    """The squares attacked by the pieces on ``sources``."""
    return _by_square(_attacks_of_square, _attacked_from_set, cm, rows, sources)


def _attackers_of_set(cm: Columnar, rows: np.ndarray, targets: np.ndarray) -> np.ndarray:
    kings, queens, rooks, bishops, knights, white_pawns, black_pawns, occupied = kinds(cm, rows)
    out = knights & B.knight_attacks(targets)
    out |= kings & B.king_attacks(targets)
    out |= (rooks | queens) & B.rook_attacks(targets, occupied)
    out |= (bishops | queens) & B.bishop_attacks(targets, occupied)
    out |= white_pawns & B.black_pawn_attacks(targets)  # a white pawn attacks where a black one would be attacked from
    out |= black_pawns & B.white_pawn_attacks(targets)
    return out


def _attacked_from_set(cm: Columnar, rows: np.ndarray, sources: np.ndarray) -> np.ndarray:
    kings, queens, rooks, bishops, knights, white_pawns, black_pawns, occupied = kinds(cm, rows)
    return B.attacked_by(occupied, *(board & sources for board in (kings, queens, rooks, bishops, knights,
                                                                   white_pawns, black_pawns)))


def set_binary(cm: Columnar, node: ast.Binary, ctx: Ctx) -> Val:
    left = cm.eval(node.left, ctx)
    right = cm.eval(node.right, ctx)
    if node.op == "&" and left.kind == right.kind == POS:
        return squares(same_contents(cm, left.data, right.data), left.ok & right.ok)
    if left.kind != SET or right.kind != SET:
        raise NotColumnar(node, f"'{node.op}' on a {left.kind} and a {right.kind}")
    ok = left.ok & right.ok
    a, b = left.data, right.data
    if node.op == "|":
        return squares(a | b, ok)
    if node.op == "&":
        return squares(a & b, ok)
    if node.op == "in":
        return matched(ok & ((a & ~b) == 0))
    maps = attackers_of if node.op == "attacks" else attacked_from
    found = cm.distinct(ctx) if cm.reads_position_only(node.right) else None
    if found is not None:  # 'x attackedby A' in an iteration: A's attacks once per position
        inner, back = found
        side = cm.eval(node.right, inner)
        return squares(a & maps(cm, inner.rows, side.data)[back], ok)
    return squares(a & maps(cm, ctx.rows, b), ok)


@narrows(ast.Binary)
def _within(cm: Columnar, node: ast.Binary, var: str):
    """With x the variable and S a set of the position alone: ``x & S``, ``S & x`` and ``x in S``
    hold where x is in S; ``x attackedby S`` and ``S attacks x`` where x is among S's attacks;
    ``x attacks S`` and ``S attackedby x`` where x is among S's attackers (an attack read from
    either end is the same attack)."""
    mine = [isinstance(side, ast.Variable) and side.name == var for side in (node.left, node.right)]
    if mine[0] == mine[1]:
        return None
    other = node.right if mine[0] else node.left
    if node.op == "&" or (node.op == "in" and mine[0]):
        maps = None
    elif node.op in ("attacks", "attackedby"):
        maps = attacked_from if (node.op == "attackedby") == mine[0] else attackers_of
    else:
        return None
    if not cm.reads_position_only(other):
        return None

    def within(ctx: Ctx) -> np.ndarray:
        board = cm.eval(other, ctx).board(other)  # not a set: refused, as the kernel refuses it
        return board if maps is None else maps(cm, ctx.rows, board)

    return within


def same_contents(cm: Columnar, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``x & y`` of two positions: the squares holding the same piece, or empty, in both."""
    boards = cm.frame.boards
    same = np.zeros(len(a), np.uint64)
    for index in range(12):
        same |= boards[index, a] & boards[index, b]
    occupied = cm.frame.occupied
    return same | (~occupied[a] & ~occupied[b])


def piece_type_at(cm: Columnar, rows: np.ndarray, bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(python-chess piece type 1-6 or 0 on an empty square, white) of the one-square boards ``bits``."""
    boards = cm.frame.boards[:, rows]
    kind = np.zeros(len(rows), np.int64)
    white = np.zeros(len(rows), bool)
    for index in range(12):
        here = (boards[index] & bits) != 0
        kind[here] = 6 - index % 6  # K Q R B N P -> 6 5 4 3 2 1
        white |= here & (index < 6)
    return kind, white


def set_unary(cm: Columnar, node: ast.Unary, ctx: Ctx) -> Val:
    if node.op in ("#", "power") and _whole_kinds(cm, node.arg, node.op == "power"):
        key = ("material", node.op, node.arg.pieces)  # once per frame for every node that says it
        table = cm.memo.get(key)
        if table is None:
            table = cm.memo[key] = _from_material(cm.frame.material, node.arg.pieces, node.op == "power")
        return number(table[ctx.rows], np.ones(len(ctx), bool))
    value = cm.eval(node.arg, ctx)
    if value.kind != SET:
        if node.op == "#" and value.kind not in (NUM, "bool", "pos"):
            raise NotColumnar(node, f"'#' of a {value.kind}")
        return Val(NUM if node.op in ("#", "power", "rank", "file", "type", "colortype") else SET,
                   np.zeros(len(ctx), np.int64 if node.op in ("#", "power", "rank", "file", "type", "colortype")
                            else np.uint64), np.zeros(len(ctx), bool))  # not a set: no value
    data, ok = value.data, value.ok
    if node.op == "#":
        return number(np.bitwise_count(data).astype(np.int64), ok)
    if node.op == "~":
        return squares(~data, ok)
    if node.op in ("light", "dark"):
        return squares(data & (B.LIGHT if node.op == "light" else B.DARK), ok)
    if node.op == "power":
        if isinstance(node.arg, ast.Pieces):  # 'power A': once per frame for every node that says it
            key = ("power of", node.arg.pieces, node.arg.squares)
            table = cm.memo.get(key)
            if table is None:
                table = cm.memo[key] = _power_of_pieces(cm.frame.boards, node.arg.pieces, node.arg.squares)
            return number(table[ctx.rows], ok)
        if cm.reads_position_only(node.arg):  # once for the whole frame, then gathered
            whole = cm.everywhere(node.arg)
            key = ("power", id(node))
            entry = cm.memo.get(key)
            if entry is None or entry[0] is not node:
                entry = cm.memo[key] = (node, _power(cm.frame.boards, whole.data))
            return number(entry[1][ctx.rows], ok)
        return number(_power(cm.frame.boards[:, ctx.rows], data), ok)
    square, ok = one_square(value)
    if node.op == "rank":
        return number(square // 8 + 1, ok)
    if node.op == "file":
        return number(square % 8 + 1, ok)
    if node.op in ("type", "colortype"):
        kind, white = piece_type_at(cm, ctx.rows, B.bits_of(square))
        if node.op == "colortype":
            kind = np.where(white, kind, -kind)
        return number(kind, ok)
    raise NotColumnar(node, f"the operator {node.op}")


def _whole_kinds(cm: Columnar, node: ast.Node, kings: bool) -> bool:
    """Whether ``node`` is a designator of whole piece kinds (``A``, ``[Qq]``; with ``kings``,
    kings too, which weigh nothing) that the frame's ``material`` column counts, while the frame
    has not read its boards: a query that needs nothing else of them (``power A - power a``, p19
    of the patterns) then never reads them. The planner's SQL reads the same column for the same
    designators (cqlindex.filters.sets.sql)."""
    return (isinstance(node, ast.Pieces) and node.squares == int(B.FULL) and bool(node.pieces)
            and node.pieces <= (_COUNTED_OR_KINGS if kings else _COUNTED)
            and not cm.frame.has_boards() and cm.frame.material is not None)


def _from_material(packed: np.ndarray, letters: frozenset[str], weighed: bool) -> np.ndarray:
    """The count (or, ``weighed``, the power: Q 9, R 5, B and N 3, P 1) of the pieces of
    ``letters`` on each row, from the packed counts (a king weighs nothing)."""
    total = np.zeros(len(packed), np.int64)
    packed = packed.astype(np.int64)
    for letter in letters & _COUNTED:
        weight = _POWER[_LETTERS.index(letter) % 6] if weighed else 1
        total += weight * ((packed >> material.SHIFTS[letter]) & material.FIELD)
    return total


def _power(boards: np.ndarray, squares: np.ndarray) -> np.ndarray:
    """The material on ``squares`` of each board column (Q 9, R 5, B and N 3, P 1)."""
    total = np.zeros(len(squares), np.int64)
    for index in range(12):
        weight = _POWER[index % 6]
        if weight:
            mine = boards[index] & squares
            if mine.any():
                total += weight * np.bitwise_count(mine).astype(np.int64)
    return total


def _power_of_pieces(boards: np.ndarray, letters: frozenset[str], squares: int) -> np.ndarray:
    """:func:`_power` of a piece designator's squares, from the boards of its letters alone. Kept
    by the designator's meaning, not its node: ``flipcolor { x = power A - power a find 4 (power A
    - power a >= x + 3) }`` (p19 of the patterns) says ``power A`` four times, twice flipped."""
    total = np.zeros(boards.shape[1], np.int64)
    for index, letter in enumerate(_LETTERS):
        weight = _POWER[index % 6]
        if weight and letter in letters:
            mine = boards[index] if squares == int(B.FULL) else boards[index] & np.uint64(squares)
            total += weight * np.bitwise_count(mine).astype(np.int64)
    return total


def shift_board(boards: np.ndarray, df: int, dr: int) -> np.ndarray:
    """Boards moved ``df`` files and ``dr`` ranks, what leaves the board lost (as direction_mask)."""
    out = boards
    for _ in range(abs(df)):
        out = B.step(out, "right" if df > 0 else "left")
    if dr:
        out = B.shift(out, 8 * dr)
    return out


@kernel(ast.Direction)
def direction(cm: Columnar, node: ast.Direction, ctx: Ctx) -> Val:
    value = cm.eval(node.arg, ctx)
    if value.kind != SET:
        return Val(SET, np.zeros(len(ctx), np.uint64), np.zeros(len(ctx), bool))
    if node.distance is not None:
        steps, ok = cm.eval(node.distance, ctx).counts(node.distance)
        ok = ok & value.ok
        out = np.zeros(len(ctx), np.uint64)
        for k in distinct(steps[ok]):
            rows = ok & (steps == k)
            out[rows] = _reach(node.name, int(k), int(k), value.data[rows])
        return squares(out, ok)
    return squares(_reach(node.name, node.low, node.high, value.data), value.ok)


def _reach(name: str, low: int, high: int, boards: np.ndarray) -> np.ndarray:
    return direction_mask(name, low, high, boards, shift_board, np.zeros(len(boards), np.uint64))


def between(a: Val, b: Val) -> Val:
    """The squares between any square of ``a`` and any of ``b``: every pair of squares of a
    position at once (two rooks and a king are two pairs), the union per position."""
    ok = a.ok & b.ok
    size = len(ok)
    left, right = np.where(ok, a.data, np.uint64(0)), np.where(ok, b.data, np.uint64(0))
    if np.bitwise_count(left).max(initial=0) <= 1 and np.bitwise_count(right).max(initial=0) <= 1:
        # A square and a square, the usual case (two loop variables: 8piecesinline's million
        # pairs): one lookup a row, none of the pairing below.
        lines = B.BETWEEN[np.minimum(B.lowest_square(left), 63), np.minimum(B.lowest_square(right), 63)]
        return squares(np.where((left != 0) & (right != 0), lines, np.uint64(0)), ok)
    owner_a, bits_a = B.explode(left)
    owner_b, bits_b = B.explode(right)
    per_b = np.bincount(owner_b, minlength=size)
    first_b = np.cumsum(per_b) - per_b
    repeats = per_b[owner_a]  # each square of a meets every square of b of its position
    pair_a = np.repeat(np.arange(len(owner_a)), repeats)
    rank = np.arange(len(pair_a)) - np.repeat(np.cumsum(repeats) - repeats, repeats)
    pair_b = first_b[owner_a[pair_a]] + rank
    lines = B.BETWEEN[B.lowest_square(bits_a)[pair_a], B.lowest_square(bits_b)[pair_b]]
    return squares(B.or_by_owner(owner_a[pair_a], lines, size), ok)


@kernel(ast.Call)
def call(cm: Columnar, node: ast.Call, ctx: Ctx) -> Val:
    if node.name in ("max", "min"):
        pick = np.maximum if node.name == "max" else np.minimum
        values, ok = cm.eval(node.args[0], ctx).counts(node.args[0])
        for arg in node.args[1:]:
            more, more_ok = cm.eval(arg, ctx).counts(arg)
            values, ok = pick(values, more), ok & more_ok
        return number(values, ok)
    if node.name == "between":
        a, b = (cm.eval(arg, ctx) for arg in node.args)
        if a.kind != SET or b.kind != SET:
            return Val(SET, np.zeros(len(ctx), np.uint64), np.zeros(len(ctx), bool))
        return between(a, b)
    if node.name == "makesquare" and len(node.args) == 2:
        f, r = (cm.eval(arg, ctx) for arg in node.args)
        if f.kind != NUM or r.kind != NUM:
            return Val(SET, np.zeros(len(ctx), np.uint64), np.zeros(len(ctx), bool))
        ok = f.ok & r.ok & (f.data >= 1) & (f.data <= 8) & (r.data >= 1) & (r.data <= 8)
        square = np.where(ok, (r.data - 1) * 8 + f.data - 1, 0)
        return squares(B.bits_of(square), ok)
    if node.name in ("typename", "piecename"):
        from cqlindex.columnar.kernels_strings import piece_name

        return piece_name(cm, node, ctx)
    if node.name == "pieceid":
        from cqlindex.columnar.kernels_strings import piece_id

        return piece_id(cm, node, ctx)
    from cqlindex.columnar.kernels_tree import tree_call

    return tree_call(cm, node, ctx)
