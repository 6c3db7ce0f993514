"""Sequences: SQL against Python on every position of the filter indexes (see differential.py).

Covers find (all, a range, <--, quiet), line with every constituent form and parameter, path
with its parameters, echo (in all) and consecutivemoves.
"""

from __future__ import annotations

import pytest

from tests.filters.differential import EXACT, NARROWED, Row, cases, check
from tests.filters.reference import RefRow, check_reference, ref_cases

TABLE = [
    Row("find mate", EXACT),
    Row("find all check >= 20", NARROWED),
    Row("find <-- move capture Q", EXACT, variations=NARROWED),
    Row("find 2 5 check", NARROWED),
    Row("find quiet check", EXACT),
    Row("x = power A - power a find (power A - power a >= x + 2)", NARROWED),
    Row("x = #A (find all (x - 1 > #A)) >= 3", NARROWED),  # the count compared: CQL 6.2 reads it so
    Row("x = #[Aa] find 2 4 (#[Aa] == x)", NARROWED),
    Row("x = ply y = #p find (x + y * 2 <= ply)", NARROWED),
    Row("x = #P find (#P != x / 0)", NARROWED),
    Row("x = power A - power a find quiet 4 (power A - power a >= x + 3)", NARROWED),  # an exact count
    Row("x = ply find (ply == x + 7)", NARROWED),  # a threshold per ply: several blocks of levels
    # counts and power of whole kinds from the material column, where no filter read the boards first
    Row("x = #[Aa] find quiet (#[Aa] <= x - 4)", NARROWED),
    Row("x = power [RNk] - power [bp] find quiet (power [RNk] - power [bp] >= x + 4)", NARROWED),  # kings weigh 0
    Row("x = #[Kk] + #Q find quiet (#[Kk] + #Q > x)", NARROWED),  # kings counted on their boards
    Row("x = power A find quiet (Ra1 or power A <= x - 5)", NARROWED),  # the boards read first: counted there
    Row("line --> check --> check", EXACT, variations=NARROWED),
    Row("line --> check --> mate", EXACT, variations=NARROWED),
    Row("line --> (power A - power a <= -1){3,}", EXACT, variations=NARROWED),  # one value shifted by the window
    Row("line --> (move from [Kk] --> move capture .){2,}", EXACT, variations=NARROWED),  # a repeated group: 4 steps in SQL
    Row("line --> (check --> move capture .) --> move from [Kk]", EXACT, variations=NARROWED),  # a group: 3 steps in SQL
    Row("line <-- move capture . <-- move from [Kk] <-- check", NARROWED),  # back: a move at the first position
    Row("line --> move capture . + --> move to _", NARROWED),  # forward to a line's end, a move asked there
    # Decided by the window where the fixed prefix is the whole line (main line only).
    Row("line --> (move capture .){3,}", EXACT, variations=NARROWED),
    Row("line --> check --> move capture . --> terminal", EXACT, variations=NARROWED),
    Row("line --> check --> check --> (not check){0,2}", EXACT, variations=NARROWED),
    Row("not line --> move from [Kk] --> move to [Kk]", EXACT, variations=NARROWED),  # exact, so its negation too
    Row("line --> check{2,} --> mate", NARROWED),  # the repetition not last: more rounds move the mate
    # A bounded repetition: one chain per count, their OR in one window (main line only).
    Row("line --> . --> .{0,5} --> mate", EXACT, variations=NARROWED),
    Row("line --> check{0,2} --> move capture .", EXACT, variations=NARROWED),
    Row("line --> move capture . --> (check --> .){1,2} --> not check", EXACT, variations=NARROWED),
    Row("line --> check? --> check", EXACT, variations=NARROWED),
    Row("line --> (move from [Kk] --> .){5,}", EXACT, variations=NARROWED),  # ten steps in one window
    Row("line --> (. --> move from [Kk]){7}", NARROWED),  # fourteen: beyond the prefix SQL follows
    Row("line <-- check <-- check", NARROWED),
    Row("line --> move capture A * --> mate", NARROWED),
    Row("line nolinearize --> move capture A * --> mate", NARROWED),
    Row("line nonatomic --> {line --> check --> true} --> mate", NARROWED),
    Row("line --> check + --> mate", NARROWED),
    # a piece followed along its moves at every other step (filters/sets/sql.py, _followed_piece)
    Row("piece x in N { line --> (move from x --> .){2,} }", EXACT, variations=NARROWED),
    Row("piece x in [Qq] line --> (move from x --> .){3}", EXACT, variations=NARROWED),
    Row("piece x in [Bn] line --> move from x --> . --> move from x --> check", EXACT, variations=NARROWED),
    Row("piece x in R { line --> (move from x --> .){2,} }", NARROWED),  # castling moves a rook
    Row("piece x in [Pp] { line --> (move from x --> .){2,} }", NARROWED),  # a promotion changes its kind
    Row("piece x in N & a-h1-4 { line --> (move from x --> .){2,} }", NARROWED),  # another knight may come in
    Row("piece x in N { line --> move from x --> . --> . --> . --> move from x }", NARROWED),
    Row("piece x in N { line --> . --> move from x --> . --> move from x }", NARROWED),
    Row("piece x in N { line --> move from x --> . --> move to x }", NARROWED),
    Row("line --> btm ? --> check", EXACT, variations=NARROWED),  # one chain per count
    Row("line --> check{2,3} --> not check", EXACT, variations=NARROWED),  # one chain per count
    Row("line --> (check --> not check) {2} --> check", EXACT, variations=NARROWED),
    Row("line firstmatch --> check --> check", NARROWED),
    Row("line lastposition --> check --> mate", NARROWED),
    Row("line singlecolor --> check{3}", NARROWED),
    Row("line nestban --> check --> check", NARROWED),
    Row("line primary --> check --> check", NARROWED),
    Row("line secondary --> check --> check", NARROWED),
    Row("line quiet --> check --> check", NARROWED),
    Row("line 3 10 --> check * --> mate", NARROWED),
    Row("path -- -- [x]", NARROWED),
    Row("path nestban [x] [x]", NARROWED),
    Row("path primary [x] --", NARROWED),
    Row("path focus A -- check", NARROWED),
    Row("path singlecolor nestban -- check+", NARROWED),
    Row("path max ply lastposition -- check", NARROWED),
    Row("path -- --", NARROWED),
    Row("path nestban -- check pathcount > 0 pathstart:check", NARROWED),
    Row("path quiet -- [x]", NARROWED),
    Row('path title "t" verbose keepallbest -- check', NARROWED),
    Row("path focus R piecepath -- --", NARROWED),
    # every walk's first move leaves its left side's square at the start (checked before the walk)
    Row("[Aa]Pc in [RNBQrnbq] path focus Pc (Pc--~a-h1){2,3}", NARROWED),
    Row("cnt = 0 [Aa]Pc in [Nn] path (Pc-- cnt += 1 --)+", NARROWED),
    Row("{path focus R -- --} pathcountunfocused < 0", NARROWED),
    Row("{path -- +} pathlastposition:mate", NARROWED),
    # The columnar kernel (columnar/kernels_path.py): repetitions, ranges, bans, the kept walk's end.
    Row("path -- check -- check", NARROWED),
    Row("path (-- check){2,}", NARROWED),
    Row("path 2 3 -- check +", NARROWED),
    Row("path nestban (-- --)+ check", NARROWED),
    Row("path -- secondary --", NARROWED),
    Row("path primary (-- [x])+ --", NARROWED),
    Row("path (check){3,} -- check", NARROWED),
    Row("(path lastposition (-- check)? -- {1,2}) : check", NARROWED),
    Row("(path lastposition (-- --)* -- [x]) : move capture .", NARROWED),
    Row("sort path nestban -- check{2,}", NARROWED),
    Row("path ({countmoves legal -- == 1} --){2,}", NARROWED),
    Row("path focus a nestban -- check +", NARROWED),  # a ban covers the plies between focused moves
    Row("path focus capture A -- [x] --", NARROWED),
    Row("path focus [Aa] -- secondary --", NARROWED),
    Row("(path focus A lastposition -- --) : check", NARROWED),  # the end: a focused move's, not a reply's
    Row("2 <= sort path singlecolor nestban -- check +", NARROWED),
    # Starts in classes: the variables a path reads, the pieces it focuses on.
    Row("path focus Q -- --", NARROWED),
    Row("piece T in [NB] path focus T -- -- --", NARROWED),
    Row("piece T in [Qq] path focus capture T -- --", NARROWED),
    Row("piece T in [RQrq] path focus capture T --", NARROWED),  # the first move in focus may take T
    Row("piece T in [RN] path T-- -- * T-- check", NARROWED),
    Row("x = #[Aa] path (-- {#[Aa] == x}){2,}", NARROWED),
    Row("square s in a-h4 path -- {s & [Pp]} --", NARROWED),
    # tests asked only where a walk can arrive: after a move, after a comment after a move
    Row('piece T in [NB] path focus T T-- comment("moved") {T attacks [qr]} T--', NARROWED),
    Row("square s in a-h3 path (-- {s attackedby A}) --", NARROWED),
    Row("s = currentposition path lastposition (-- --)+ (s:check)", NARROWED),
    # A function's parameter, and a variable a step assigns for itself alone, change nothing seen.
    Row("function f(x){x attacks k} path -- f(N) -- check", NARROWED),
    Row("function g(s){w = s & [Aa] #w >= 12} path (-- g(.)){3,}", NARROWED),
    Row("mate echo (s t) t : check", NARROWED),
    Row("stalemate echo (s t) in all { t : stalemate }", NARROWED),
    Row("mate echo (s t) consecutivemoves (s t) >= 2", NARROWED),
    Row("x = position 0 y = currentposition consecutivemoves(x y) > 5", NARROWED),
    Row("echo (s t) { s < t  consecutivemoves 2 4 (s t) }", NARROWED),         # every pair of a game
    Row("echo (s t) { s < t  consecutivemoves 1 (s t) }", NARROWED),           # exactly one: both bounds
    Row("low = 3 check echo (s t) { consecutivemoves low 100 (t s) == low + 1 }", NARROWED),
]


