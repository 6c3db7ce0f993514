"""A request's query and options (cqlindex/serve/request.py) compose the text the CLI's options do."""

from __future__ import annotations

import pytest

from cqlindex.cql_options import compose, game_filters
from cqlindex.errors import CqlSyntaxError, InputError
from cqlindex.serve.request import QuerySpec, query_spec


@pytest.mark.parametrize(("params", "expected"), [
    ({"cql": "mate"}, QuerySpec(0, "mate", None, None, None)),
    ({"cql": "mate", "variations": "1", "db": "1"}, QuerySpec(1, "mate", True, None, None)),
    ({"cql": "mate", "variations": "0"}, QuerySpec(0, "mate", False, None, None)),
    ({"cql": "mate", "gamenumber": "3-9", "matchcount": "2"}, QuerySpec(0, "mate", None, (3, 9), (2, None))),
    ({"cql": "mate", "gamenumber": "4", "matchcount": "2-3"}, QuerySpec(0, "mate", None, (4, 4), (2, 3))),
    ({"cql": "check", "flipcolor": "1", "player": "Anderssen"},
     QuerySpec(0, compose("check", "<query>", wrap=["flipcolor"], games=game_filters(player="Anderssen")),
               None, None, None)),
    ({"cql": "", "year": "1850-1855", "result": "1-0"},
     QuerySpec(0, "\n".join(game_filters(year="1850-1855", result="1-0")), None, None, None)),
    ({"cql": "mate", "name": "mates.cql"}, QuerySpec(0, "mate", None, None, None, "mates.cql")),
])
def test_a_request_composes_the_clis_query(params, expected) -> None:
    assert query_spec(params, databases=2) == expected


@pytest.mark.parametrize(("params", "error", "said"), [
    ({"cql": "  "}, InputError, "type a query"),
    ({"cql": "mate", "db": "2"}, InputError, "db must lie between 0 and 1"),
    ({"cql": "mate", "gamenumber": "9-3"}, InputError, "range is empty"),
    ({"cql": "mate", "player": 'a"b'}, InputError, "double quote"),
    ({"cql": "mate {", "flipcolor": "1"}, CqlSyntaxError, "expected '}'"),
    ({"cql": "mat"}, CqlSyntaxError, "did you mean 'mate'"),  # said before the query reaches the pool
])
def test_a_wrong_request_is_said(params, error, said) -> None:
    with pytest.raises(error, match=said):
        query_spec(params, databases=2)
