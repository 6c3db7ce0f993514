"""``hhdb`` (cqlindex/filters/game/hhdb.py): awards from the Event tag, flags from the Black tag.

The reference's answers on the studies sample are checked game for game by gameinfo2.cql
(tests/test_evaluate_examples.py); here the rules themselves, and both engines on inline games.
"""

from __future__ import annotations

import pytest

from cqlindex.cql.parser import parse
from cqlindex.errors import CqlError, CqlSyntaxError, CqlUnsupportedError
from cqlindex.exec.run import run
from cqlindex.evaluate.values import MATCH
from cqlindex.filters.game.hhdb import NO_RANK_MAX, award, award_rank


@pytest.mark.parametrize(("event", "kind", "rank"), [
    ("1.p Jenever Thematic ty", "p", 1), ("1/2.p Tourney", "p", 1), ("3.p Moscow ty", "p", 3),
    (".p Jenever Thematic ty", "p", 1),  # no rank written: first (gameinfo2.cql on the sample)
    ("1.sp.p Tata Steel-75 AT", "p", None), ("sp.p Birnov MT", "p", None),  # special prizes are not prizes
    ("4.hm Problem", "hm", 4), (".c EG", "c", 1), ("4.hm Problem", "p", None), ("The Problemist", "p", None),
    ("", "p", None),
])
def test_award_rank(event: str, kind: str, rank: int | None) -> None:
    assert award_rank(event, kind) == rank


GAMES = {
    "award": ('2.p Some ty', "(+0016.32d4g7) TT U2", "1. e4 e5 *"),
    "plain": ("Casual game", "b", "1. d4 d5 *"),
    # flags before the stipulation too: the reference finds a flag's code anywhere in the Black tag
    "marks": ("Study", "TT (=0104.11b3d5) (c) (v)", "1. e4 *"),
    # the first comment names the diagram, the stipulation and a marker; 1.e4 has a cook marker
    "annotated": ("1.p Tourney #123", "(+0016.32d4g7) U2", "{EG#456 stipulation: win. <eg>} 1. e4 {<cook> here} e5 *"),
    # several composers (MC): their names open the first comment; a variation marked <main>, one not
    "composers": ("Cup", "(=0104.11b3d5) MC", "{Smith and Jones. stipulation: draw.} 1. e4 "
                                             "(1. d4 {<main>} d5) (1. c4 {<or>} c5) e5 *"),
}


def _indexes(root, games: dict) -> dict:
    """One index per game of ``games`` (name -> (Event, Black, movetext)), built under ``root``."""
    from cqlindex.ingest.pipeline import build

    out = {}
    for name, (event, black, moves) in games.items():
        pgn = root / f"{name}.pgn"
        pgn.write_text(f'[Event "{event}"]\n[Site "?"]\n[Date "2000.01.01"]\n[Round "1"]\n[White "a"]\n'
                       f'[Black "{black}"]\n[Result "*"]\n\n{moves}\n')
        out[name] = root / f"{name}.duckdb"
        build([str(pgn)], out[name], workers=1)
    return out


@pytest.fixture(scope="module")
def dbs(tmp_path_factory):
    return _indexes(tmp_path_factory.mktemp("hhdb"), GAMES)


@pytest.mark.parametrize("engine", ["python", "sql"])
@pytest.mark.parametrize(("query", "award", "plain"), [
    ("initial hhdb prize == 2", True, False), ("initial hhdb prize == 1", False, False),
    ("initial hhdb hm", False, False), ("initial hhdb TT", True, False), ("initial hhdb theme_tourney", True, False),
    ("initial hhdb dual_after_move_1", True, False), ("initial hhdb twin", False, False),
    ("initial not hhdb prize", False, True),
])
def test_hhdb_on_games(dbs, engine: str, query: str, award: bool, plain: bool) -> None:
    for name, expected in (("award", award), ("plain", plain)):
        assert run(dbs[name], query, variations=False, engine=engine).matches == ({1: [0]} if expected else {})


@pytest.mark.parametrize("engine", ["python", "sql"])
@pytest.mark.parametrize(("query", "expected"), [
    ('initial hhdb "(c)"', True), ("initial hhdb correction", True), ('initial hhdb "(v)"', True),
    ("initial hhdb version", True), ('initial hhdb "(m)"', False), ("initial hhdb modification", False),
    ("initial hhdb TT", True), ("initial hhdb U2", False),
])
def test_a_flag_is_its_code_in_the_black_tag(dbs, engine: str, query: str, expected: bool) -> None:
    assert run(dbs["marks"], query, variations=False, engine=engine).matches == ({1: [0]} if expected else {})


