"""comment filters and CQL's smart comments: what each says, where it goes, and what is taken back.

One short game (the Scholar's mate, positions 0..7, mate at 7) makes every expectation
countable by hand; both engines must say the same.
"""

from __future__ import annotations

import io

import chess.pgn
import pytest

from cqlindex.exec.run import run
from cqlindex.output.pgn import write_pgn
from cqlindex.store.database import connect
from tests.conftest import build_inline

SCHOLAR = "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0"

# (query, matching positions, comments by positionid)
CASES = [
    ('mate comment("mate")', [7], {7: ["mate"]}),
    ('mate parent:comment("before mate, ply " ply)', [7], {6: ["before mate, ply 6"]}),
    # arguments are joined as they are; a set names its squares with the pieces on them
    ('mate comment("king on " k ", " #A " white pieces")', [7], {7: ["king on ke8, 16 white pieces"]}),
    ('mate comment(Q)', [7], {7: ["Qf7"]}),
    ('mate comment(Q & h1)', [7], {7: ["[]"]}),
    # smart comments: what a failing filter said is dropped, at every level
    ('{comment("a") false} or mate', [7], {}),
    ('not {check comment("b")}', [0, 1, 2, 3, 4, 5, 6], {}),
    ('check comment("c") Q == 5', [], {}),
    ('{mate comment("d")} or {check comment("e")}', [7], {7: ["d"]}),
    # the same text twice at one position is said once
    ('mate comment("x") comment("x")', [7], {7: ["x"]}),
    # find says it at the position it found: here the nearest white-to-move one back from the mate
    ('mate find <-- {wtm comment("white to move, ply " ply)}', [7], {6: ["white to move, ply 6"]}),
    ('/// a line comment\nmate', [7], {7: ["a line comment"]}),
]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    return build_inline(tmp_path_factory.mktemp("comments"), {"scholar": SCHOLAR})["scholar"]


@pytest.mark.parametrize("engine", ["python", "sql"])
@pytest.mark.parametrize("text, matches, comments", CASES, ids=[c[0] for c in CASES])
def test_comments(db, engine: str, text: str, matches: list[int], comments: dict[int, list[str]]) -> None:
    result = run(db, text, engine=engine)
    assert result.matches == ({1: matches} if matches else {})
    assert result.comments.get(1, {}) == comments


def pgn_comments(db, text: str, **options) -> list[str]:
    result = run(db, text)
    out = io.StringIO()
    write_pgn(connect(db), result, out, variations=False, **options)
    game = chess.pgn.read_game(io.StringIO(out.getvalue()))
    return [node.comment for node in game.mainline()]


def test_pgn_puts_each_comment_at_its_position_before_the_match_string(db) -> None:
    got = pgn_comments(db, 'mate parent:comment("before mate") comment("mate")')
    assert got == ["", "", "", "", "", "before mate", "mate CQL"]


def test_silent_leaves_the_comments_out(db) -> None:
    assert pgn_comments(db, 'mate parent:comment("before mate")', silent=True) == [""] * 7


# (query, what the message filters say, in order): every position they are evaluated at, matching or not
MESSAGES = [
    ('message quiet ("ply " ply) mate', [f"ply {i}" for i in range(8)]),
    ('mate message ("mate, queen on " Q)', ["game 1, move 4, black to move: mate, queen on Qf7"]),
    ('{btm message quiet ("b") false} or mate', ["b", "b", "b", "b"]),  # said even where the filter then fails
]


@pytest.mark.parametrize("text, said", MESSAGES, ids=[m[0] for m in MESSAGES])
def test_messages(db, text: str, said: list[str]) -> None:
    result = run(db, text, engine="python")
    assert result.messages == said
    assert result.matches == {1: [7]}


@pytest.mark.parametrize("text, said", MESSAGES, ids=[m[0] for m in MESSAGES])
def test_the_default_engine_hands_messages_to_the_evaluator(db, text: str, said: list[str]) -> None:
    """A message speaks wherever it is evaluated, so no SQL may narrow the positions first.

    The default engine must not plan such a query (no candidates) and must say what the
    evaluator says, including at the positions where the query then fails.
    """
    result = run(db, text)
    assert result.candidates is None, "the default engine planned a query with a message filter"
    assert result.messages == said
    assert result.matches == {1: [7]}


def test_messages_are_printed_by_the_cli(db, tmp_path) -> None:
    from typer.testing import CliRunner

    from cqlindex.cli import app

    result = CliRunner().invoke(app, ["query", str(db), 'mate message ("found")', "-o", str(tmp_path / "m.pgn")])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "game 1, move 4, black to move: found"
