"""The SQL bound of ``A attacks Z`` where Z is known when planning: only a piece standing on a
square its kind reaches Z from (:mod:`cqlindex.board.reach`) can attack Z, so each piece column
is masked by its kind's reach, constants all, in the same single scan.

Tried and left out: the same bound for a Z that moves with a king (``A attacks (. attackedby
k)``, a king zone), as a CASE over the king's square with a leaf of constants per square. It
narrowed p24 of the patterns from 10.5 M to 20,000 candidates on the whole file, but DuckDB pays
for each node of an expression once per vector of rows, whichever rows reach it: the 127-node
search took 0.4-0.6 s a colour even where a guard left 2% of the rows, more than the columnar
engine takes to confirm the 10.5 M rows the attack maps let through.
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
