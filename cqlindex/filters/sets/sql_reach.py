"""The SQL bound of ``A attacks Z``: only a piece standing on a square its kind reaches Z from
(:mod:`cqlindex.board.reach`) can attack Z, so each piece column is masked by its kind's reach,
in the same single scan.

Z known when planning gives constant masks. Z that moves with a king (``A attacks (. attackedby
k)``, a king zone) gives a mask per square of that king: a 65-entry constant list read at the
king's square, one list lookup a piece kind. A CASE over the king's square with a leaf of
constants per square narrowed p24 of the patterns as much (10.5 M to some 20,000 candidates on
the whole file) but cost 0.4-0.6 s a colour: DuckDB pays for every node of an expression once per
vector of rows; a list lookup is one node.
"""

from __future__ import annotations

from sqlglot import exp

from cqlindex.board.reach import ALL, reach
from cqlindex.plan import sql as S
from cqlindex.plan.terms import LETTERS, PIECE_COLUMNS

#: The kind :func:`reach` knows each letter's piece by (a pawn by its colour).
_KIND = {letter: letter.upper() if letter != "p" else "p" for letter in LETTERS}


def standing_to_attack(colours: str, targets: int, alias: str) -> exp.Expression:
    """The pieces of ``colours`` ("w", "b") that stand where their kind reaches a square of
    ``targets``: each piece column masked by its reach (a column whose kind reaches from
    everywhere, unmasked; one that reaches from nowhere, left out)."""
    parts = []
    for letter, column in zip(LETTERS, PIECE_COLUMNS):
        if ("w" if letter.isupper() else "b") not in colours:
            continue
        squares = reach(_KIND[letter], targets)
        if squares == ALL:
            parts.append(S.col(column, alias))
        elif squares:
            parts.append(S.band(S.col(column, alias), S.mask(squares)))
    return S.bor(*parts) if parts else S.num(0)


def king_index(column: str, alias: str) -> exp.Expression:
    """Where :func:`at_king`'s tables hold the entry for the square of the one piece in ``column``
    (a king's): ``bit_count((k >> 1) - 1) + 1`` is 1-62 for b1-g8, 64 for h8 (whose bit is the
    sign: the shift keeps it, where ``k - 1`` would overflow) and 65 for a1. Read only where the
    column holds one piece: guarding each lookup against none or several cost DuckDB more than
    the lookups (0.07 s an index over the whole file)."""
    king = S.col(column, alias)
    below = exp.Sub(this=S.paren(exp.BitwiseRightShift(this=king, expression=S.num(1))), expression=S.num(1))
    return exp.Add(this=S.popcount(below), expression=S.num(1))


def at_king(table: tuple[int, ...], index: exp.Expression) -> exp.Expression:
    """The bitboard of ``table`` (one a king square, a1 to h8) at ``index`` (:func:`king_index`)."""
    # Each entry a BIGINT constant (S.mask), not the list cast as a whole: a literal of h8's bit
    # alone reads as a wider integer, and a list of those would make every AND 128-bit.
    entries = [*table[1:63], ALL, table[63], table[0]]
    # 1-based (offset), and safe=False: Spark reads it with ELEMENT_AT, 1-based too; its [i] is 0-based.
    return exp.Bracket(this=exp.Array(expressions=[S.mask(v) for v in entries]), expressions=[index.copy()],
                       offset=1, safe=False)


def standing_to_attack_around(colours: str, zones: tuple[int, ...], index: exp.Expression, alias: str) -> exp.Expression:
    """:func:`standing_to_attack` of a Z that is within ``zones[s]`` where a king stands on s
    (``index``: :func:`king_index`). A queen reaches what a rook or a bishop does, so its column
    goes with theirs (``(wq | wr) & R[s] | (wq | wb) & B[s]``): a lookup fewer a colour."""
    by_kind: dict[str, list[exp.Expression]] = {}
    for letter, piece_column in zip(LETTERS, PIECE_COLUMNS):
        if ("w" if letter.isupper() else "b") in colours:
            for kind in ("R", "B") if letter in "Qq" else (_KIND[letter],):
                by_kind.setdefault(kind, []).append(S.col(piece_column, alias))
    parts = []
    for kind, columns in by_kind.items():
        table = tuple(reach(kind, z) for z in zones)
        if all(t == ALL for t in table):
            parts.append(S.bor(*columns))
        elif any(table):
            parts.append(S.band(S.paren(S.bor(*columns)) if len(columns) > 1 else columns[0], at_king(table, index)))
    return S.bor(*parts) if parts else S.num(0)
