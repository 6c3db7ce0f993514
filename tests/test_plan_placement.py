"""plan/placement.py: piece tests merged per bitboard, a complete placement read as equalities,
and the same matches as the evaluator on real positions written out piece by piece."""

from __future__ import annotations

import pytest
import sqlglot

from cqlindex.exec.run import plan_for, run
from cqlindex.plan.placement import merge_placements
from cqlindex.store.database import connect

BOARDS = "p.wk | p.wq | p.wr | p.wb | p.wn | p.wp | p.bk | p.bq | p.br | p.bb | p.bn | p.bp"
E4, D4, A1, E1, E8 = 1 << 28, 1 << 27, 1, 1 << 4, 1 << 60


def rewritten(where: str) -> str:
    select = merge_placements(sqlglot.parse_one(f"SELECT 1 FROM positions AS p WHERE {where}", dialect="duckdb"))
    return select.sql(dialect="duckdb").removeprefix("SELECT 1 FROM positions AS p WHERE ")


def equalities(**masks: int) -> str:
    columns = ("wk", "wq", "wr", "wb", "wn", "wp", "bk", "bq", "br", "bb", "bn", "bp")
    return " AND ".join(f"p.{c} = {masks.get(c, 0)}" for c in columns)


@pytest.mark.parametrize("where, expected", [
    # one bitboard's squares in one test, where its first test stood
    (f"p.mainline AND (p.wp & {E4}) <> 0 AND p.wtm AND (p.wp & {D4}) <> 0",
     f"p.mainline AND (p.wp & {E4 | D4}) = {E4 | D4} AND p.wtm"),
    # the count pins the board: every bitboard equals its squares, the count stays
    (f"(p.wk & {E1}) <> 0 AND (p.bk & {E8}) <> 0 AND (p.wp & {E4}) <> 0 AND BIT_COUNT({BOARDS}) = 3",
     f"{equalities(wk=E1, bk=E8, wp=E4)} AND BIT_COUNT({BOARDS}) = 3"),
    (f"(p.wk & {E1}) <> 0 AND (p.bk & {E8}) <> 0 AND 2 = BIT_COUNT({BOARDS})",
     f"{equalities(wk=E1, bk=E8)} AND 2 = BIT_COUNT({BOARDS})"),
    # the h8 square is the sign bit, written as a cast
    (f"(p.bk & CAST(-9223372036854775808 AS BIGINT)) <> 0 AND (p.wk & {A1}) <> 0 AND BIT_COUNT({BOARDS}) = 2",
     equalities(wk=A1, bk=-2**63).replace(str(-2**63), "CAST(-9223372036854775808 AS BIGINT)")
     + f" AND BIT_COUNT({BOARDS}) = 2"),
    # each side of an OR (flipcolor writes a placement and its colour-swapped twin)
    (f"p.mainline AND (((p.wk & {E1}) <> 0 AND (p.bk & {E8}) <> 0 AND BIT_COUNT({BOARDS}) = 2) "
     f"OR ((p.wp & {E4}) <> 0 AND (p.wp & {D4}) <> 0))",
     f"p.mainline AND (({equalities(wk=E1, bk=E8)} AND BIT_COUNT({BOARDS}) = 2) OR (p.wp & {E4 | D4}) = {E4 | D4})"),
    # inside a subquery's WHERE too
    (f"EXISTS(SELECT 1 FROM positions AS q WHERE (q.wp & {E4}) <> 0 AND (q.wp & {D4}) <> 0)",
     f"EXISTS(SELECT 1 FROM positions AS q WHERE (q.wp & {E4 | D4}) = {E4 | D4})"),
])
def test_tests_merged(where: str, expected: str) -> None:
    assert rewritten(where) == expected


@pytest.mark.parametrize("where", [
    f"(p.wp & {E4}) <> 0 AND (p.wn & {D4}) <> 0",  # one test per bitboard: nothing to merge
    f"(p.wp & {E4}) <> 0 OR (p.wp & {D4}) <> 0",  # either square: not both
    f"(p.wp & {E4 | D4}) <> 0 AND (p.wp & {A1}) <> 0",  # a pawn on one of two squares is no square
    f"NOT ((p.wp & {E4}) <> 0 AND (p.wp & {D4}) <> 0)",  # below a NOT: left as written
    f"(p.wp & {E4}) <> 0 AND (p.wk & {E1}) <> 0 AND BIT_COUNT({BOARDS}) = 3",  # a third piece anywhere
    # two pieces asked on e1: no board has it; the tests say so as they are
    f"(p.wk & {E1}) <> 0 AND (p.bk & {E1}) <> 0 AND (p.wp & {E4}) <> 0 AND BIT_COUNT({BOARDS}) = 2",
    f"(p.wk & {E1}) <> 0 AND (p.bk & {E8}) <> 0 AND BIT_COUNT(p.wk | p.bk) = 2",  # not every bitboard
    f"(p.wk & {E1}) <> 0 AND (p.bk & {E8}) <> 0 AND BIT_COUNT({BOARDS.replace('p.bp', 'q.bp')}) = 2",
    f"(p.legal_moves & {E4}) <> 0 AND (p.legal_moves & {D4}) <> 0",  # not a bitboard
])
def test_left_as_written(where: str) -> None:
    assert rewritten(where) == sqlglot.parse_one(
        f"SELECT 1 FROM positions AS p WHERE {where}", dialect="duckdb").sql(dialect="duckdb").split(" WHERE ", 1)[1]


#: Ordinary games, read by both engines.
DATA = "data/games/lichess-474.pgn"
LETTERS = {"wk": "K", "wq": "Q", "wr": "R", "wb": "B", "wn": "N", "wp": "P",
           "bk": "k", "bq": "q", "br": "r", "bb": "b", "bn": "n", "bp": "p"}


def placements(db, plies: tuple[int, ...]) -> list[str]:
    """Every piece of the main-line position after each of ``plies`` in game 1, as CQL piece designators."""
    con = connect(db)
    try:
        rows = con.execute(f"SELECT {', '.join(LETTERS)} FROM positions WHERE gamenumber = 1 AND mainline "
                           f"AND ply IN ({', '.join(map(str, plies))}) ORDER BY ply").fetchall()
    finally:
        con.close()
    out = []
    for row in rows:
        pieces = []
        for column, bitboard in zip(LETTERS, row):
            bits = bitboard % 2**64
            pieces += [f"{LETTERS[column]}{'abcdefgh'[s % 8]}{s // 8 + 1}" for s in range(64) if bits >> s & 1]
        out.append(" ".join(pieces))
    return out


@pytest.mark.parametrize("ply", [0, 9, 24, 41])
def test_a_position_written_out_finds_what_the_evaluator_finds(build_db, ply: int) -> None:
    db = build_db(DATA)
    (pieces,) = placements(db, (ply,))
    count = len(pieces.split())
    for query, pinned in [(f"cql(quiet) {pieces} [Aa]=={count}", True),
                          (f"cql(quiet) {pieces}", False),  # other pieces may stand anywhere else
                          (f"cql(quiet) {pieces} [Aa]=={count + 1}", False),
                          (f"cql(quiet) flipcolor {{{pieces} [Aa]=={count}}}", True)]:
        sql = plan_for(db, query).select.sql(dialect="duckdb")
        assert ("p.wk = " in sql) == pinned, sql
        found = run(db, query)
        if not query.endswith(f"=={count + 1}"):
            assert found.matches, "the comparison means something only where the query finds positions"
        assert found.matches == run(db, query, engine="python").matches, query
