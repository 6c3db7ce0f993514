"""CQL that cqlindex refuses, each with why: Tier 3 control flow, and the
problem-chess predicates. A refused name is parsed in full where its syntax is known (so a
syntax error anywhere is still reported as one) and refused once the whole query has parsed."""

from cqlindex.cql import ast
from cqlindex.filters.spec import LOGICAL, NUMBER, STRING, declare

d = declare("refused")
_C = ast.Call

DECLS = (
    *(d(name, _C, kind, what, grammar="parse_tier3", refused=why, example=example)
      for name, kind, what, why, example in (
        ("assert", LOGICAL, "stop with an error unless a filter matches", "assertions", "assert check"),
        ("while", LOGICAL, "'while (C) F': repeat F while C matches", "loops", "while (check) mate"),
    )),
    *(d(name, None, kind, what, refused=why, at_once=True, example=name) for name, kind, what, why in (
        ("cql_abort", LOGICAL, "stop the run", "control flow"),
        ("similarposition", LOGICAL, "a position like this one elsewhere", "position similarity"),
    )),
)
