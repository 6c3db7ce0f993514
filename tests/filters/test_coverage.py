"""Every filter name cqlindex knows is in a family table, or is refused on purpose.

The names come from the filter catalogue (``cqlindex.filters.catalogue``). A supported name that
no row of tests/filters/test_<family>.py uses fails here, and so does a REFUSED table that is not
exactly the catalogue's refusals: a new filter cannot arrive untested, nor a refusal silently
start running.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from cqlindex.errors import CqlUnsupportedError
from cqlindex.exec.run import run

#: Valid CQL that cqlindex refuses today: name -> a query using it. Each must be refused by both
#: engines with a message naming it. When one of these starts running, move it to its family table.
#: Empty since issue 18: every filter of CQL 6.2 runs (the next test keeps it equal to the catalogue's).
REFUSED: dict[str, str] = {}

_WORD = re.compile(r"(?<![\w-])[a-z][a-z0-9_]*(?:-[a-z][a-z0-9_]*)*")


def known_names() -> tuple[set[str], set[str]]:
    """(supported names, every name) of the filter catalogue, words only (no operators)."""
    from cqlindex.filters import catalogue

    supported, known = set(), set()
    for decl in catalogue.declarations():
        if decl.name[:1].isalpha():
            known.add(decl.name)
            if decl.supported:
                supported.add(decl.name)
    return supported, known


def table_words() -> dict[str, list[str]]:
    """Each word used by a row of a family table (string literals left out) -> the rows using it."""
    used: dict[str, list[str]] = {}
    for path in sorted(Path(__file__).parent.glob("test_*.py")):
        module = importlib.import_module(f"tests.filters.{path.stem}")
        for row in getattr(module, "TABLE", ()):
            for word in _WORD.findall(re.sub(r'"[^"]*"', " ", row.query)):
                used.setdefault(word, []).append(row.query)
    return used


#: Supported names that cannot have a table row, and the test that covers them instead.
ELSEWHERE = {
    "readfile": "tests/test_evaluate_strings.py (files are off unless allowed, and the tables run with defaults)",
    "writefile": "tests/test_evaluate_strings.py (files are off unless allowed, and the tables run with defaults)",
    "similarposition": "tests/test_evaluate_similarposition.py (it reads a PGN file: files are off unless "
                       "allowed, and the tables run with defaults)",
    "lcasubstring": "tests/test_evaluate_relation_lineage.py (it stops the run at a null move, as CQL 5.2 does, "
                    "and the studies have some in their variations)",
}


def test_every_supported_name_has_a_row() -> None:
    supported, _ = known_names()
    root = Path(__file__).parents[2]
    untested = [name for name, where in ELSEWHERE.items() if name not in (root / where.split()[0]).read_text()]
    assert not untested, f"ELSEWHERE names a test that does not use them: {untested}"
    supported -= set(ELSEWHERE)
    words = table_words()
    queries = {" ".join(query.split()) for rows in words.values() for query in rows}
    missing = sorted(name for name in supported - set(words)
                     if not (" " in name and any(name in query for query in queries)))
    assert not missing, f"filters without a row in any tests/filters family table: {missing}"


def test_refused_names_are_the_catalogues_refusals() -> None:
    supported, known = known_names()
    refused = known - supported
    assert set(REFUSED) == refused, (f"REFUSED lists names the catalogue runs: {sorted(set(REFUSED) - refused)}; "
                                     f"refusals without a row: {sorted(refused - set(REFUSED))}")


@pytest.mark.parametrize("engine", ["sql", "python"])
def test_refused_names_are_refused(filter_indexes, engine: str) -> None:
    for name, query in sorted(REFUSED.items()):  # one test over the table: an empty table is no skip
        with pytest.raises(CqlUnsupportedError, match=re.escape(name)):
            run(filter_indexes["plain"], query, engine=engine)
