"""Moves: SQL against Python on every position of the filter indexes (see differential.py).

Covers move with from to capture promote previous enpassant null o-o o-o-o castle legal
pseudolegal primary secondary enpassantsquare, the dash filters -- [x] with promotions and
targets, from and to, CQL 6.2's legal/pseudolegal dashes and countmoves; castling rows matter most on the Chess960 index.
"""

from __future__ import annotations

import pytest

from tests.filters.differential import EXACT, NARROWED, Row, cases, check
from tests.filters.reference import RefRow, check_reference, ref_cases

TABLE = [
    Row("move from N", EXACT),
    Row("move to f7", EXACT),
    Row("move from N to f7 capture p", EXACT),
    Row("move capture q", EXACT),
    Row("move previous capture q", EXACT),
    Row("move promote [RBN]", EXACT),
    Row("move promote Q", EXACT),
    Row("move previous promote N", EXACT),
    Row("move enpassant", EXACT),
    Row("move previous enpassant", EXACT),
    Row("move o-o", EXACT),
    Row("move o-o-o", EXACT),
    Row("move castle", EXACT),
    Row("move previous o-o-o", EXACT),
    Row("move null", EXACT),
    Row("nullmove", EXACT),
    Row("move legal from K", NARROWED),
    Row("move legal to h8", NARROWED),
    Row("move pseudolegal from q", NARROWED),
    Row("move legal promote Q", NARROWED),
    Row("move primary from P", EXACT),
    Row("move secondary", EXACT),
    Row("move previous secondary", EXACT),
    Row("move enpassantsquare e3", EXACT),
    Row("e2--e4", EXACT),
    Row("B[x]h7", EXACT),
    Row("K--", EXACT),
    Row("R--", EXACT),
    Row("k--g8", EXACT),
    Row("[x]Q", EXACT),
    Row("--=Q", EXACT),
    Row('--="N"', EXACT),
    Row('T = "R" --=T', NARROWED),
    Row('T = "q" P--=T', NARROWED),
    Row('T = "K" --=T', NARROWED),
    Row('T = "Q" legal P--=T', NARROWED),
    Row('if wtm T = "Q" else T = "n" [Pp]--=T', NARROWED),            # a letter per position
    Row('function F(T){ path --=T --=T } F("Q")', NARROWED),          # babson1.cql's reciprocal promotions
    Row("P--=N", EXACT),
    Row("Q--(check)", EXACT),
    Row("--(o-o)", EXACT),
    Row("enpassant", EXACT),
    Row("--(o-o-o)", EXACT),
    Row("--(castle)", EXACT),
    Row("[x](enpassant)", EXACT),
    Row("--(mate from)", EXACT),
    Row("x = e4--(to) x", NARROWED),
    # 'to' and 'from' as sets are the stored move columns (a castling rook's, a null move's king)
    Row("from & K", EXACT),
    Row("to & N", EXACT),
    Row("to & [a1,h1,a8,h8,f1,d1,f8,d8]", EXACT),
    Row("from & [a1,h1,a8,h8]", EXACT),
    Row("#to == 2", EXACT),
    Row("not to & [a-h2-7]", EXACT),
    # a recapture (p16 of the pattern benchmark): the next move takes on the square just moved to
    Row("move capture to", EXACT),
    Row("move capture from", EXACT),
    Row("child : move capture to", EXACT),
    Row("wtm move capture [qrbn] child : move capture to", EXACT),
    # two EXISTS over the same main-line child, merged into one (plan/same_child.py)
    Row("move from N move to [c3,f3,c6,f6]", EXACT),
    Row("move capture q child : child : move capture to child : move from [KQ]", EXACT),
    Row("not {move capture p child : move capture to}", EXACT),
    Row("move from P {child : move to [a-h8]} not move capture [a-h1-8]", EXACT),
    Row("K--g1", EXACT),
    Row("k--c8", EXACT),
    Row("R--f1", EXACT),
    Row("r--d8", EXACT),
    Row("move from K to g1", EXACT),
    Row("move previous from k to c8", EXACT),
    Row("move from R to d1", EXACT),
    Row("[x]R", EXACT),
    Row("K[x]", EXACT),
    Row("move capture R from K", EXACT),
    Row("move o-o from K to g1", EXACT),
    Row("--(o-o) Kg1 Rf1", EXACT),
    Row("move legal o-o", NARROWED),
    Row("move pseudolegal o-o-o", NARROWED),
    # CQL 6.2 generated-move dashes and countmoves: the stored legal-move count decides the bare forms
    Row("legal --", EXACT),
    Row("not legal --", EXACT),
    Row("legal --(castle)", NARROWED),
    Row("legal --(o-o-o)", NARROWED),
    Row("legal --(enpassant)", NARROWED),
    Row("legal K--", NARROWED),
    Row("legal R--f1", NARROWED),
    Row("legal P--=Q", NARROWED),
    Row("pseudolegal k--", NARROWED),
    Row("countmoves legal -- == 1", NARROWED),  # a promotion counts once: not the stored count
    Row("countmoves legal -- > 30", NARROWED),
    Row("countmoves pseudolegal K-- > countmoves legal K--", NARROWED),
    Row("countmoves -- >= 2", NARROWED),
    Row("countmoves [x] == 1", NARROWED),
    Row("move legal count == 1", NARROWED),  # the stored count bounds it: a promotion counts once
    Row("currentmove P--", NARROWED),
    Row("currentmove [x]q", NARROWED),
    Row("move legal from K count > 2", NARROWED),
    Row("move pseudolegal count > move legal count", NARROWED),
    # the value of 'legal F--G': the squares its moves go to (issue 18)
    Row("#legal -- > 30", NARROWED),
    Row("x = legal K-- #x == 0 check", NARROWED),
    Row("legal N--d5 & d5", NARROWED),
    Row("pseudolegal K-- == legal K--", NARROWED),
    Row("legal --(o-o) & [g1,g8]", NARROWED),
]


