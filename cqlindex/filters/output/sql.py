"""The SQL of sort, comment and message: SQL decides, Python writes the output.

Methods of :class:`cqlindex.plan.compile.Compiler`, mixed in.
"""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.plan.terms import TRUE, Cond, NumTerm, Row, SetTerm



class OutputSQL:
    """The output family's SQL."""

    __slots__ = ()

    def _cond_sort(self, node: ast.Sort, row: Row) -> Cond:
        self.python_needed.append(node)
        return self.cond(node.body, row)

    def _cond_output(self, node: ast.Output, row: Row) -> Cond:
        self.python_needed.append(node)
        return TRUE

    def _set_sort(self, node: ast.Sort, row: Row) -> SetTerm:
        return self.set(node.body, row)

    def _num_sort(self, node: ast.Sort, row: Row) -> NumTerm | None:
        return self.num(node.body, row)
