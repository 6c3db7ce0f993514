"""The page of ``cqlindex serve`` in headless Chromium, as a user goes through it (issue 36's
scenario): type ``mate``, see the six games (the variation mate marked); open a game, step to
the mate and see it highlighted; type a bad query and see the caret; run three .cql files as a
table; download the PGN and compare it with ``cqlindex query ... -o`` byte for byte. A
screenshot of each step goes to ``$CQLINDEX_ARTIFACTS``.

Driven by selenium through Debian's chromedriver with Debian's chromium (both offline: nothing
is downloaded). Skipped on a machine without them, failed under ``CI=true``.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from conftest import artifacts, program
from serve_fixtures import cli, running_server, sample_db  # noqa: F401 - the fixture

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
DRIVERS = ("chromedriver",)
WAIT = 30  # seconds for anything the page does


@pytest.fixture(scope="module")
def downloads(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("downloads")


@pytest.fixture(scope="module")
def page(sample_db, downloads):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver = program(BROWSERS, "headless browser"), program(DRIVERS, "chromedriver")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--window-size=1400,950", "--disable-background-networking", "--disable-component-update"):
        options.add_argument(flag)
    with running_server(sample_db, "--workers", "2") as (url, _):
        chrome = webdriver.Chrome(service=Service(driver), options=options)
        try:
            chrome.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
            chrome.get(url)
            yield chrome
        finally:
            chrome.quit()


def _until(condition, what: str):
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    pytest.fail(f"the page did not {what} in {WAIT} s")


def _shot(page, name: str) -> None:
    assert page.save_screenshot(str(artifacts() / f"serve-{name}.png"))


def _rows(page, table: str = "games") -> list[list[str]]:
    """The cells of a table's body as shown, read in one script (the page may redraw it meanwhile)."""
    return page.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(r => [...r.cells].map(c => c.innerText.trim()))",
        f"#{table} tbody tr")


def _type_query(page, text: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    box = page.find_element(By.ID, "cql")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.DELETE)
    box.send_keys(text)


def test_1_typing_mate_lists_the_six_games(page) -> None:
    from selenium.webdriver.common.by import By

    page.find_element(By.ID, "variations").click()
    _type_query(page, "mate")  # answered as it is typed: no button
    rows = _until(lambda: len(_rows(page)) == 6 and _rows(page), "list six games")
    assert [r[0] for r in rows] == ["1", "2", "3", "4", "5", "7"]
    assert page.find_element(By.ID, "totals").text.startswith("6 games, 6 positions")
    marked = page.find_elements(By.CSS_SELECTOR, "#games td.variation")
    assert [cell.text for cell in marked] == ["4. Qxf7# (variation)"]
    _shot(page, "1-results")


def test_2_a_game_steps_to_its_mate_highlighted(page) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    page.find_element(By.CSS_SELECTOR, '#games tbody tr[data-game="1"]').click()
    _until(lambda: "Morphy" in page.find_element(By.ID, "game-title").text, "open game 1")
    body = page.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.HOME)
    _until(lambda: page.find_element(By.ID, "where").text == "start", "go to the start")
    for _ in range(3):
        body.send_keys(Keys.ARROW_RIGHT)
    _until(lambda: page.find_element(By.ID, "where").text.startswith("2. Nf3"), "step forward by arrow keys")
    body.send_keys(Keys.ARROW_DOWN)  # the next match
    where = _until(lambda: "match" in page.find_element(By.ID, "where").get_attribute("class") and
                   page.find_element(By.ID, "where"), "step to the match")
    assert where.text == "17. Rd8# — match"
    current = page.find_element(By.CSS_SELECTOR, "#moves .mv.current")
    assert current.text == "17. Rd8#" and "match" in current.get_attribute("class")
    board = page.find_element(By.ID, "board").get_attribute("src")
    assert "move=d1d8" in board and _until(lambda: page.execute_script(
        "return document.getElementById('board').complete && document.getElementById('board').naturalWidth"),
        "draw the board")
    page.find_element(By.ID, "flip").click()
    _until(lambda: "flip=1" in page.find_element(By.ID, "board").get_attribute("src"), "flip the board")
    _shot(page, "2-game")


def test_3_a_bad_query_shows_the_caret(page) -> None:
    from selenium.webdriver.common.by import By

    _type_query(page, "check\nmat")
    error = _until(lambda: page.find_element(By.ID, "error").is_displayed() and page.find_element(By.ID, "error"),
                   "show the error")
    lines = _until(lambda: "did you mean 'mate'" in error.text and error.text.splitlines(), "say what was meant")
    assert lines[-2:] == ["    mat", "    ^^^"]
    start = page.execute_script("return document.getElementById('cql').selectionStart")
    assert start == len("check\n")  # the box's own caret at the spot
    _shot(page, "3-error")


def test_4_three_cql_files_run_as_one_table(page, tmp_path) -> None:
    from selenium.webdriver.common.by import By

    files = {"a-mate.cql": "mate", "b-stalemate.cql": "stalemate", "c-check.cql": "check"}
    for name, text in files.items():
        (tmp_path / name).write_text(f"cql(variations)\n{text}\n")
    page.find_element(By.CSS_SELECTOR, '.tab[data-tab="folder"]').click()
    page.find_element(By.ID, "files").send_keys("\n".join(str(tmp_path / n) for n in files))

    def table():
        rows = _rows(page, "folder-table")
        return len(rows) == 3 and all(r[1] not in ("…", "") for r in rows) and rows

    rows = _until(table, "fill the table")
    assert [r[:3] for r in rows[:2]] == [["a-mate.cql", "6", "6"], ["b-stalemate.cql", "0", "0"]]
    assert rows[2][0] == "c-check.cql" and int(rows[2][1]) > 100
    _shot(page, "4-folder")
    page.find_elements(By.CSS_SELECTOR, "#folder-table tbody tr")[0].click()  # that file's results
    _until(lambda: len(_rows(page)) == 6, "open the file's results")


def test_5_the_downloaded_pgn_is_the_clis(page, sample_db, downloads, tmp_path) -> None:
    from selenium.webdriver.common.by import By

    _type_query(page, "mate")
    # The totals of the file opened by test 4 (its mate) say "6 games" too: wait for the link
    # made from this query's answer, not for a text already on the page before it ran.
    _until(lambda: "cql=mate&" in (page.find_element(By.ID, "dl-pgn").get_attribute("href") or "")
           and page.find_element(By.ID, "totals").text.startswith("6 games"), "run mate")
    page.find_element(By.ID, "dl-pgn").click()
    saved = downloads / "cqlindex-result.pgn"
    _until(lambda: saved.exists() and saved.stat().st_size > 0 and not list(downloads.glob("*.crdownload")),
           "download the PGN")
    expected = tmp_path / "mates.pgn"
    done = cli("query", str(sample_db), "mate", "--variations", "-o", str(expected), "-q")
    assert done.returncode == 0, done.stderr
    assert saved.read_bytes() == expected.read_bytes()
    _shot(page, "5-download")