@pytest.mark.parametrize("row, cell", cases(TABLE))
def test_sql_against_python(filter_indexes, row: Row, cell: tuple[str, bool]) -> None:
    check(filter_indexes, row, cell)


#: Held to the reference engine's answers (tests/filters/reference.py), on both engines (issue 35).
REFERENCE = [
    # the number of legal moves counts a promotion once, whatever the pawn becomes
    RefRow("move legal count < 5", variations=True),
    RefRow("move count legal > 10", variations=True),
    RefRow("move legal count == 1", variations=True),
    RefRow("move pseudolegal count < 5", variations=True),
    RefRow("move legal from P count > 2"),
    # a move filter whose value is a set has one everywhere: empty where no move matches, the
    # first position included (no previous move there)
    RefRow("move from A previous | K"),
    RefRow("(move to a previous) | K", variations=True),
    RefRow("#(move from A previous) == 0"),
    RefRow("~ move to . previous"),
    RefRow("x = move from A previous"),
    RefRow("(move from K previous) & K"),
    RefRow("(move from A legal) | K"),
    RefRow("move from A previous"),
    RefRow("v=--e5(to)", variations=True),  # a target whose value is a set: empty where no move
    RefRow("from", variations=True),  # after a null move: its king's square (game 250)
    RefRow("to & K", variations=True),
    RefRow("#(e4--e5(to)) == 0"),
    # 'enpassant' alone: the move that led here took en passant, as inside a dash's target
    RefRow("enpassant", variations=True),
    RefRow("not enpassant btm"),
    # consecutivemoves: a promotion to another piece is the same move
    RefRow("Pa = child(0) Pb = child(1) consecutivemoves (Pa Pb) > 0", variations=True),
    RefRow("Pa = child(1) Pb = child(2) consecutivemoves (Pa Pb) > 0", variations=True),
    RefRow("Pa = child(0):child Pb = child(1):child consecutivemoves (Pa Pb) > 1", variations=True),
]


@pytest.mark.parametrize("row, engine", ref_cases(REFERENCE))
def test_against_the_reference(build_db, row: RefRow, engine: str) -> None:
    check_reference(build_db, row, engine)
