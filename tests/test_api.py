"""The Python API, including the README's example run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import cqlindex
import cqlindex.api
from cqlindex.errors import CqlindexError, DatabaseError
from cqlindex.exec.run import run

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "samples" / "gnuchess-300.pgn"


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> cqlindex.Database:
    return cqlindex.build(SAMPLE, tmp_path_factory.mktemp("api") / "sample.duckdb", workers=1)


def test_query_returns_the_engine_matches_as_records(db: cqlindex.Database) -> None:
    query = "flipcolor {Q == 1 q == 0 r == 2 R == 0}"
    matches = db.query(query)
    expected = run(db.path, query, engine="python").matches
    assert matches.games == expected
    assert [(m.gamenumber, m.positionid) for m in matches] == [(g, p) for g, ids in expected.items() for p in ids]
    first = matches[0]
    assert first.board().fen(en_passant="fen") == first.fen
    table = matches.to_arrow()
    assert table.num_rows == len(matches) and table.column("gamenumber").to_pylist()[0] == first.gamenumber


@pytest.mark.parametrize("page", [2, 7, 1024])
def test_records_by_item_slice_and_iteration_agree_with_the_table(db: cqlindex.Database, monkeypatch,
                                                                  page: int) -> None:
    monkeypatch.setattr(cqlindex.api.Matches, "PAGE", page)
    query = "flipcolor {Q == 1 q == 0 r == 2 R == 0}"  # 65 positions in 5 games: pages end inside games
    matches = db.query(query)
    rows = [cqlindex.api.Match(**row) for row in db.query(query).to_arrow().to_pylist()]
    assert len(matches) == len(rows) > 7
    assert [matches[i] for i in range(len(matches))] == rows
    assert [matches[i] for i in range(-1, -len(matches) - 1, -1)] == rows[::-1]
    assert matches[2:7] == rows[2:7] and matches[::5] == rows[::5] and matches[-3:] == rows[-3:]
    assert list(matches) == rows
    for bad in (len(rows), -len(rows) - 1):
        with pytest.raises(IndexError):
            matches[bad]


def test_records_are_read_only_when_asked_and_only_those(db: cqlindex.Database, monkeypatch) -> None:
    read: list[int] = []
    table_of = cqlindex.api.match_table

    def counting(con, part):
        read.append(sum(len(ids) for ids in part.values()))
        return table_of(con, part)

    monkeypatch.setattr(cqlindex.api, "match_table", counting)
    monkeypatch.setattr(cqlindex.api.Matches, "PAGE", 4)
    matches = db.query("check")
    assert len(matches) > 20 and len(matches.games) > 20 and read == []
    assert matches[5] != matches[6] and read == [4]  # one page for both
    assert "and " in matches._repr_html_() and read[-1] == sum(map(len, list(matches.games.values())[:20]))
    assert matches.to_arrow().num_rows == len(matches) and read[-1] == len(matches)
    assert matches[0].gamenumber == next(iter(matches.games)) and matches.to_arrow() is matches.to_arrow()
    assert read[-1] == len(matches) and len(read) == 3  # the whole table kept: no more reads


def test_a_loop_left_early_leaves_nothing_open(db: cqlindex.Database) -> None:
    matches = db.query("check")
    for count, _ in enumerate(matches):
        if count == 3:
            break
    assert [m.positionid for m in matches][:4] == [m.positionid for m in matches[:4]]


def test_records_of_an_index_rebuilt_since_the_query_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "rebuilt.duckdb"
    first = cqlindex.build(SAMPLE, path, workers=1)
    matches = first.query("check")
    assert matches[0].gamenumber == next(iter(matches.games))
    cqlindex.build(ROOT / "samples" / "classics.pgn", path, workers=1)
    assert len(matches) == sum(map(len, matches.games.values()))  # what the query found stays
    with pytest.raises(CqlindexError, match="run the query again"):
        matches.to_arrow()
    with pytest.raises(CqlindexError, match="run the query again"):
        list(matches)


def test_a_match_renders_as_a_board_with_its_last_move(db: cqlindex.Database) -> None:
    match = db.query("move previous from N").__getitem__(0)
    svg = match._repr_svg_()
    assert svg.startswith("<svg") and "lastmove" in svg
    assert match.move_from is not None and match.move_to is not None


def test_sorted_matches_write_pgn_and_html(db: cqlindex.Database, tmp_path: Path) -> None:
    import chess.pgn

    matches = db.query('check sort "length" ply', matchcount=(10, None))
    expected = run(db.path, 'check sort "length" ply', matchcount=(10, None))
    assert list(matches.games) == list(expected.matches) and matches.sort_values == expected.sort_values
    assert list(matches.games) != sorted(matches.games)  # sorted by value, not by number
    assert list(dict.fromkeys(m.gamenumber for m in matches)) == list(matches.games)
    assert matches.write_pgn(tmp_path / "m.pgn", matchstring="here") == len(matches.games)
    with (tmp_path / "m.pgn").open() as handle:
        first = chess.pgn.read_game(handle)
    number = next(iter(matches.games))
    assert first.comment.startswith(f"Game number {number}; length: {matches.sort_values[number][0]}")
    assert sum("here" in node.comment for node in first.mainline()) == len(matches.games[number])
    boards = matches.write_html(tmp_path / "m.html", boards_per_game=None)
    # one board per match, but a run of consecutive matches (checks on both sides) shares one
    runs = sum(1 for i, m in enumerate(matches) if i == 0 or (matches[i - 1].gamenumber, matches[i - 1].positionid + 1)
               != (m.gamenumber, m.positionid))
    assert boards == runs == (tmp_path / "m.html").read_text().count('<figure class="board"') < len(matches)


def test_sql_and_engines(db: cqlindex.Database) -> None:
    assert db.sql("SELECT count(*) AS n FROM games").column("n").to_pylist() == [300]
    assert db.query("check", engine="python").games == db.query("check").games


def test_to_pandas_needs_pandas_or_says_so(db: cqlindex.Database) -> None:
    matches = db.query("check btm")
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pip install pandas"):
            matches.to_pandas()
    else:
        assert len(matches.to_pandas()) == len(matches)


def test_open_a_missing_index_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DatabaseError, match="no such database"):
        cqlindex.open(tmp_path / "nothing.duckdb")


def test_the_readme_example_runs(tmp_path: Path, monkeypatch, capsys) -> None:
    readme = (ROOT / "README.md").read_text()
    code = re.search(r"## Python API\n\n```python\n(.*?)```", readme, re.DOTALL).group(1)
    (tmp_path / "samples").mkdir()
    (tmp_path / "samples" / "gnuchess-300.pgn").write_bytes(SAMPLE.read_bytes())
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)  # noqa: S102 (the README's own example)
    assert "positions in" in capsys.readouterr().out
    assert namespace["table"].num_rows == len(namespace["matches"]) > 0
    assert namespace["counts"].column("checks").to_pylist() == [_checks_in(SAMPLE)]


def _checks_in(pgn: Path) -> int:
    """Positions with the side to move in check, in a PGN of plain main lines, counted by python-chess."""
    import chess.pgn

    checks = 0
    with pgn.open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            board = game.board()
            checks += board.is_check()
            for move in game.mainline_moves():
                board.push(move)
                checks += board.is_check()
    return checks
