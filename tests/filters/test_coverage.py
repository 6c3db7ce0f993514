"""Every filter name cqlindex knows is in a family table, or is refused on purpose.

The names come from the filter catalogue (``cqlindex.filters``) once it exists, and from the
parser's tables until then (its keyword dispatch, the name tuples, and the words its grammar
matches in place, such as ``attacks`` or ``then``). A supported name that no row of
tests/filters/test_<family>.py uses fails here, and so does a name the REFUSED table says is
refused but that runs: a new filter cannot arrive untested, nor a refusal silently start running.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

from cqlindex.errors import CqlUnsupportedError
from cqlindex.exec.run import run

#: Valid CQL that cqlindex refuses today: name -> a query using it. Each must be refused by both
#: engines with a message naming it. When one of these starts running, move it to its family table.
REFUSED = {
    "atomic": "atomic x = 1 check", "cql_abort": "cql_abort",
    "currentmove": "currentmove --", "currenttransform": "currenttransform", "echorotate45": "relation echorotate45 (mismatch 0)",
    "lastgamenumber": "gamenumber == lastgamenumber",
    "lcamax": "relation (lcamax 1 3)", "lcasum": "relation (lcasum 2)", "lcasource": "relation (lcasource 1)",
    "lcatarget": "relation (lcatarget 1)", "lcasubstring": "relation (lcasubstring 1 2)",
    "similarposition": "similarposition", "virtualmainline": "virtualmainline",
}

_WORD = re.compile(r"(?<![\w-])[a-z][a-z0-9_]*(?:-[a-z][a-z0-9_]*)*")


def _parser_names() -> set[str]:
    """Every name the parser knows today: its tables and the words its grammar matches in place."""
    from cqlindex.cql import parser, path_syntax

    names = {*parser.Parser.KEYWORDS, *parser.NULLARY, *parser.TRANSFORMS, *parser.DIRECTIONS, *parser.LINE_PARAMS,
             *parser.MOVE_KINDS, *parser.UNSUPPORTED, *parser.UNSUPPORTED_NULLARY, *path_syntax.PATH_PARAMS,
             *path_syntax.PATH_PARAMS_LATER}
    source = inspect.getsource(parser) + inspect.getsource(path_syntax)
    for call in re.finditer(r"(?:at_word|is_word)\(([^)]*)\)", source):
        names.update(re.findall(r'"([a-z0-9_-]+)"', call.group(1)))
    return names


def _catalogue_names(catalogue) -> tuple[set[str], set[str]]:
    """(supported, refused) names of the filter catalogue, whichever of the likely shapes it has."""
    declarations = getattr(getattr(catalogue, "catalogue", None), "declarations", None)
    if callable(declarations):  # cqlindex.filters.catalogue.declarations(): Decl(name, supported, ...)
        supported, refused = set(), set()
        for decl in declarations():
            if decl.name[:1].isalpha():
                (supported if decl.supported else refused).add(decl.name)
        return supported, refused
    if callable(getattr(catalogue, "supported_names", None)):
        return set(catalogue.supported_names()), set(getattr(catalogue, "refused_names", lambda: ())())
    for attribute in ("CATALOGUE", "FILTERS", "DECLARATIONS", "ALL", "catalogue"):
        entries = getattr(catalogue, attribute, None)
        if callable(entries):
            entries = entries()
        if isinstance(entries, dict):
            entries = entries.values()
        if entries is None:
            continue
        supported, refused = set(), set()
        for entry in entries:
            status = str(getattr(entry, "status", "supported"))
            (supported if status.lower().startswith("supported") else refused).add(entry.name)
        return supported, refused
    pytest.fail("cqlindex.filters exists but exposes no list of names this test knows: teach _catalogue_names "
                "its shape (e.g. supported_names())")


def known_names() -> tuple[set[str], set[str]]:
    """(names that must have a row, names the REFUSED table may claim): from the catalogue when it exists."""
    try:
        catalogue = importlib.import_module("cqlindex.filters")
        importlib.import_module("cqlindex.filters.catalogue")
    except ModuleNotFoundError as error:
        if error.name != "cqlindex.filters":
            raise
        names = _parser_names()
        return names - set(REFUSED), names
    supported, refused = _catalogue_names(catalogue)
    return supported, supported | refused


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
@pytest.mark.parametrize("name, query", sorted(REFUSED.items()), ids=sorted(REFUSED))
def test_refused_names_are_refused(filter_indexes, name: str, query: str, engine: str) -> None:
    with pytest.raises(CqlUnsupportedError, match=re.escape(name)):
        run(filter_indexes["plain"], query, engine=engine)
