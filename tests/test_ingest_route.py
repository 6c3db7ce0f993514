"""The router: which games the compiled reader may take, and what it hands over for them."""

from __future__ import annotations

import chess
import chess.pgn
import pytest

from cqlindex.ingest.replay import unescape_tag
from cqlindex.ingest.route import read_tags, route

HEAD = '[Event "e"]\n[Site "s"]\n[White "w"]\n[Black "b"]\n[Result "*"]\n'

# (id, extra tags, movetext, routed to the compiled reader?)
CASES = [
    ("main-line", "", "1. e4 e5 2. Nf3 Nc6 *", True),
    ("comments", "", "1. e4 {a} e5 {b c} *", True),
    ("variation", "", "1. e4 (1. d4) e5 *", False),
    ("nag", "", "1. e4 $1 e5 *", False),
    ("suffix-annotation", "", "1. e4! e5 *", False),
    ("null-move", "", "1. e4 -- 2. d4 *", False),
    ("result-inside", "", "1. e4 1-0 e5 *", False),
    ("result-then-result", "", "1. e4 e5 1-0 *", False),
    ("draw-at-end", "", "1. e4 e5 1/2-1/2", True),
    ("draw-then-blanks", "", "1. e4 e5   1/2-1/2  \n\n", True),
    ("half-a-draw-inside", "", "1. e4 1/2 e5 *", False),
    ("no-result", "", "1. e4 e5", True),
    ("semicolon-comment", "", "1. e4 ; note\ne5 *", False),
    ("result-then-line-comments", "", "1. e4 e5 1-0 ; { summary\n; more }", True),
    ("unclosed-brace", "", "1. e4 { open e5 *", False),
    ("no-moves", "", "*", False),
    ("variant-960", '[Variant "fischerandom"]\n', "1. e4 *", True),
    ("variant-standard", '[Variant "Standard"]\n', "1. e4 *", True),
    ("variant-crazyhouse", '[Variant "crazyhouse"]\n', "1. e4 *", False),
    ("fen", '[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]\n', "1. e4 *", True),
    ("fen-pawn-on-back-rank", '[FEN "4k2P/8/8/8/8/8/8/4K3 w - - 0 1"]\n', "1. Kd1 *", False),
    ("fen-rights-without-rook", '[FEN "4k3/8/8/8/8/8/8/4K3 w K - 0 1"]\n', "1. Kd1 *", False),
    ("fen-unreadable", '[FEN "not a fen"]\n', "1. e4 *", False),
]


@pytest.mark.parametrize("tags, moves, routed", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_which_games_are_routed(tags: str, moves: str, routed: bool) -> None:
    assert (route(HEAD + tags + "\n" + moves + "\n") is not None) == routed


def test_comments_before_the_first_move_go_to_the_start_position() -> None:
    game = route(HEAD + "\n{ engine: x }  {second} 1. e4 {after e4 } e5 *\n")
    assert game is not None
    assert game.root_comment == "engine: x second"
    assert game.comments == ["after e4"]
    assert "engine" not in game.reader_text and "{after e4 }" in game.reader_text


def test_tags_keep_python_chess_order_and_values() -> None:
    game = route('[Annotator "a"]\n[White "w"]\n[Event "e"]\n[Black "b"]\n\n1. e4 *\n')
    assert list(game.headers.items()) == [("Event", "e"), ("White", "w"), ("Black", "b"), ("Annotator", "a")]


def test_chess960_start_and_castling_rooks() -> None:
    fen = "nnrbkrbq/pppppppp/8/8/8/8/PPPPPPPP/NNRBKRBQ w FCfc - 0 1"
    game = route(HEAD + f'[Variant "chess 960"]\n[FEN "{fen}"]\n\n1. g3 *\n')
    assert game.chess960 and game.start_fen == chess.Board(fen, chess960=True).fen()
    assert game.castling_rooks == (chess.F1, chess.C1, chess.F8, chess.C8)
    assert '[Variant "chess960"]' in game.reader_text


def test_standard_start() -> None:
    game = route(HEAD + "\n1. e4 *\n")
    assert game.start_fen is None and not game.chess960
    assert game.castling_rooks == (chess.H1, chess.A1, chess.H8, chess.A8)
    assert (game.root_castling, game.root_ep, game.root_halfmove) == (chess.BB_CORNERS, -1, 0)


# Header lines read by route's own regex must give python-chess's Headers, order and values.
TAG_CASES = [
    ("roster-reordered", ['[Annotator "a"]', '[Result "1-0"]', '[White "w"]', '[Event "e"]']),
    ("repeated-name-keeps-first-place", ['[Site "s"]', '[Foo "1"]', '[Bar "2"]', '[Foo "3"]', '[Site "t"]']),
    ("escapes", ['[White "a \\"b\\" c"]', '[Event "back\\\\slash"]']),
    ("not-tags-skipped", ['[Event "e"]', '[bad tag]', '% escape', '[White "w"]']),
    ("none", ['1. e4']),
    # Read all at once, each line must still be matched on its own:
    ("blanks-around-the-value", ['[Event\t"e"]  \t', '[Site   "s"]', '[Round\u3000"1"]']),
    ("name-and-value-on-two-lines", ['[Event', '"e"]', '[Site "s"]']),
    ("value-ending-in-a-later-line", ['[Event "e', '"]', '[White "w"]']),
    ("greedy-value", ['[Event "a"] "b"]']),
    ("carriage-return-inside", ['[Event "a\rb"]', '[Site "s"]']),
    ("empty-value-and-name-only", ['[Event ""]', '[Site]']),
]


@pytest.mark.parametrize("lines", [c[1] for c in TAG_CASES], ids=[c[0] for c in TAG_CASES])
def test_read_tags_equals_python_chess_headers(lines: list[str]) -> None:
    headers = chess.pgn.Headers({})
    for line in lines:
        match = chess.pgn.TAG_REGEX.match(line)
        if match:
            headers[match.group(1)] = unescape_tag(match.group(2))
    assert list(read_tags("\n".join(lines)).items()) == list(headers.items())
