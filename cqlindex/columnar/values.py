"""A filter's value at many positions at once: one array per value, and where it is defined.

The tree-walking evaluator returns None where a filter does not match and a Python value
where it does; here a filter returns a :class:`Val`: its kind (``bool`` for a bare match,
``num``, ``set`` as uint64 boards, ``pos`` as row indexes of the frame, ``str`` for the one-letter
strings of piece names as their code points, ``""`` as 0), the data aligned with
the context's rows, and ``ok``, where it has a value. A set matches where it is defined and
not empty, as in :meth:`cqlindex.evaluate.context.Evaluator.test`.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np

from cqlindex.columnar import bitboards as B
from cqlindex.cql import ast

BOOL, NUM, SET, POS, STR = "bool", "num", "set", "pos", "str"
#: CQL's comparison operators, each applied to whole arrays.
COMPARE = {"<": operator.lt, "<=": operator.le, "==": operator.eq, ">=": operator.ge, ">": operator.gt,
           "!=": operator.ne}
_DTYPES = {NUM: np.int64, SET: np.uint64, POS: np.int64, STR: np.int64}


class NotColumnar(Exception):
    """Raised where a filter (or a value it meets) is not evaluated on columns: the caller then
    runs the tree-walking evaluator instead, so coverage is never lost. ``node`` names it."""

    def __init__(self, node: ast.Node | None, why: str) -> None:
        super().__init__(why)
        self.node = node
        self.why = why


@dataclass(slots=True)
class Val:
    kind: str
    data: np.ndarray | None  # None for BOOL
    ok: np.ndarray           # bool: where the filter has a value

    def truth(self) -> np.ndarray:
        """Where the value matches: defined, and a set not empty."""
        if self.kind == SET:
            return self.ok & (self.data != 0)
        return self.ok

    def take(self, index: np.ndarray) -> Val:
        return Val(self.kind, None if self.data is None else self.data[index], self.ok[index])

    def counts(self, node: ast.Node) -> tuple[np.ndarray, np.ndarray]:
        """The numbers it stands for in arithmetic (a set counts its squares): (values, defined)."""
        if self.kind == NUM:
            return self.data, self.ok
        if self.kind == SET:
            return np.bitwise_count(self.data).astype(np.int64), self.ok
        if self.kind == BOOL:
            return np.zeros(len(self.ok), np.int64), np.zeros(len(self.ok), bool)  # a bare match is no number
        raise NotColumnar(node, f"a {self.kind} where a number is wanted")

    def board(self, node: ast.Node) -> np.ndarray:
        """Its squares (a set), empty where undefined."""
        if self.kind != SET:
            raise NotColumnar(node, f"a {self.kind} where a set is wanted")
        return np.where(self.ok, self.data, np.uint64(0))


def matched(ok: np.ndarray) -> Val:
    return Val(BOOL, None, ok)


def number(data: np.ndarray, ok: np.ndarray) -> Val:
    return Val(NUM, data.astype(np.int64, copy=False), ok)


def squares(data: np.ndarray, ok: np.ndarray | None = None) -> Val:
    return Val(SET, data, np.ones(len(data), bool) if ok is None else ok)


def one_square(value: Val) -> tuple[np.ndarray, np.ndarray]:
    """(square index, defined): where the set has exactly one square."""
    data = value.data
    ok = value.ok & (np.bitwise_count(data) == 1)
    return B.lowest_square(np.where(ok, data, np.uint64(1))), ok


def divided(a: np.ndarray, b: np.ndarray, op: str) -> tuple[np.ndarray, np.ndarray]:
    """(``a / b`` or ``a % b`` rounding toward zero as CQL's C integers do, where b is not 0)."""
    divisor = np.where(b == 0, 1, b)
    quotient = np.abs(a) // np.abs(divisor) * np.where((a >= 0) == (divisor >= 0), 1, -1)
    return (quotient if op == "/" else a - divisor * quotient), b != 0


def scatter(value: Val, index: np.ndarray, size: int) -> Val:
    """``value`` (computed at ``index`` of a context of ``size`` rows) spread back to that context,
    undefined elsewhere."""
    ok = np.zeros(size, bool)
    ok[index] = value.ok
    data = None
    if value.data is not None:
        data = np.zeros(size, _DTYPES[value.kind])
        data[index] = value.data
    return Val(value.kind, data, ok)


def distinct(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)``: the distinct values, ascending. Not numpy's own: its plain form asks
    whether the array is masked, which imports ``numpy.ma`` on first use, ~10 ms of a fresh
    query's process; the arrays here are short or already sorted, where a sort costs nothing."""
    ordered = np.sort(values)
    return ordered[np.r_[True, ordered[1:] != ordered[:-1]]] if len(ordered) else ordered