@pytest.mark.parametrize("row, cell", cases(TABLE))
def test_sql_against_python(filter_indexes, row: Row, cell: tuple[str, bool]) -> None:
    check(filter_indexes, row, cell)


#: Held to the reference engine's answers (tests/filters/reference.py), on both engines: a path
#: whose every walk makes a promotion or a capture is not searched where none is made below the
#: start (filters/sequences/path_needs.py); optional moves (``?``, ``*``, ``{0,n}``) prune nothing.
REFERENCE = [
    RefRow("path -- * --=Q", variations=True),
    RefRow("path primary -- * --=Q"),
    RefRow("path (-- --=Q)? --", variations=True),
    RefRow("path (-- --=Q){0,1} check", variations=True),
    RefRow("path (-- [x]){2} --", variations=True),
    RefRow("path primary -- -- [x] check"),
    RefRow("piece T in [Pp] path focus T -- * --=N", variations=True),
    # a walk's first move to G is not searched where no move played reaches G (castling, where
    # the rook moves too, is looked past)
    RefRow("piece T in [BQKbqk] path focus T (--northeast 1 T --southeast 1 T)+", variations=True),
    RefRow("piece T in [BQKbqk] path focus T (--northeast 1 T --southeast 1 T)+"),
    RefRow("path --[g1,g8,c1,c8] --", variations=True),
    RefRow("path --[f1,f8,d1,d8] --", variations=True),  # castling: the rook goes there
    RefRow("path (--e4 --e5)+ --", variations=True),
]


@pytest.mark.parametrize("row, engine", ref_cases(REFERENCE))
def test_against_the_reference(build_db, row: RefRow, engine: str) -> None:
    check_reference(build_db, row, engine)
