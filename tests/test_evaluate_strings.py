"""Strings on both engines: tags and comments as text, ~~ and its captures, indexing, the string
functions, piece names, and files only where allowed.

One short game with tags and two comments (the Scholar's mate, positions 0..7) makes every
expectation countable by hand; the SQL engine and the Python engine must both give it.
"""

from __future__ import annotations

import io

import chess.pgn
import pytest

from cqlindex.errors import CqlError, CqlSyntaxError
from cqlindex.exec.run import columnar_blocker, run
from cqlindex.output.pgn import write_pgn
from cqlindex.query.prepare import prepare
from cqlindex.store.database import connect
from tests.conftest import build_inline

TAGS = '[ECO "C20"]\n[EventDate "1999.??.??"]\n[Opening "Scholar"]\n'
MOVES = "1. e4 {King's pawn, 1 of 2} e5 2. Qh5 Nc6 3. Bc4 Nf6 {a blunder} 4. Qxf7# *"
ALL = list(range(8))

# (query, matching positions)
CASES = [
    # game tags as text (Event "t", Date "2000.01.01", White "a", Black "b")
    ('eco ~~ "C2"', ALL),
    ('eco ~~ "^C3"', []),
    ('date < "1930"', []),
    ('date < "2001" date >= "2000.01.01"', ALL),
    ('"1999" [<] date', ALL),
    ('player white + " v " + player black == "a v b"', ALL),
    ('player ~~ "^b$"', ALL),
    ('eventdate ~~ "1999"', ALL),
    ('tag "Opening" == "Scholar"', ALL),
    ('tag "Annotator"', []),
    ('"Scho" in tag "Opening"', ALL),
    # the comment after the move that led here
    ('originalcomment ~~ "blunder"', [6]),
    ("hascomment", [1, 6]),
    ('hascomment "pawn"', [1]),
    # captures of the last match: \n the text, \-n where it starts
    ('originalcomment ~~ "([0-9]) of ([0-9])" \\1 == "1" \\2 == "2" \\-2 == 18', [1]),
    ('"RBNQ" ~~ "[BN]+" == "BN" \\0 == "BN" \\-0 == 1', ALL),
    ('"RBNQ" ~~ "(x)?Q" \\1', []),  # a group that caught nothing has no value
    # indexing and slices, length, substrings
    ('"mate"[1] == "a" "mate"[1:3] == "at" "mate"[:2] == "ma" "mate"[2:] == "te" "mate"[:] == "mate"', ALL),
    ('"mate"[9]', []),
    ('#"mate" == 4', ALL),
    ('"at" in "mate"', ALL),
    ('"x" in "mate"', []),
    # a backslash alone: a one-character string
    ('\\n + "a" == "\\na"', ALL),
    ('#(\\t + \\") == 2', ALL),
    # the string functions
    ('str(ply) == "3"', [3]),
    ('str(Q) == "Qh5"', [3, 4, 5, 6]),
    ('int "12" + 1 == 13', ALL),
    ('int "x1"', []),
    ('lowercase "AbC" == "abc" uppercase event == "T"', ALL),
    ('indexof("b" "abc") == 1 indexof("z" "abc") == -1', ALL),
    ('ascii "A" == 65 ascii 97 == "a"', ALL),
    ('fen ~~ "^rnbqkbnr/pppppppp/8/8/4P3/"', [1]),
    # pieces by name and by identity
    ('typename f7 == "Q"', [7]),
    ('piecename e5 == "p"', [2, 3, 4, 5, 6, 7]),
    ('typename e3 == "_"', ALL),
    ('pieceid f7 == 3', [7]),  # the queen that started on d1
    ('pieceid f7 == 53', [0, 1, 2, 3, 4, 5, 6]),  # the pawn that is still there
    # CQL 6.2's comparisons compare as < > <= >= do
    ("ply [>=] 6", [6, 7]),
    ("ply [<] 1", [0]),
]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    return build_inline(tmp_path_factory.mktemp("strings"), {"scholar": (TAGS, MOVES)})["scholar"]


@pytest.mark.parametrize("engine", ["python", "sql"])
@pytest.mark.parametrize("text, matches", CASES, ids=[c[0] for c in CASES])
def test_strings(db, engine: str, text: str, matches: list[int]) -> None:
    result = run(db, text, engine=engine)
    assert result.matches == ({1: matches} if matches else {})


@pytest.mark.parametrize("engine", ["python", "sql"])
def test_move_comment_goes_after_each_matching_move(db, engine: str) -> None:
    query = 'move from Q comment ("queen from " Q)'
    result = run(db, query, engine=engine)
    assert result.matches == {1: [2, 6]}
    assert result.comments[1] == {3: ["queen from Qd1"], 7: ["queen from Qh5"]}
    # the columnar engine finds the matches; the tree-walker writes the comments there
    assert columnar_blocker(prepare(query, "<query>")) is None


@pytest.mark.parametrize("engine", ["python", "sql"])
def test_edits_of_the_output(db, engine: str) -> None:
    """removecomment, settag and removetag change the PGN written, where the position matches."""
    query = 'hascomment removecomment settag("Annotator" "cqlindex") removetag "Opening" {ply == 6 removetag "ECO"}'
    result = run(db, query, engine=engine)
    assert result.matches == {1: [6]}
    out = io.StringIO()
    write_pgn(connect(db), result, out, variations=False)
    game = chess.pgn.read_game(io.StringIO(out.getvalue()))
    assert game.headers["Annotator"] == "cqlindex" and "Opening" not in game.headers and "ECO" not in game.headers
    assert [node.comment for node in game.mainline()][:6] == ["King's pawn, 1 of 2", "", "", "", "", "CQL"]


def test_files_only_where_allowed(db, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.txt").write_text("Scholar")
    query = 'initial writefile("out.txt" str(tag "Opening" \\n)) readfile "in.txt" == tag "Opening"'
    with pytest.raises(CqlError, match="allow_files"):
        run(db, query)
    assert not (tmp_path / "out.txt").exists()
    for engine in ("sql", "python"):
        assert run(db, query, engine=engine, allow_files=True).matches == {1: [0]}
    assert (tmp_path / "out.txt").read_text() == "Scholar\nScholar\n"
    with pytest.raises(CqlError, match="cannot read 'missing.txt'"):
        run(db, 'x = readfile "missing.txt"', allow_files=True)


@pytest.mark.parametrize("text, words", [
    ('"a" ~~ "("', "not a regular expression"),
])
def test_bad_patterns_are_errors(db, text: str, words: str) -> None:
    with pytest.raises(CqlError, match=words):
        run(db, text, engine="python")


@pytest.mark.parametrize("text, words", [
    ('k ~~ "a"', "'~~' needs strings"),
    ('"mate"["a"]', "an index is a number"),
    ("K[1]", "written against the piece designator"),  # CQL 6.2 lexes no index after a designator
    ("int K", "'int' takes a string"),
    ('typename "a"', "'typename' takes a set"),
    ('indexof("a")', "two strings"),
    ("\\a", "a backslash starts"),
])
def test_syntax_errors(text: str, words: str) -> None:
    from cqlindex.cql.parser import parse

    with pytest.raises(CqlSyntaxError, match=words):
        parse(text)
