"""CQL that cqlindex refuses, each with why. None today: every filter of CQL 6.2 runs (issue 18).

A name declared here with ``refused=`` and ``at_once=True`` is refused as soon as it is read; a
refused name elsewhere whose syntax is known is parsed in full (so a syntax error anywhere is still
reported as one) and refused once the whole query has parsed."""

from cqlindex.filters.spec import Decl

DECLS: tuple[Decl, ...] = ()
