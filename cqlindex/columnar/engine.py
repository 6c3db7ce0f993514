"""The columnar evaluator: each filter evaluated once per batch, over arrays of positions.

A *context* is a vector of frame rows (the positions a filter is asked about, repeats allowed)
with the variables bound there, one value per row. A kernel maps a node and a context to a
:class:`~cqlindex.columnar.values.Val` aligned with it, so Python dispatches once per node
per batch and numpy does the per-position work. Moving elsewhere in the tree (``parent``,
``:``) is a new context over other rows; a set iteration is a context with one row per
(position, square); a compound narrows its context to the rows still matching before each
member, so later members cost only what survives.

Kernels register with :func:`kernel` by node type (the families live in ``kernels_*.py``);
a node without one, or a value a kernel cannot take, raises
:class:`~cqlindex.columnar.values.NotColumnar` and the runner answers with the tree-walking
evaluator instead (:mod:`cqlindex.columnar.run`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from cqlindex.columnar.frame import Frame
from cqlindex.columnar.values import SET, NotColumnar, Val, distinct
from cqlindex.cql import ast
from cqlindex.cql.by_type import registry
from cqlindex.query.analyse import plain
from cqlindex.query.rewrite import Expansions

Kernel = Callable[["Columnar", ast.Node, "Ctx"], Val]
_KERNELS: dict[type, Kernel] = {}
#: Filters cheaper to evaluate at every row than to look up per distinct position.
_CHEAP = (ast.Pieces, ast.Number, ast.Keyword, ast.Variable, ast.Compound, ast.And, ast.Or, ast.Not)
#: Filters that cost more than sorting their inputs: evaluated once per distinct input.
_COSTLY = (ast.Pin, ast.Ray, ast.Iterate, ast.Find, ast.Line, ast.Echo, ast.Direction, ast.Transform, ast.Move,
           ast.Dash, ast.CountMoves)
#: Where a linear context's row may go on: every child, or none (the end of the line).
EVERY_CHILD, NO_CHILD = -1, -2


#: ``@kernel(ast.X)``: the decorated function evaluates X nodes.
kernel = registry(_KERNELS)


def has_kernel(node: ast.Node) -> bool:
    return type(node) in _KERNELS


@dataclass(slots=True)
class PieceVar:
    """A piece variable: the piece on ``bits`` at ``rows`` (where it was bound), per context row.
    Read at those rows it is that square; read elsewhere, the frame's piece ids follow it."""

    rows: np.ndarray
    bits: np.ndarray

    def take(self, index: np.ndarray) -> PieceVar:
        return PieceVar(self.rows[index], self.bits[index])


@dataclass(slots=True)
class Ctx:
    rows: np.ndarray                       # frame rows, int64
    vars: dict[str, Val | PieceVar] = field(default_factory=dict)  # each aligned with rows
    #: Per row, the one child a move filter may see (move linearization in ``line``), or
    #: EVERY_CHILD / NO_CHILD; None: every child everywhere.
    linear: np.ndarray | None = None
    #: Whether rows may repeat (an iteration's, a pair's): a filter that reads no variable is
    #: then evaluated once per distinct row (see Columnar.eval).
    repeats: bool = False

    def __len__(self) -> int:
        return len(self.rows)

    def take(self, index: np.ndarray) -> Ctx:
        """The rows at ``index`` (a subset, or repeats), with their variables."""
        return Ctx(self.rows[index], {k: v.take(index) for k, v in self.vars.items()},
                   None if self.linear is None else self.linear[index], self.repeats)

    def moved(self, index: np.ndarray, rows: np.ndarray) -> Ctx:
        """The variables of the rows at ``index``, at other positions ``rows``."""
        return Ctx(rows, {k: v.take(index) for k, v in self.vars.items()}, None, True)


def every_row(rows: np.ndarray, size: int) -> bool:
    """Whether ``rows`` is 0, 1, ..., size - 1: a row-local query's candidates are often every row
    of their frame, and gathering at them would copy each column whole. The callers only read."""
    return (len(rows) == size and size > 0 and rows[0] == 0 and rows[-1] == size - 1
            and not (np.diff(rows) != 1).any())


def distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct ``rows`` ascending, the index back to each of ``rows``)."""
    if (rows[1:] >= rows[:-1]).all():  # an iteration's rows come in order: no sort needed
        new = np.r_[True, rows[1:] != rows[:-1]]
        return rows[new], np.cumsum(new) - 1
    return np.unique(rows, return_inverse=True)


#: Contiguous stretches of a context's keys looked at before sorting all of them.
_SAMPLE_CHUNKS, _SAMPLE_SIZE = 4, 1024


def _mostly_distinct(key: np.ndarray) -> bool:
    """Whether a sample says the keys hardly repeat, so sorting them all would not pay. A key
    holds its row, and a context's rows come grouped, so the repeats lie close together:
    contiguous stretches catch them where a strided sample would not."""
    if len(key) <= 2 * _SAMPLE_CHUNKS * _SAMPLE_SIZE:
        return False
    starts = np.linspace(0, len(key) - _SAMPLE_SIZE, _SAMPLE_CHUNKS).astype(np.int64)
    sample = np.concatenate([key[s:s + _SAMPLE_SIZE] for s in starts])
    return len(distinct(sample)) * 2 > len(sample)


class Columnar:
    """Evaluates one query's body at chosen rows of one frame at a time."""

    def __init__(self, query: ast.Query, variations: bool, expansions: Expansions | None = None) -> None:
        self.query = query
        self.variations = variations
        self.expansions = expansions if expansions is not None else Expansions(query.body)
        self.frame: Frame | None = None
        #: Checked at every filter evaluated: anything with a ``check()`` that raises when the
        #: query's time is up (cqlindex.exec.timeout.Deadline), or None.
        self.deadline = None
        #: Per frame: values of pure filters computed at every row (find's body, a line's step).
        self.memo: dict[int, tuple[ast.Node, Val]] = {}
        #: Per node: the variables it reads, None if it has an effect (see _reads).
        self.inputs: dict[int, tuple[ast.Node, frozenset[str] | None]] = {}
        #: Per frame: each sort filter's numbers, as (rows, numbers) where it was evaluated.
        self.sorts: dict[ast.Sort, list[tuple[np.ndarray, np.ndarray]]] = {}

    def eval(self, node: ast.Node, ctx: Ctx) -> Val:
        if self.deadline is not None:
            self.deadline.check()  # a batch's work can be long: --timeout holds inside it too
        fn = _KERNELS.get(type(node))
        if fn is None:
            raise NotColumnar(node, f"no columnar kernel for {type(node).__name__}")
        if ctx.repeats and ctx.linear is None and len(ctx) > 64 and (
                isinstance(node, _COSTLY) or (not isinstance(node, _CHEAP) and self.reads_position_only(node))):
            found = self._distinct_inputs(node, ctx)
            if found is not None:  # worth it: the same question asked again and again
                inner, back = found
                return fn(self, node, inner).take(back)
        return fn(self, node, ctx)

    def _reads(self, node: ast.Node) -> frozenset[str] | None:
        """The variables ``node`` reads, or None when it has an effect (it must then be evaluated
        wherever it is asked)."""
        entry = self.inputs.get(id(node))
        if entry is None or entry[0] is not node:
            inner = list(ast.walk(node))
            reads = None
            if all(plain(x) for x in inner):
                bound = {x.var for x in inner if isinstance(x, ast.Iterate)}
                bound |= {name for x in inner if isinstance(x, ast.Echo) for name in (x.source, x.target)}
                reads = frozenset(x.name for x in inner if isinstance(x, ast.Variable)) - bound
            entry = (node, reads)
            self.inputs[id(node)] = entry
        return entry[1]

    def reads_position_only(self, node: ast.Node) -> bool:
        """Whether ``node``'s value depends on the position alone (no variable, no effect)."""
        return self._reads(node) == frozenset()

    def _distinct_inputs(self, node: ast.Node, ctx: Ctx) -> tuple[Ctx, np.ndarray] | None:
        """(a context of the distinct (position, variables read) of ``ctx``, the index back), when
        ``node`` reads at most three one-square variables and the inputs repeat enough to pay."""
        reads = self._reads(node)
        if reads is None or len(reads) > 3:
            return None
        key = ctx.rows.copy()
        for name in sorted(reads):
            value = ctx.vars.get(name)
            if isinstance(value, PieceVar) and np.array_equal(value.rows, ctx.rows):
                data = value.bits  # a piece where it was bound: its square
            elif isinstance(value, Val) and value.kind == SET:
                data = np.where(value.ok, value.data, np.uint64(0))
            else:
                return None
            if (np.bitwise_count(data) > 1).any():
                return None
            code = np.where(data != 0, np.bitwise_count((data & (~data + np.uint64(1))) - np.uint64(1)) + 1, 0)
            key = key * 65 + code.astype(np.int64)
        if _mostly_distinct(key):
            return None
        key, first, back = np.unique(key, return_index=True, return_inverse=True)
        if len(key) * 2 > len(ctx):
            return None
        inner = ctx.take(first)
        inner.repeats = False
        return inner, back

    def distinct(self, ctx: Ctx) -> tuple[Ctx, np.ndarray] | None:
        """(a context of ``ctx``'s distinct rows, the index back) where rows repeat enough for
        working once per position to pay, else None."""
        if not ctx.repeats or ctx.linear is not None or len(ctx) <= 64:
            return None
        rows, back = distinct_rows(ctx.rows)
        return (Ctx(rows), back) if len(rows) * 2 <= len(ctx) else None

    def test(self, node: ast.Node, ctx: Ctx) -> np.ndarray:
        """Where ``node`` matches at each row of ``ctx``."""
        if not len(ctx):
            return np.zeros(0, bool)
        return self.eval(node, ctx).truth()

    def everywhere(self, node: ast.Node) -> Val:
        """``node``'s value at every row of the frame (kept for the frame: for pure filters only)."""
        entry = self.memo.get(id(node))
        if entry is None or entry[0] is not node:
            entry = (node, self.eval(node, Ctx(np.arange(self.frame.size))))
            self.memo[id(node)] = entry
        return entry[1]

    def note_sort(self, node: ast.Sort, rows: np.ndarray, numbers: np.ndarray) -> None:
        self.sorts.setdefault(node, []).append((rows, numbers))

    def sort_values(self) -> dict[int, dict[ast.Sort, int]]:
        """Per game of the frame: each sort filter's best number (largest, or smallest with ``min``)."""
        out: dict[int, dict[ast.Sort, int]] = {}
        for node, parts in self.sorts.items():
            rows = np.concatenate([r for r, _ in parts])
            numbers = np.concatenate([n for _, n in parts])
            games = self.frame.gamenumber[rows]
            order = np.lexsort((numbers if node.min else -numbers, games))
            games, numbers = games[order], numbers[order]
            firsts = np.flatnonzero(np.r_[True, games[1:] != games[:-1]]) if len(games) else []
            for game, number in zip(games[firsts].tolist(), numbers[firsts].tolist()):
                out.setdefault(game, {})[node] = number
        return out

    def matches(self, frame: Frame, rows: np.ndarray) -> np.ndarray:
        """Where the body matches at each of ``rows`` (frame rows)."""
        self.frame = frame
        self.memo = {}
        self.sorts = {}
        return self.test(self.query.body, Ctx(rows.astype(np.int64, copy=False)))
