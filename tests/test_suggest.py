"""A misspelt filter gets a "did you mean" with the filter the user meant."""

from __future__ import annotations

import pytest

from cqlindex.cql.parser import parse
from cqlindex.errors import CqlSyntaxError
from cqlindex.suggest import did_you_mean, known_names

# (query, the misspelt word, what should be offered first)
MISSPELT = [
    ("mat", "mat", "mate"),
    ("chek", "chek", "check"),
    ("flipcolr {Ka1}", "flipcolr", "flipcolor"),
    ("A attaks k", "attaks", "attacks"),
    ("stalmate", "stalmate", "stalemate"),
    ("btm rsult 1-0", "rsult", "result"),
]


@pytest.mark.parametrize("text, word, meant", MISSPELT)
def test_a_misspelt_filter_says_what_was_meant(text: str, word: str, meant: str) -> None:
    with pytest.raises(CqlSyntaxError) as error:
        parse(text)
    assert f"unknown filter or variable '{word}'; did you mean '{meant}'" in str(error.value)
    assert "^" in error.value.render()


def test_nothing_close_offers_nothing() -> None:
    with pytest.raises(CqlSyntaxError) as error:
        parse("xyzzy")
    assert str(error.value).endswith("unknown filter or variable 'xyzzy'")
    assert did_you_mean("xyzzy") == [] and did_you_mean("mate") == []


def test_the_names_are_the_catalogues() -> None:
    from cqlindex.filters import catalogue

    from cqlindex.filters.spec import FILTER

    assert known_names() == frozenset(catalogue.names(FILTER))
    assert "match" not in known_names() and "match" in catalogue.names()  # relation's parameter, not a filter
    assert {"attacks", "attackedby", "flipcolor", "mate", "check"} <= known_names()
