"""A window over the rows near a rare step alone: the rest of the main line is never shifted.

Why: a chain whose steps are all common but one (d1 of the benchmark: a capture, a queen
captured, a capture) shifted every main-line row of the index, 120 ms per million positions on
one DuckDB thread, most of it the window and its filter, for 673 matches in 11.4 M main-line
positions. A queen is captured by 1.3 % of moves. Here the window's rows are those within the
chain's reach of a row where the rare step holds (found by a scan of a column or two): d1's SQL
on a million positions, 0.128 -> 0.069 s. The rows kept come from a join, which keeps no order,
so the window orders them by their place (a sort of the few rows kept).

Sound where two things hold, which :func:`rare_anchor` checks:

- The step is implied by the condition: the anchor is one of its top-level conjuncts (a
  column the window reads at one row), or follows from one: ``(board & bit(capture_square))
  <> 0`` on a row and the next says the next row's move captured a piece of that board, which
  the index keeps as ``captured``. So every match has an anchor ``a`` rows on, and every row the
  match reads is within ``[low, high]`` of it: all of them are kept, consecutive, and read as
  before.
- Every row the condition reads (but the match's own) must exist, a top-level conjunct: a row
  kept without its neighbours reads past them into another row, and each reading of a row is
  guarded by that row's being the same game's position ``k`` on, which then fails; since the
  condition needs the row, it fails too. Were the row only tested under NOT, its absence would
  count as "no such position" and a row could match that does not.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from cqlindex.plan.dialect import duckdb_sql
from cqlindex.plan import sql as S
from cqlindex.plan.window_guards import guard_offset

#: The share of main-line rows a step holds on (the 11.4 M of the 145,716 gnuchess games), by the
#: SQL the compiler writes for it over the window's source row (``{src}``).
_RARE = {
    "{src}.is_mate": 0.0001,
    "{src}.is_stalemate": 0.00001,
    "{src}.promotion IN (2, 3, 4, 5)": 0.0006,
    "COALESCE({src}.en_passant, FALSE)": 0.0008,
    "COALESCE({src}.castle = 1, FALSE)": 0.021,
    "COALESCE({src}.castle = 2, FALSE)": 0.002,
}
#: The boards whose captures are rare: the piece type the index's ``captured`` gives, and the
#: share of rows where a piece of that board was just captured (a queen 1.3 %, a rook 2.3 %).
_CAPTURED = {"wq": (5, 0.0067), "bq": (5, 0.0067), "wr": (4, 0.0114), "br": (4, 0.0114)}
#: An anchor is worth its scan where the rows it keeps are at most this share of the main line,
KEPT_AT_MOST = 0.2
#: and where the window shifts this many columns at least: the anchor's scan, its join and the
#: sort of the rows kept cost about what shifting a few columns of every row does. On the whole
#: gnuchess file, d1 (18 shifted columns) 0.90 -> 0.68 s anchored; p12 of the patterns (4,
#: a mate three plies on) 0.32 -> 0.86 s.
SHIFTED_AT_LEAST = 8


@dataclass(frozen=True)
class Anchor:
    """Keep the rows ``low - offset .. high - offset`` around each row where ``predicate`` (over
    the window's source alias) holds."""

    offset: int
    predicate: exp.Expression
    low: int
    high: int


def rare_anchor(condition: exp.Expression, used, window: str, source: str) -> Anchor | None:
    """The rarest step ``condition`` implies and the rows it must keep around it, where both
    conditions of the module hold and the rows kept are few enough; else None. ``used``: the
    window's reads (:class:`cqlindex.plan.offsets.Reads`)."""
    if sum(1 for offset, _ in used.columns.values() if offset) < SHIFTED_AT_LEAST:
        return None
    parts = S.conjuncts(condition)
    offsets = {offset for offset, _ in used.columns.values()} | {0}
    required = {0} | {offset for offset in offsets if _requires(parts, used, window, offset)}
    if offsets - required:
        return None
    best: tuple[float, int, exp.Expression] | None = None
    for part in parts:
        found = _rare_step(part, used, window, source)
        if found is not None and (best is None or found[0] < best[0]):
            best = found
    if best is None:
        return None
    share, offset, predicate = best
    low, high = min(offsets), max(offsets)
    if share * (high - low + 1) > KEPT_AT_MOST:
        return None
    return Anchor(offset, predicate, low, high)


def _requires(parts: list[exp.Expression], used, window: str, offset: int) -> bool:
    """Whether a top-level conjunct says the row ``offset`` on exists: a test of that row, or of
    a row farther the same way, which implies it (:mod:`cqlindex.plan.window_guards`)."""
    for part in parts:
        at = guard_offset(part, used, window)
        if at is not None and (at > 0) == (offset > 0) and abs(at) >= abs(offset):
            return True
    return False


def _rare_step(part: exp.Expression, used, window: str, source: str) -> tuple[float, int, exp.Expression] | None:
    """(share, offset, predicate over ``source``) of a rare step ``part`` implies, if one."""
    part = S.unparen(part)
    read = _read(part, used, window)
    if read is not None:
        offset, value = read
        for term in S.conjuncts(value):  # a lifted test of one row: any of its conjuncts
            share = _RARE.get(duckdb_sql(term).replace(source, "{src}"))
            if share is not None:
                return share, offset, term
        return None
    if not isinstance(part, exp.NEQ) or part.expression.sql() != "0":
        return None
    anded = S.unparen(part.this)
    if not isinstance(anded, exp.BitwiseAnd):
        return None
    sides = [_read(S.unparen(side), used, window) for side in (anded.this, anded.expression)]
    if None in sides:
        return None
    bit = S.bit(S.col("capture_square", source)).sql()
    for (at, board), (then, square) in (sides, sides[::-1]):
        kinds = _captured_kinds(board, source)
        if then == at + 1 and square.sql() == bit and kinds:
            share = sum(_CAPTURED[name][1] for name in kinds)
            types = sorted({_CAPTURED[name][0] for name in kinds})
            return share, then, exp.In(this=S.col("captured", source), expressions=[S.num(t) for t in types])
    return None


def _read(node: exp.Expression, used, window: str) -> tuple[int, exp.Expression] | None:
    if isinstance(node, exp.Column) and node.table == window and node.name in used.columns:
        return used.columns[node.name]
    return None


def _captured_kinds(board: exp.Expression, source: str) -> list[str]:
    """The boards ``board`` is the union of, where each is one whose captures are rare; else []."""
    names = []
    for node in _union(S.unparen(board)):
        if not (isinstance(node, exp.Column) and node.table == source and node.name in _CAPTURED):
            return []
        names.append(node.name)
    return names


def _union(node: exp.Expression) -> list[exp.Expression]:
    if isinstance(node, exp.BitwiseOr):
        return _union(S.unparen(node.this)) + _union(S.unparen(node.expression))
    return [node]


def anchored(rows: exp.Select, anchor: Anchor, source: str, place: exp.Expression) -> exp.Select:
    """``rows`` (the window's source rows, over ``positions AS source``) kept to those near an
    anchor: their place (``place``, over ``source``) one of an anchor row's plus ``d``."""
    at = f"{source}a"
    near = f"{source}d"
    predicate, anchor_place = S.on_table(anchor.predicate, at), S.on_table(place, at)
    steps = exp.Table(this=exp.Anonymous(this="range", expressions=[
        S.num(anchor.low - anchor.offset), S.num(anchor.high - anchor.offset + 1)]),
        alias=exp.TableAlias(this=exp.to_identifier(near), columns=[exp.to_identifier("d")]))
    places = (exp.select(exp.Add(this=S.paren(anchor_place), expression=S.col("d", near)))
              .from_(exp.to_table("positions").as_(at)).join(steps, join_type="cross")
              .where(S.both(S.col("mainline", at), predicate)))
    return rows.where(S.in_query(place, places), copy=False)
