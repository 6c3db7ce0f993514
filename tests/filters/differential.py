"""One row of a family table, checked on every position: the SQL plan against the evaluator.

For a CQL query, an index and a mode (main line or variations):

- the plan's SQL is run as it stands, giving the candidate positions;
- the evaluator (the ``python`` engine, the reference) gives the matching positions;
- an exact plan's candidates must be exactly the matches (after the header's matchcount, which
  acts on whole games), a narrowed plan's candidates a superset of them;
- the columnar engine, run at every position (not only the plan's candidates), must match
  exactly where the evaluator matches, when it takes the query;
- the default engine's answer (matches in output order, sort values, comments, messages) must
  equal the Python engine's.

Only public entry points are used (``exec.run.plan_for`` / ``run``), so the tables hold whatever
the planner and the evaluator become. A row also states the verdict it has today on the plain
index in each mode (exact, or narrowed and confirmed in Python): a filter the planner stops
deciding in SQL shows up as a failing row, and a row it starts deciding is updated on purpose.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pytest

from cqlindex.columnar.values import NotColumnar
from cqlindex.exec.run import plan_for, run
from tests.filters.everywhere import columnar_everywhere, plain_body

EXACT = "exact"  # the plan's rows are the matches
NARROWED = "narrowed"  # the plan's rows are candidates; Python decides

#: (index, variations): every row runs in each. Two cells between them cover both modes and both
#: castling planners: the plain index with variations, and the Chess960 index (engine games: main
#: lines only) in main-line mode. The default suite runs one of the two per row, taking turns down
#: each table, so a table as a whole is checked in both; every other cell runs with -m slow, which
#: CI runs after the default suite.
CELLS = [("plain", False), ("plain", True), ("chess960", False), ("chess960", True)]
CELL_IDS = ["plain-mainline", "plain-variations", "chess960-mainline", "chess960-variations"]
TAKING_TURNS = ("plain-variations", "chess960-mainline")


@dataclass(frozen=True)
class Row:
    """A query of a family table, its verdict on the plain index, and known disagreements by cell id."""

    query: str
    verdict: str  # on the plain index, main line
    variations: str | None = None  # on the plain index with variations, where it differs
    #: cell id ("plain-mainline"...) -> the precise disagreement, marked xfail(strict=True) there
    known: dict[str, str] = field(default_factory=dict)


def cases(table: list[Row]) -> list:
    """pytest params (row, cell) of a family table, with a known disagreement marked strict xfail."""
    out = []
    for number, row in enumerate(table):
        for cell, cell_id in zip(CELLS, CELL_IDS):
            marks = [pytest.mark.xfail(strict=True, reason=row.known[cell_id])] if cell_id in row.known else []
            if cell_id != TAKING_TURNS[number % 2]:
                marks.append(pytest.mark.slow)
            out.append(pytest.param(row, cell, id=f"{row.query}|{cell_id}", marks=marks))
    return out


def _pairs(matches: dict[int, list[int]]) -> set[tuple[int, int]]:
    return {(game, position) for game, ids in matches.items() for position in ids}


def _within(count: int, matchcount: tuple[int, int | None] | None) -> bool:
    low, high = matchcount or (1, None)
    return count >= low and (high is None or count <= high)


def check(indexes: dict[str, Path], row: Row, cell: tuple[str, bool]) -> None:
    """Fail, saying where, unless the row's SQL and Python agree on every position of the cell."""
    name, variations = cell
    db = indexes[name]
    where = f"{row.query!r} on {name}, {'variations' if variations else 'main line'}"
    plan = plan_for(db, row.query, variations=variations)
    con = duckdb.connect(str(db), read_only=True)
    try:
        candidates = set(con.execute(plan.sql).fetchall())
    finally:
        con.close()
    expected = run(db, row.query, variations=variations, engine="python")
    matches = _pairs(expected.matches)
    missed = sorted(matches - candidates)
    assert not missed, f"{where}: the SQL drops matches (gamenumber, positionid) {missed[:5]} of {len(missed)}"
    if plan.exact:
        counts: dict[int, int] = {}
        for game, _ in candidates:
            counts[game] = counts.get(game, 0) + 1
        kept = {(g, p) for g, p in candidates if _within(counts[g], expected.query.header.matchcount)}
        extra = sorted(kept - matches)
        assert not extra, f"{where}: an exact plan returns non-matches {extra[:5]} of {len(extra)}"
    # The verdicts on the plain index in both modes, whichever cell runs (planning alone is cheap).
    for mode, said in ((False, row.verdict), (True, row.variations or row.verdict)):
        exact = (plan.exact if (name, mode) == ("plain", variations)
                 else plan_for(indexes["plain"], row.query, variations=mode).exact)
        assert (EXACT if exact else NARROWED) == said, (f"{row.query!r} on plain, "
                                                        f"{'variations' if mode else 'main line'}: the plan is "
                                                        f"{'exact' if exact else 'narrowed'} now, the table says {said}")
    got = run(db, row.query, variations=variations)
    assert list(got.matches.items()) == list(expected.matches.items()), \
        f"{where}: the default engine's matches differ: {sorted(_pairs(got.matches) ^ matches)[:5]}"
    assert got.sort_values == expected.sort_values, f"{where}: sort values differ"
    assert got.comments == expected.comments, f"{where}: comments differ"
    assert got.messages == expected.messages, f"{where}: messages differ"
    _check_columnar_everywhere(db, row.query, variations, {g: list(ids) for g, ids in expected.matches.items()}, where)


def _check_columnar_everywhere(db: Path, query: str, variations: bool, expected: dict[int, list[int]],
                               where: str) -> None:
    """The columnar engine at every position of the index agrees with the evaluator's matches."""
    if not plain_body(query):
        return
    try:
        got = columnar_everywhere(db, query, variations)
    except NotColumnar:  # a value no kernel takes: the default engine gave it to the tree-walker
        return
    if got is not None:
        wrong = sorted(g for g in set(got) | set(expected) if got.get(g) != expected.get(g))
        assert not wrong, f"{where}: the columnar engine at every position differs in games {wrong[:5]}"
