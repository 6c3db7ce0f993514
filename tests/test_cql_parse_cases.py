"""The parser against the reference parser's verdicts on 7,055 query strings.

Prints, per group, how often cqlindex gives the reference's verdict (run with -s to see it).
What must hold: no query makes the parser fail with anything but a CqlSyntaxError or a
CqlUnsupportedError, and every in-scope group agrees at least as well as recorded in FLOORS,
so a regression fails the test.

Two figures per group:

* agreement: cqlindex's verdict is the reference's. A query the reference accepts and cqlindex
  refuses as unsupported counts against it.
* syntax agreement: the same, except that such a refusal counts as agreeing. Constructs outside
  cqlindex's tiers are parsed in full before they are refused (see Parser.defer_unsupported),
  so this figure measures the grammar alone; the gap between the two is the Tier 3 and CQL 6.2
  forms cqlindex does not run (functions, persistent, strings, '[<]' ...).
"""

from __future__ import annotations

import collections
import json

from cqlindex.cql.parser import parse
from cqlindex.errors import CqlSyntaxError, CqlUnsupportedError
from tests.conftest import shared_path

#: Groups whose filters are in Tiers 1-2 of CQL.md: (agreement floor, syntax agreement floor).
FLOORS = {
    "filters": (1.0, 1.0),
    "filters_assign": (1.0, 1.0),
    "filter_dictionary": (1.0, 1.0),
    "filter_local": (1.0, 1.0),
    "filters_comparison": (1.0, 1.0),
    "filters_implicit_search": (1.0, 1.0),
    "filters_iteration": (1.0, 1.0),
    "filter_assign_logical": (1.0, 1.0),
    "filter_line": (1.0, 1.0),
    "filter_pin": (1.0, 1.0),
    "filter_square": (1.0, 1.0),
    "filter_dash_ascii": (1.0, 1.0),
    "filter_dash_utf8": (1.0, 1.0),
    "filter_take_ascii": (1.0, 1.0),
    "filter_take_utf8": (1.0, 1.0),
    "filter_path": (1.0, 1.0),
    "filter_regex": (1.0, 1.0),
    "filter_countmoves": (1.0, 1.0),
    "filter_legal": (1.0, 1.0),
    "filter_pseudolegal": (1.0, 1.0),
    "filter_hhdb": (1.0, 1.0),
}

#: Groups left out of the floors, and why.
OUT_OF_SCOPE = {
    # Not reference verdicts: these come from chessql's test_cql_strings.py, which only checks
    # how chessql's token regex splits a fragment ('(--', '{--N', 'b--R=n'); it never runs the
    # cql binary, so "accept" there means "tokenizes", and fragments such as '(--' or 'R--)'
    # are not queries at all. The parser is right to reject them.
    "cql_strings": "tokenizer fragments, not reference verdicts",
}


def verdict(query: str) -> str:
    try:
        parse(query)
    except CqlUnsupportedError:
        return "unsupported"
    except CqlSyntaxError:
        return "reject"
    return "accept"


def test_parse_cases_agreement() -> None:
    tally: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for line in shared_path("acceptance/parse-cases.jsonl").read_text().splitlines():
        case = json.loads(line)
        got = verdict(case["query"])
        tally[case["group"]]["agree" if got == case["reference"] else f"{case['reference']}->{got}"] += 1
    assert set(tally) == set(FLOORS) | set(OUT_OF_SCOPE)
    print()
    failures = []
    for group, counts in sorted(tally.items()):
        total = sum(counts.values())
        agree, syntax = counts["agree"], counts["agree"] + counts["accept->unsupported"]
        scope = "in scope" if group in FLOORS else f"out: {OUT_OF_SCOPE[group]}"
        print(f"{group:24s} {agree:4d}/{total:4d} {agree / total:6.1%}  syntax {syntax / total:6.1%}  {scope}")
        print(f"{'':24s} {dict(counts - collections.Counter(agree=agree))}")
        if group in FLOORS:
            floor, syntax_floor = FLOORS[group]
            if agree / total < floor or syntax / total < syntax_floor:
                failures.append((group, agree / total, syntax / total, dict(counts)))
    assert not failures, failures
