"""The HTML report: one board per shown match, nothing unescaped, nothing fetched, and it renders.

Pages are read back with ``html.parser`` by a small checker that also requires every tag to
be closed in order, so the tests look at the page's structure rather than at strings. The last
tests load a real query's page in headless Chromium (file://, no server) and keep its screenshot
as a CI artifact.

What Chromium's log can tell: with ``--enable-logging=stderr`` every console message and uncaught
exception appears as a ``CONSOLE`` line (whatever its level), while the rest of stderr is the
browser's own noise (D-Bus, GPU) and is not the page's fault. A failed load of an image or style
sheet is not logged at all, so the page is instead checked to reference nothing but its own
fragments; a page that fetches nothing cannot fail to fetch. A control page with a deliberate
error proves the log scan still sees console messages in the installed Chromium.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import signal
import struct
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import chess
import pytest

from cqlindex.exec.run import run
from cqlindex.output.html import write_html
from cqlindex.output.records import match_records
from cqlindex.store.database import connect
from conftest import artifacts, program

LICHESS = "data/games/lichess-474.pgn"
QUERY = "cql(gamenumber 1 10) check"  # 10 games, 26 checks, two games with more than 4
PER_GAME = 4
HOSTILE = '<script>alert(1)</script> & "Co"'

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
REFERENCE_ATTRIBUTES = {"src", "href", "xlink:href", "srcset", "data", "action", "poster", "background"}


class Page(HTMLParser):
    """A page read back: its figures, ids, outside references, text, and any tag out of order."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.problems: list[str] = []
        self.figures: list[dict] = []
        self.ids: list[str] = []
        self.references: list[str] = []
        self.text: list[str] = []
        self.feed(text)
        self.close()
        self.problems += [f"<{tag}> never closed" for tag in self.stack]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._attributes(tag, attrs)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._attributes(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        self.stack.pop()
        if tag == "figcaption":
            self.figures[-1]["caption"] = " ".join("".join(self.text[self.figures[-1]["text_from"]:]).split())

    def handle_data(self, data: str) -> None:
        if self.stack and self.stack[-1] == "style":
            self.references += re.findall(r"url\((?!#)[^)]*\)|@import[^;]*|\w+://\S+", data)
        else:
            self.text.append(data)

    def _attributes(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "figure":
            self.figures.append({**values, "svgs": 0, "lastmove": [], "check": False})
        elif self.figures and "figure" in self.stack:
            figure = self.figures[-1]
            if tag == "figcaption":
                figure["text_from"] = len(self.text)
            figure["svgs"] += tag == "svg"
            figure["check"] |= values.get("class") == "check"
            if "lastmove" in (values.get("class") or "").split():
                figure["lastmove"].append(values["class"].split()[-1])
        if "id" in values:
            self.ids.append(values["id"] or "")
        for name, value in attrs:
            if name == "xmlns" or name.startswith("xmlns:") or value is None:
                continue
            if (name in REFERENCE_ATTRIBUTES and not value.startswith("#")) or "://" in value:
                self.references.append(f"<{tag} {name}={value!r}>")
            if name == "style" and ("url(" in value or "@import" in value):
                self.references.append(f"<{tag} style={value!r}>")
        if tag in ("script", "iframe", "object", "embed", "link", "base"):
            self.references.append(f"<{tag}>")


def page_of(text: str) -> Page:
    page = Page(text)
    assert page.problems == []
    assert page.references == []
    assert len(page.ids) == len(set(page.ids)), "element ids repeat"
    assert text.lstrip().lower().startswith("<!doctype html>")
    return page


def records_of(moves: str, *, gamenumber: int = 1, keep=lambda board: True, **tags: str | None) -> list[dict]:
    """Records as match_records makes them, for the positions of a game (SAN moves) that ``keep`` selects."""
    board = chess.Board()
    game = {"white": "White", "black": "Black", "result": "*", "event": "Club", "site": "?", "date": "2000.01.01",
            "eco": None, **tags}
    out = []
    for positionid, san in enumerate(["", *moves.split()]):
        move = board.push_san(san) if san else None
        if keep(board):
            out.append({"gamenumber": gamenumber, "positionid": positionid, "ply": positionid,
                        "movenumber": board.fullmove_number, "wtm": board.turn == chess.WHITE, "san": san,
                        "fen": board.fen(), **game,
                        "move_from": chess.square_name(move.from_square) if move else None,
                        "move_to": chess.square_name(move.to_square) if move else None})
    return out


def render(records: list[dict], **options) -> tuple[str, int]:
    out = io.StringIO()
    boards = write_html(records, out, query=options.pop("query", "check"), **options)
    return out.getvalue(), boards


SCHOLAR = "e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#"
LONG = "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7"  # 21 positions

# (games as (moves, every other position kept up to this many), boards_per_game, boards shown per
# game, "more" notes); every other position, so that no two matches are consecutive (see RUNS)
LIMITS = [
    ([(SCHOLAR, 4)], None, [4], []),
    ([(SCHOLAR, 4)], 12, [4], []),
    ([(SCHOLAR, 4)], 4, [4], []),
    ([(SCHOLAR, 4)], 3, [3], ["1 more position not shown"]),
    ([(LONG, 11), (SCHOLAR, 2)], 8, [8, 2], ["3 more positions not shown"]),
    ([(LONG, 11), (SCHOLAR, 4)], 2, [2, 2], ["9 more positions not shown", "2 more positions not shown"]),
    ([(LONG, 11), (SCHOLAR, 1)], None, [11, 1], []),
]


@pytest.mark.parametrize("games, per_game, shown, notes", LIMITS)
def test_one_board_per_match_up_to_the_limit(games, per_game, shown, notes) -> None:
    records = []
    for number, (moves, kept) in enumerate(games, start=1):
        records += records_of(moves, gamenumber=number)[::2][:kept]
    text, boards = render(records, boards_per_game=per_game)
    page = page_of(text)
    assert boards == sum(shown) == len(page.figures)
    expected = [(str(r["gamenumber"]), str(r["positionid"])) for number, count in enumerate(shown, start=1)
                for r in [r for r in records if r["gamenumber"] == number][:count]]
    assert [(f["data-gamenumber"], f["data-positionid"]) for f in page.figures] == expected
    assert all(f["svgs"] == 1 for f in page.figures)
    assert re.findall(r"\d+ more positions? not shown", text) == notes


# (positions of the Scholar's mate kept, boards_per_game, the boards' captions, "more" notes): a run
# of consecutive matches is one board that says how many follow and to which move
RUNS = [
    (range(8), None, ["start position and 7 more to 4. Qxf7#"], []),
    ([1, 2, 3, 6, 7], None, ["1. e4 and 2 more to 2. Qh5", "3... Nf6 and 1 more to 4. Qxf7#"], []),
    ([1, 2, 3, 6, 7], 1, ["1. e4 and 2 more to 2. Qh5"], ["2 more positions not shown"]),
    ([1, 3, 4], None, ["1. e4", "2. Qh5 and 1 more to 2... Nc6"], []),
]


def _move_of(caption: str) -> str:
    return re.sub(r" position \d+ \S+ [wb] .*$", "", caption)


@pytest.mark.parametrize("kept, per_game, captions, notes", RUNS)
def test_a_run_of_consecutive_matches_is_one_board(kept, per_game, captions, notes) -> None:
    records = [records_of(SCHOLAR)[i] for i in kept]
    text, boards = render(records, boards_per_game=per_game)
    page = page_of(text)
    assert boards == len(captions) == len(page.figures)
    assert [_move_of(f["caption"]) for f in page.figures] == captions
    assert re.findall(r"\d+ more positions? not shown", text) == notes


def test_variation_matches_are_marked() -> None:
    main, nested = records_of(SCHOLAR)[3], records_of(SCHOLAR)[7]
    records = [main, {**nested, "positionid": 9, "ply": 7, "mainline": False, "depth": 1},
               {**nested, "positionid": 12, "ply": 7, "mainline": False, "depth": 2}]
    page = page_of(render(records)[0])
    assert [_move_of(f["caption"]) for f in page.figures] == [
        "2. Qh5", "4. Qxf7# variation", "4. Qxf7# variation, depth 2"]
    assert [f["class"] for f in page.figures] == ["board", "board variation", "board variation"]


def test_the_page_names_its_index_its_games_and_the_limit() -> None:
    text, _ = render(records_of(SCHOLAR)[-1:], database="/data/<idx>.duckdb", sources=["/data/a.pgn", "b.pgn"],
                     limit=3)
    words = " ".join("".join(page_of(text).text).split())
    assert "Index /data/<idx>.duckdb; games from /data/a.pgn, b.pgn" in words
    assert "Only the first 3 matching games (--limit 3)." in words
    assert "--limit" not in render(records_of(SCHOLAR)[-1:])[0]


# (moves, position shown, caption's move, last move squares, check marked)
POSITIONS = [
    (SCHOLAR, 0, "start position", [], False),
    (SCHOLAR, 1, "1. e4", ["e2", "e4"], False),
    (SCHOLAR, 2, "1... e5", ["e7", "e5"], False),
    (SCHOLAR, 7, "4. Qxf7#", ["h5", "f7"], True),
    (LONG, 17, "9. h3", ["h2", "h3"], False),
    ("e4 e5 Nf3 Nc6 Bc4 Bc5 O-O Nf6", 7, "4. O-O", ["e1", "g1"], False),
]


@pytest.mark.parametrize("moves, positionid, label, lastmove, check", POSITIONS)
def test_caption_and_last_move(moves, positionid, label, lastmove, check) -> None:
    record = records_of(moves)[positionid]
    [figure] = page_of(render([record])[0]).figures
    assert figure["caption"] == f"{label} position {positionid} {record['fen']}"
    assert sorted(figure["lastmove"]) == sorted(lastmove)
    assert figure["check"] is check


def test_text_from_games_and_query_is_escaped() -> None:
    records = records_of(SCHOLAR, keep=chess.Board.is_check, white=HOSTILE, black=HOSTILE, event=HOSTILE,
                         site=HOSTILE, date=HOSTILE, result=HOSTILE, eco=HOSTILE)
    text, boards = render(records, query=f"{HOSTILE}\ncheck", summary=HOSTILE)
    page = page_of(text)
    assert boards == 1
    assert "<script" not in text.lower()
    escaped = "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#34;Co&#34;"  # as markupsafe escapes
    # title, query, summary, white, black, result, event, site, date, ECO
    assert text.count(escaped) == 10
    assert "".join(page.text).count(HOSTILE) == 10


@pytest.mark.parametrize("summary", [None, "0 matches of 474 games in 0.1 seconds"])
def test_no_matches_is_a_page_saying_so(summary) -> None:
    text, boards = render([], summary=summary)
    page = page_of(text)
    assert boards == 0 and page.figures == []
    assert "No games matched." in page.text
    assert (summary in page.text) is (summary is not None)


def test_unknown_tags_are_left_out() -> None:
    text, _ = render(records_of(SCHOLAR, keep=chess.Board.is_checkmate, event="?", site="?", date="????.??.??",
                                eco=None, white=None))
    meta = re.search(r'<p class="meta">(.*?)</p>', text).group(1)
    assert meta == "1 matching position"
    assert "? – Black" in "".join(page_of(text).text)


@pytest.fixture(scope="module")
def report(build_db, tmp_path_factory) -> tuple[Path, list[dict], int]:
    """The page of a real query on real games: its path, the records, and how many boards it drew."""
    db = build_db(LICHESS)
    result = run(db, QUERY)
    con = connect(db)
    try:
        records = match_records(con, result.matches)
    finally:
        con.close()
    assert len(records) == sum(len(ids) for ids in result.matches.values())
    path = tmp_path_factory.mktemp("html") / "report.html"
    with path.open("w", encoding="utf-8") as out:
        boards = write_html(records, out, query=QUERY, summary=f"{len(records)} matches of {len(result.matches)} games",
                            boards_per_game=PER_GAME)
    return path, records, boards


def test_a_real_query_end_to_end(report) -> None:
    path, records, boards = report
    page = page_of(path.read_text(encoding="utf-8"))
    per_game: dict[int, list[dict]] = {}
    for record in records:
        per_game.setdefault(record["gamenumber"], []).append(record)
    shown = [r for game in per_game.values() for r in game[:PER_GAME]]
    assert boards == len(shown) == len(page.figures)
    assert any(len(game) > PER_GAME for game in per_game.values()), "the query must exercise the limit"
    for figure, record in zip(page.figures, shown):
        assert (figure["data-gamenumber"], figure["data-positionid"]) == (str(record["gamenumber"]),
                                                                            str(record["positionid"]))
        assert figure["caption"].endswith(record["fen"]) and record["san"] in figure["caption"]
        assert len(figure["lastmove"]) == 2 and figure["check"]  # every match is a check after a move
    # the drawings every board shares are in the page once, and every reference to one resolves
    html_text = path.read_text(encoding="utf-8")
    referenced = set(re.findall(r'href="#([^"]+)"', html_text)) | set(re.findall(r"url\(#([^)]+)\)", html_text))
    assert referenced and referenced <= set(page.ids)
    assert html_text.count('id="white-pawn"') == 1
    assert len(html_text.encode()) / boards < 16_000  # chess.svg alone draws about 28 KB a board
    text = "".join(page.text)
    for number, game in per_game.items():
        assert f"Game {number}" in text and f"{game[0]['white']} – {game[0]['black']}" in text


# Headless Chromium

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0")
CONSOLE = re.compile(r":CONSOLE\b.*")
PNG = b"\x89PNG\r\n\x1a\n"
WINDOW = (1280, 2000)
TIMEOUT = 120  # seconds; a load takes about one


@pytest.fixture(scope="module")
def browser() -> str:
    return program(BROWSERS, "headless browser")


def load(browser: str, page: Path, profile: Path, screenshot: Path) -> tuple[str, list[str]]:
    """The DOM after the page loaded, and the console lines Chromium logged meanwhile.

    One run does both: the DOM is dumped and the screenshot taken once the page has loaded.
    Chromium runs in a session of its own so that a hung run can be ended with all its helpers.
    """
    profile.mkdir()
    process = subprocess.Popen(
        [browser, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", f"--screenshot={screenshot}",
         f"--window-size={WINDOW[0]},{WINDOW[1]}", page.resolve().as_uri()],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace", start_new_session=True)
    try:
        dom, log = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"{browser} did not finish loading {page} in {TIMEOUT} s")
    assert process.returncode == 0, log
    return dom, [m.group(0) for m in CONSOLE.finditer(log)]


def test_the_console_scan_sees_errors(browser, tmp_path) -> None:
    control = tmp_path / "control.html"
    control.write_text('<!DOCTYPE html><html><head><meta charset="utf-8"><title>control</title></head><body>'
                       '<script>console.error("deliberate"); undefinedName();</script></body></html>')
    _, console = load(browser, control, tmp_path / "profile", tmp_path / "control.png")
    assert any("deliberate" in line for line in console), console
    assert any("undefinedName is not defined" in line for line in console), console


def load_as_artifact(browser: str, path: Path, name: str, tmp_path: Path) -> tuple[str, Path]:
    """Load the page in Chromium, keeping it and its screenshot as artifacts; the DOM, and the screenshot."""
    folder = artifacts()
    shutil.copy(path, folder / f"{name}.html")
    screenshot = folder / f"{name}.png"
    screenshot.unlink(missing_ok=True)
    dom, console = load(browser, path, tmp_path / "profile", screenshot)
    assert console == []
    return dom, screenshot


def test_chromium_renders_every_board(browser, report, tmp_path) -> None:
    path, _, boards = report
    dom, screenshot = load_as_artifact(browser, path, "report", tmp_path)
    page = page_of(dom)
    assert len(page.figures) == boards > 0
    assert all(f["svgs"] == 1 for f in page.figures)
    data = screenshot.read_bytes()
    assert data[:8] == PNG and data[12:16] == b"IHDR"
    assert struct.unpack(">II", data[16:24]) == WINDOW
    # A page of a few lines of text makes about 15 kB at this size; these boards about 250 kB.
    assert len(data) > 50_000, f"{len(data)} bytes: a blank page?"


@pytest.fixture(scope="module")
def classics_report(tmp_path_factory) -> Path:
    """The page of every mate of samples/classics.pgn, variations included: a game set up from a
    FEN at move 28 and a mate that lies only in a variation are on it."""
    from cqlindex.ingest.pipeline import build

    folder = tmp_path_factory.mktemp("classics-html")
    db = folder / "classics.duckdb"
    build([str(Path(__file__).resolve().parents[1] / "samples" / "classics.pgn")], db, workers=1)
    result = run(db, "mate", variations=True)
    con = connect(db)
    try:
        records = match_records(con, result.matches)
    finally:
        con.close()
    path = folder / "mates.html"
    with path.open("w", encoding="utf-8") as out:
        write_html(records, out, query="mate", summary="6 matches", database=str(db), sources=["classics.pgn"])
    return path


def test_chromium_renders_a_fen_game_and_a_variation_match(browser, classics_report, tmp_path) -> None:
    dom, screenshot = load_as_artifact(browser, classics_report, "classics-mates", tmp_path)
    page = page_of(dom)
    captions = {f["data-gamenumber"]: (f["class"], f["caption"]) for f in page.figures}
    assert len(page.figures) == 6 and all(f["svgs"] == 1 and f["check"] for f in page.figures)
    assert captions["5"][0] == "board" and captions["5"][1].startswith("29. Qg5# position 3 ")
    assert captions["5"][1].endswith(" 29")  # the FEN's fullmove number is the PGN's
    assert captions["7"][0] == "board variation" and captions["7"][1].startswith("4. Qxf7# variation position ")
    words = " ".join("".join(page.text).split())
    assert "Index " in words and "games from classics.pgn" in words
    assert screenshot.read_bytes()[:8] == PNG
