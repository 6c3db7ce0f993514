"""Sets and squares: SQL against Python on every position of the filter indexes (see differential.py).

Covers piece designators in every form, | & ~ in #, attacks attackedby -> <-, the
directions with ranges, between makesquare, pin ray xray, square and piece [all].
"""

from __future__ import annotations

import pytest

from tests.filters.differential import EXACT, NARROWED, Row, cases, check

TABLE = [
    Row("Ka1 kh8", EXACT),
    Row("K", EXACT),
    Row("A", EXACT),
    Row("a", EXACT),
    Row("_", EXACT),
    Row(".", EXACT),
    Row("[RQ]a-h8 & ~R", EXACT),
    Row("[Aa] == 2", EXACT),
    Row("[_A]e4", EXACT),
    Row("#[Aa] <= 8 btm", EXACT),
    Row("Pc1-8", EXACT),
    Row("Na-d1-4", EXACT),
    Row("[a1,b3,h1-8] & k", EXACT),
    Row("[] == 0", EXACT),
    Row("#(P | p) == 16", EXACT),
    Row("#~. > 0", EXACT),
    Row("Q in [a-h8]", EXACT),
    Row("R in A", EXACT),
    Row("Q == q", EXACT),
    Row("A attacks k", EXACT),
    Row("Q attacks k", NARROWED),
    # A count compared with '==' where one side is a bound: the bound must reach the other side.
    Row("#(a attacks K) == 2", NARROWED),
    Row("1 == #(A attacks k)", NARROWED),
    Row("#([Qq] attacks .) == #A", NARROWED),
    Row("#(a attacks K) == #(A attacks k)", NARROWED),  # bounds on both sides: no SQL for it
    # A count's bound is never below 0: compared with 0 or less it says nothing, and no SQL is written for it.
    Row("#(a attacks K) == 0 check", NARROWED),
    Row("-1 < #(A attacks [qr]) wtm", NARROWED),
    Row("#(a attacks K) <= 0", NARROWED),
    Row("_ attackedby a == 0", EXACT),
    Row("N -> q", NARROWED),
    Row("r <- B", NARROWED),
    # Arrow chains (a ray from a slider, kernels_rays._arrows): the first squares, or with <- the last.
    Row("[QRB] -> [nbrq] -> k", NARROWED),
    Row("k <- [nbrq] <- [QRB]", NARROWED),
    Row("#([QRBqrb] -> [Aa] -> [Aa]) >= 2", NARROWED),
    Row("square s in _ {[RQ] -> s -> [rq]}", NARROWED),
    Row("piece x in [Bb] {x -> _ -> [Aa] -> [Kk]}", NARROWED),
    Row("#(a attackedby A) > 3", EXACT),
    Row("up K & k", NARROWED),
    Row("down k & K", NARROWED),
    Row("left Qa-h1 & R", NARROWED),
    Row("right q & r", NARROWED),
    Row("northeast B & k", NARROWED),
    Row("northwest b & Q", NARROWED),
    Row("southeast Q & k", NARROWED),
    Row("southwest q & K", NARROWED),
    Row("#vertical K >= 6", NARROWED),
    Row("horizontal 1 k & R", NARROWED),
    Row("orthogonal 1 K & k", NARROWED),
    Row("diagonal 1-2 K & P", NARROWED),
    Row("anydirection 1 k & Q", NARROWED),
    Row("offdiagonal Bh1", NARROWED),
    Row("between(Ra1 Ka1)", NARROWED),
    Row("between(R k) & _", NARROWED),
    Row("between([QR] [kq]) & [NB]", NARROWED),  # several squares on both sides: every pair
    Row("between(A a) > 20", NARROWED),
    Row("between(Q k) & A", NARROWED),              # a square and a square, or none: one lookup a row
    Row("between(K k)", NARROWED),
    Row("piece x in [Aa] { #between(x K) == 2 }", NARROWED),
    Row("makesquare(1 1) & R", NARROWED),
    # A pin to kings is the index's pinned column (board/pins.py); other pins are bounded by it or by the attack maps.
    Row("pin", EXACT),
    Row("pin from R to k", NARROWED),
    Row("pin through N", EXACT),
    Row("pin from B through n to q", NARROWED),
    Row("pin through [qr] to k", EXACT),
    Row("pin to [Kq]", NARROWED),
    # Bounded in SQL by the attack maps: a pinned piece is attacked by the pinner's side.
    Row("#pin from [RQ] == 1", NARROWED),
    Row("pin to k & e8", NARROWED),
    Row("pin through [QRBNqrbn] through [Qq] to [Kk]", EXACT),
    Row("#pin >= 2", EXACT),
    Row("piece x in [Aa] pin through x", EXACT),
    # An iteration's domain narrowed to the pinned pieces before it makes a row per square
    # (cqlindex.columnar.narrowing): with from and to, to a piece not a king, after another member.
    Row("piece x in [qrbnp] { pin through x piece y in [qrbnp] { pin through y x != y } }", EXACT),
    # an inner iteration wanting another square than the outer's: its tests' squares less x's
    Row("piece x in Q { piece y in [Qq] { x != y } }", EXACT),  # the partner may be x alone
    Row("piece x in [Kk] { piece y in [Kk] { y != x } }", EXACT),
    Row("square x in a-h2 { x & P square y in a-h2 { y & [Pp] not (y & a2) x != y } }", EXACT),
    Row("piece x in N { piece y in N { x != y y attacks x } }", NARROWED),  # y's test reads x
    Row("piece x in N { piece y in N { x != y } piece z in B { z != x } }", NARROWED),  # two partners
    Row("square x in . { pin through x from [RQ] to k }", NARROWED),
    Row("piece x in A { pin through x to [Qk] }", NARROWED),
    Row("piece x in [Aa] { x attackedby [Aa] pin through x }", EXACT),
    Row("piece all x in [QR] { pin through x Y = 1 }", NARROWED),
    # Pins in a line, a move of the line's among the parameters.
    Row("line --> pin from (move from [QRB]) --> check", NARROWED),
    Row("line --> pin to (move to [KkQq]) --> .", NARROWED),
    # ... and to the squares a set attacks, its attackers, the set itself, read from either side.
    Row("piece x in N { x attacks k x attacks [qr] }", NARROWED),
    Row("square x in [a-h5-8] { [RQ] attacks x x & [pn] }", NARROWED),
    Row("piece x in [Aa] { [qk] attackedby x }", NARROWED),
    Row("square x in . { x in [Pp] #(x attackedby [Nn]) > 0 }", NARROWED),
    # ... and by a count that needs one of those sets not empty, but not by one that does not.
    Row("square s in [qrbn] { #(A attacks s) >= 3 #(a attacks s) == 0 }", NARROWED),
    Row("square x in . { 2 <= #(x attackedby [Aa]) }", NARROWED),
    Row("piece x in [Aa] { #(x attacks [Aa]) == 2 }", NARROWED),
    Row("piece x in [Aa] { #(x attackedby a) >= 0 #(x attackedby A) < 1 }", NARROWED),
    # An iteration whose body only asks whether its square lies in sets the position gives (the
    # attack maps of whole sides, exact sets) is decided: the domain meets them, or misses the refused.
    Row("wtm piece x in [qrbn] { x attackedby A not (x attackedby a) }", EXACT),  # p04 of the patterns
    Row("square x in a-h1-4 { x attackedby a x attackedby A not (x attackedby [Aa]) }", EXACT),  # never
    Row("square x in _a-h4-5 not (x attackedby [Aa])", EXACT),
    Row("piece x in [Kk] x attackedby [Aa]", EXACT),
    Row("piece x in [Q_] { x attackedby a }", NARROWED),  # a piece iteration skips the empty squares
    Row("piece x in [Aa] & a-d1-8 { x attackedby a }", NARROWED),  # the domain not a designator alone
    Row("square x in [qr] { x attackedby A not (x attackedby b) }", NARROWED),  # b: not a whole side
    Row("square x in [qr] { x attackedby A x & d-e4-5 }", EXACT),  # ... or whether it lies in a set
    Row("piece x in [QRBN] { x in a-h6-8 not (x & a-h8) not (x attackedby a) }", EXACT),
    Row("square x in [qr] { x attackedby A x & (x attackedby [Nn]) }", NARROWED),  # the set reads x
    Row("square x in [qr] { x attackedby A x & (. attackedby N) }", NARROWED),  # the set not exact
    # ... and bounded where counts of attackers stand beside them (p07, above): one square passes all.
    Row("square x in . { 0 == #(x attackedby a) 1 < #(A attacks x) x & [qr] }", NARROWED),
    Row("piece x in [QR] { #(x attackedby [Nn]) > 0 not (x attackedby A) }", NARROWED),
    Row("square x in [qr] { #(x attackedby [bn]) == 0 x attackedby A }", NARROWED),  # [bn]: not a side
    Row("square x in [qrbn] { #(x attackedby A) <= 1 not (x attackedby a) }", NARROWED),  # may be 0
    Row("ray(Q k)", NARROWED),
    Row("ray orthogonal (R n k)", NARROWED),
    Row("xray(Q B k)", NARROWED),
    # The fills only where the members lie on the last one's lines (one square: a king, a queen
    # at most rows), along the directions asked; several squares, or empty ones, in between.
    Row("ray orthogonal ([RQ] q k) or ray diagonal ([BQ] q k)", NARROWED),
    Row("ray up (R _ [qk])", NARROWED),
    Row("ray up (R k)", NARROWED),
    Row("ray down (r K)", NARROWED),
    Row("ray southwest ([BQ] [Pp] k)", NARROWED),
    Row("ray northeast (B _ k)", NARROWED),
    Row("ray diagonal (B [Aa] [rnp])", NARROWED),
    # Bounded in SQL by the attack maps next to a member that slides along the ray (sql_lines.py).
    Row("ray diagonal (Q B k) or ray diagonal (B Q k)", NARROWED),  # p02: the bishop gives check
    Row("ray anydirection (R q k)", NARROWED),  # a rook slides along no diagonal: no bound from it
    Row("ray orthogonal (k [qr] R)", NARROWED),  # bounds from the queen or rook in the middle, both ways
    Row("xray (R b k)", NARROWED),  # xray's first member always slides
    Row("ray (Q _ k) & h1-8", NARROWED),
    Row("#ray diagonal ([Bb] [Aa]) > 1", NARROWED),
    Row("piece x in [RQ] ray orthogonal (x q k)", NARROWED),
    Row("square x in [Pp] rank x == 7", NARROWED),
    Row("square all x in P rank x < 7", NARROWED),
    Row("piece x in N #(x attacks A) > 1", NARROWED),
    # One piece's attacks: one kind at every row (a king), or several kinds across the rows.
    Row("#(A attacks (. attackedby k)) >= 3", NARROWED),
    Row("piece x in [Nkp] #(. attackedby x) == 2", NARROWED),
    # A piece followed along a line: its kind and colour there bound it (a pawn may promote).
    Row("piece x in N line --> (move from x --> .){2,}", EXACT, variations=NARROWED),  # its moves chained: exact
    # over a few fixed squares, a square at a time (filters/sets/sql_loops.py)
    Row("piece x in N & a-h4-6 { not (p & up 1 7 (diagonal 1 x & up 1 x)) }", EXACT),
    Row("piece x in N & a-h4-6 { not (p & up (diagonal 1 x)) }", NARROWED),  # 24 bodies: not unrolled
    Row("piece x in [Bb] & a-h1-3 { not (up 1 x & [Pp]) }", NARROWED),
    Row("square x in a1 | h1 { not (x & [Pp]) up 1 x & _ }", EXACT),
    Row("piece x in [Rr] & [a1,h1,a8,h8] { not (x & a-h3-6) }", EXACT),  # one body: FALSE nowhere
    Row("piece x in N & [b1,g1] { up 1 x & _ }", EXACT),  # each body with its own square
    Row("square x in a4 | h4 { find (x & [Qq]) }", NARROWED),  # the square at later positions
    Row("piece x in N & a-h4-6 { line --> move from x --> check }", NARROWED),  # the piece elsewhere
    Row("piece x in N { not (p & up (diagonal 1 x)) }", NARROWED),  # 64 squares: not unrolled
    Row("piece x in Pa-h7 line --> move from x --> . --> move from x", NARROWED),
    Row("piece x in [Pp] line --> move promote [QRBNqrbn] --> move from x --> . --> move capture x", NARROWED),
    Row("piece x in [Aa] line --> . --> move capture x", NARROWED),
    Row("piece all x in B light x", NARROWED),
    Row("maindiagonal Bc1 & b", NARROWED),
    Row('P & makesquare "e4"', NARROWED),
    # a direction's distance computed by the query: n steps, a negative n the other way
    Row("Dist = rank k - rank K up Dist K", NARROWED),
    Row("Dist = file K - 5 right Dist [Pp]", NARROWED),
]


@pytest.mark.parametrize("row, cell", cases(TABLE))
def test_sql_against_python(filter_indexes, row: Row, cell: tuple[str, bool]) -> None:
    check(filter_indexes, row, cell)