# Keys the reference defines as CQL on the tags and comments (filters/game/hhdb.py's _MACROS).
@pytest.mark.parametrize("engine", ["python", "sql"])
@pytest.mark.parametrize(("query", "positions"), [
    ("hhdb dual", [0, 1, 2]),
    ("flipcolor hhdb dual", [0, 1, 2]),  # the tags are not colour-swapped
    ("initial (hhdb egdiagram) == 456", [0]),
    ('initial hhdb stipulation == "win"', [0]),
    ('initial hhdb diagram == "123"', [0]),
    ('initial hhdb gbr == "+0016.32d4g7"', [0]),
    ('hhdb "<eg>"', [0]),
    ('hhdb "<cook>"', [1]),
    ('hhdb "<minor_dual>"', []),
])
def test_keys_defined_as_cql(dbs, engine: str, query: str, positions: list[int]) -> None:
    assert run(dbs["annotated"], query, variations=False, engine=engine).matches == ({1: positions} if positions else {})


# More keys the reference defines (issue 18): a string after a key with a text value searches it;
# the parts of the GBR code; the composers; the text 'search' reads; the keys about variations.
@pytest.mark.parametrize("engine", ["python", "sql"])
@pytest.mark.parametrize(("game", "query", "positions"), [
    ("annotated", 'initial hhdb stipulation "wi"', [0]),
    ("annotated", 'initial hhdb stipulation "draw"', []),
    ("annotated", 'initial hhdb gbr "0016"', [0]),
    ("annotated", 'initial hhdb gbr pieces == "0016"', [0]),
    ("annotated", 'initial hhdb gbr pawns == "32"', [0]),
    ("annotated", 'initial hhdb gbr kings == "d4g7"', [0]),
    ("annotated", 'initial hhdb gbr material == "0016.32"', [0]),
    ("annotated", 'initial hhdb gbr kings "g7"', [0]),
    ("annotated", 'initial hhdb composer == "a"', [0]),           # the White tag
    ("composers", 'initial hhdb composer == "Smith and Jones"', [0]),  # MC: the first comment's names
    ("annotated", 'initial hhdb search == "1.p Tourney #123\\n" + "a\\n(+0016.32d4g7) U2\\n" + '
                  '"EG#456 stipulation: win. <eg>"', [0]),
    ("composers", 'initial hhdb search "Cup\\na"', [0]),
    ("composers", 'cql(variations) hhdb "<main>"', [3]),
    ("composers", 'cql(variations) hhdb "<or>"', [5]),
    ("composers", "cql(variations) hhdb variation", [5, 6]),  # reached by c4, which has no <main>
    ("composers", "cql(variations) hhdb mainline", [0, 1, 2, 3, 4]),
])
def test_more_keys_defined_as_cql(dbs, engine: str, game: str, query: str, positions: list[int]) -> None:
    assert run(dbs[game], query, engine=engine).matches == ({1: positions} if positions else {})


@pytest.mark.parametrize("engine", ["python", "sql"])
@pytest.mark.parametrize("query", ['hhdb "<main>"', "hhdb mainline", "hhdb variation", 'hhdb "<or>"'])
def test_keys_about_variations_need_them(dbs, engine: str, query: str) -> None:
    with pytest.raises(CqlError, match="needs variations"):
        run(dbs["composers"], query, engine=engine)


# cooked / sound / unsound read the game's whole text: a cook marked only in a variation counts in a
# main-line run too (the run loads the variations' comments for it); U1-U2 flag a dual, U3-U5 a
# failing study. As the reference engine defines them, sound is not the complement of unsound: a
# study with a cook alone, or a dual alone, is both; with a cook and a dual, or a failing flag,
# it is unsound only.
TEXT_GAMES = {
    "cook_in_variation": ("1.p X", "(+0016.32d4g7)", "1. e4 (1. d4 {<cook TW>} d5) e5 *"),
    "cook_and_dual": ("1.p X", "(+0016.32d4g7) U2", "1. e4 (1. d4 {<cook TW>} d5) e5 *"),
    "failing": ("2.hm X", "(=0104.11b3d5) U3", "1. e4 {a comment} e5 *"),
    "dual": ("Cup", "(=0104.11b3d5) U1", "1. e4 (1. d4 {<main>}) e5 *"),
    "clean": ("Cup", "(=0104.11b3d5) TW", "1. e4 (1. d4 {<main>}) e5 *"),
}


@pytest.fixture(scope="module")
def text_dbs(tmp_path_factory):
    return _indexes(tmp_path_factory.mktemp("hhdb_text"), TEXT_GAMES)


