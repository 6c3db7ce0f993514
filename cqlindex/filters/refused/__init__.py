"""CQL that cqlindex refuses, each with why: the comparison of positions with another file
(``similarposition``), refused as soon as it is read; a refused
name elsewhere whose syntax is known is parsed in full (so a syntax error anywhere is still
reported as one) and refused once the whole query has parsed."""

from cqlindex.filters.spec import LOGICAL, declare

d = declare("refused")

DECLS = (
    *(d(name, None, kind, what, refused=why, at_once=True, example=name) for name, kind, what, why in (
        ("similarposition", LOGICAL, "a position like this one elsewhere", "position similarity"),
    )),
)
