"""The parser against the reference parser's verdicts on 7,055 query strings.

Prints agreement per group (run with -s to see it). What must hold now: no query makes the
parser fail with anything but a CqlSyntaxError or CqlUnsupportedError, and the groups of the
core filters agree at least as well as recorded below, so a regression fails the test.
"""

from __future__ import annotations

import collections
import json

from cqlindex.cql.parser import parse
from cqlindex.errors import CqlSyntaxError, CqlUnsupportedError
from tests.conftest import shared_path

# Agreement floors (fraction of cases) for the groups whose filters the parser covers.
FLOORS = {"filters": 0.52, "filters_comparison": 0.92, "filter_line": 0.64, "filter_square": 0.66,
          "filter_path": 0.97}


def test_parse_cases_agreement() -> None:
    tally: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for line in shared_path("acceptance/parse-cases.jsonl").read_text().splitlines():
        case = json.loads(line)
        try:
            parse(case["query"])
            got = "accept"
        except CqlUnsupportedError:
            got = "unsupported"
        except CqlSyntaxError:
            got = "reject"
        tally[case["group"]]["agree" if got == case["reference"] else f"{case['reference']}->{got}"] += 1
    print()
    for group, counts in sorted(tally.items()):
        total = sum(counts.values())
        print(f"{group:28s} {counts['agree']:5d}/{total:5d}  {dict(counts - collections.Counter(agree=counts['agree']))}")
    for group, floor in FLOORS.items():
        counts = tally[group]
        assert counts["agree"] / sum(counts.values()) >= floor, (group, counts)