@pytest.mark.parametrize("variations", [False, True], ids=["mainline", "variations"])
@pytest.mark.parametrize("engine", ["python", "sql"])
@pytest.mark.parametrize(("game", "cooked", "unsound", "sound"), [
    ("cook_in_variation", True, True, True), ("cook_and_dual", True, True, False),
    ("failing", False, True, False), ("dual", False, True, True), ("clean", False, False, True),
])
def test_cooked_sound_unsound(text_dbs, engine: str, variations: bool, game: str, cooked: bool,
                              unsound: bool, sound: bool) -> None:
    for key, expected in (("cooked", cooked), ("unsound", unsound), ("sound", sound)):
        found = run(text_dbs[game], f"initial hhdb {key}", variations=variations, engine=engine).matches
        assert found == ({1: [0]} if expected else {}), key


@pytest.fixture(scope="module")
def sample(build_db):
    return build_db("data/studies/cql6-sample.pgn")


def _sql(db, query: str) -> list:
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(query).fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("variations", [False, True], ids=["mainline", "variations"])
@pytest.mark.parametrize("engine", ["python", "sql"])
def test_cooked_on_real_studies(sample, engine: str, variations: bool) -> None:
    """The games with '<cook' in any comment (read from the index's rows, not through hhdb), in
    either mode: the sample marks its cooks in variations."""
    marked = {g for (g,) in _sql(sample, "SELECT DISTINCT gamenumber FROM positions WHERE comment LIKE '%<cook%'")}
    in_variations_only = marked - {g for (g,) in _sql(
        sample, "SELECT DISTINCT gamenumber FROM positions WHERE mainline AND comment LIKE '%<cook%'")}
    assert marked and in_variations_only  # else a main-line run could not get this wrong
    found = run(sample, "initial hhdb cooked", variations=variations, engine=engine).matches
    assert set(found) == marked
    unsound = set(run(sample, "initial hhdb unsound", variations=variations, engine=engine).matches)
    sound = set(run(sample, "initial hhdb sound", variations=variations, engine=engine).matches)
    games = {g for (g,) in _sql(sample, "SELECT gamenumber FROM games")}
    assert marked <= unsound and games - unsound <= sound


@pytest.mark.parametrize("engine", ["python", "sql"])
@pytest.mark.parametrize(("query", "kind"), [("initial hhdb sort prize", "p"), ("initial hhdb sort hm", "hm")])
def test_sort_puts_the_best_award_first(sample, engine: str, query: str, kind: str) -> None:
    """'hhdb sort KEY' finds what 'hhdb KEY' finds, ordered by the award's rank, smallest first
    (ties by gamenumber); a special award, which has no rank here, comes after the ranked ones."""
    plain = run(sample, query.replace(" sort", ""), engine=engine).matches
    found = run(sample, query, engine=engine).matches
    assert found == plain and len(found) > 10
    events = dict(_sql(sample, "SELECT gamenumber, event FROM games"))
    ranks = {g: award_rank(events[g] or "", kind) for g in found}
    assert list(found) == sorted(found, key=lambda g: (ranks[g] is None, ranks[g] or 0, g))
    assert len({ranks[g] for g in found}) > 2  # several ranks: the order is a real test


@pytest.mark.parametrize("query", ["hhdb", "hhdb unknown", "hhdb sort", "hhdb prize prize", "hhdb prize sort",
                                   "hhdb sort max prize", "hhdb sort max"])
def test_syntax_errors(query: str) -> None:
    with pytest.raises(CqlSyntaxError):
        parse(query)


# The reference's award reading: [rank[/rank]] [sp | .sp] (.p | .hm | .c); a special award asked for
# without 'special' matches with no rank; 'max' takes the second rank (NO_RANK_MAX without ranks).
@pytest.mark.parametrize(("event", "kind", "special", "use_max", "value"), [
    ("1.p X", "prize", False, False, 1), ("1/3.hm X", "hm", False, True, 3), ("1/3.hm X", "hm", False, False, 1),
    (".c X", "commendation", False, True, NO_RANK_MAX), (".c X", "award", False, False, 1),
    ("sp.p X", "prize", False, False, MATCH), ("sp.p X", "prize", True, False, 1),
    ("2.sp.hm X", "award", True, True, 2), ("2.sp.hm X", "award", False, False, MATCH),
    ("1.p X", "prize", True, False, None), ("3/2.p X", "prize", False, False, None),
    ("Tourney", "award", False, False, None), ("1.p X", "hm", False, False, None),
])
def test_award(event: str, kind: str, special: bool, use_max: bool, value: object) -> None:
    assert award(event, kind, special, use_max) == value
