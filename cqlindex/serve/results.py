"""Query results the server holds, and the pages it cuts from them.

A refinement of a query, a next page, a new sort order or a download asks about a result the
server computed a moment ago: each result is kept (the position ids per game, not the records:
:meth:`cqlindex.Database.result`) in a least-recently-used cache bounded by the matching
positions it holds, and identical queries in flight share one run. A page is the records of
``--format json`` for its games, read from the index when asked (:mod:`cqlindex.output.stream`),
so a page of a million-position result costs a page.

A client names its run by a ``token`` so that it can cancel it (:meth:`Results.cancel`); a
run that failed (an error, a timeout, a cancel) is not kept.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from cqlindex.output.records import game_rows, match_records
from cqlindex.serve.pool import Job, Pool
from cqlindex.serve.request import QuerySpec

#: Matching positions the cache may hold across its results (about 40 bytes each).
POSITION_BUDGET = 2_000_000
#: Results the cache may hold whatever their size.
MAX_RESULTS = 64
#: Columns the game list sorts by, besides the output order, the game number and the counts.
TAG_COLUMNS = ("white", "black", "event", "site", "date", "year", "result", "eco")


@dataclass
class Entry:
    """One query's run: in flight (``job``), then its result and what pages need of it."""

    spec: QuerySpec
    job: Job
    result: object = None
    order: list[int] = field(default_factory=list)
    positions: int = 0
    tags: dict[int, tuple] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


class Results:
    """The cache of results and runs in flight, keyed by :class:`QuerySpec`."""

    def __init__(self, pool: Pool, databases: list[str], timeout: float,
                 lane_of: Callable[[QuerySpec], str] = lambda spec: "slow") -> None:
        self.pool = pool
        self.lane_of = lane_of  #: which lane of the pool a query runs in (see :data:`cqlindex.serve.pool.LANES`)
        self.databases = databases
        self.timeout = timeout
        self._entries: OrderedDict[QuerySpec, Entry] = OrderedDict()
        self._tokens: dict[str, Job] = {}
        self._lock = threading.Lock()

    async def get(self, spec: QuerySpec, *, token: str | None = None, timeout: float | None = None) -> Entry:
        """The finished entry of ``spec``: from the cache, or run now (JobError if it fails)."""
        with self._lock:
            entry = self._entries.get(spec)
            fresh = entry is None or entry.job.cancelled.is_set()  # a cancelled run is not one to wait for
        # Planned outside the lock (milliseconds); a result evicted meanwhile runs in the slow lane.
        lane = await asyncio.to_thread(self.lane_of, spec) if fresh else "slow"
        with self._lock:
            entry = self._entries.get(spec)
            if entry is None or entry.job.cancelled.is_set():
                job = self.pool.submit("query", min(timeout or self.timeout, self.timeout), lane=lane,
                                       db=self.databases[spec.db], text=spec.text, variations=spec.variations,
                                       gamenumbers=spec.gamenumbers, matchcount=spec.matchcount, source=spec.source)
                entry = self._entries[spec] = Entry(spec, job)
            self._entries.move_to_end(spec)
            if token:
                self._tokens[token] = entry.job
        try:
            # shielded: a client that goes away must not cancel a run that others may share
            result = await asyncio.shield(asyncio.wrap_future(entry.job.future))
        except BaseException:
            with self._lock:
                if self._entries.get(spec) is entry:
                    del self._entries[spec]
            raise
        finally:
            if token:
                self.untrack(token)
        with entry.lock:
            if entry.result is None:
                entry.order = list(result.matches)
                entry.positions = result.positions
                entry.result = result
        self._evict()
        return entry

    def track(self, token: str, job: Job) -> None:
        """Let ``token`` cancel ``job`` (an SQL run, say) until :meth:`untrack`."""
        with self._lock:
            self._tokens[token] = job

    def untrack(self, token: str) -> None:
        with self._lock:
            self._tokens.pop(token, None)

    def cancel(self, token: str) -> bool:
        """Stop the run ``token`` names; False when there is none (finished, or never started).
        A run shared by identical queries stops for all of them."""
        with self._lock:
            job = self._tokens.get(token)
        if job is None or job.future.done():
            return False
        job.cancel()
        return True

    def _evict(self) -> None:
        """Drop the least recently used finished results past the budget (the newest always stays)."""
        with self._lock:
            done = [(spec, e) for spec, e in self._entries.items() if e.result is not None]
            total = sum(e.positions for _, e in done)
            for spec, entry in done[:-1]:
                if total <= POSITION_BUDGET and len(self._entries) <= MAX_RESULTS:
                    break
                del self._entries[spec]
                total -= entry.positions


def sorted_games(con, entry: Entry, sort: str, descending: bool) -> list[int]:
    """The matching games in the order the list asks for: the output order (``order``: game
    number, or the query's sort values), or by a tag, the game number, the matching positions, or
    a sort value (``sort0``...); a game without a value last, ties in output order."""
    result = entry.result
    if sort in ("", "order"):
        return list(reversed(entry.order)) if descending else entry.order
    if sort == "gamenumber":
        return sorted(entry.order, reverse=descending)
    if sort == "positions":
        def value(g):
            return len(result.matches[g])
    elif sort.startswith("sort") and sort[4:].isdigit() and int(sort[4:]) < len(result.keys):
        slot = int(sort[4:])

        def value(g):
            return result.sort_values[g][slot]
    elif sort in TAG_COLUMNS:
        tags = _tags(con, entry)
        slot = TAG_COLUMNS.index(sort)

        def value(g):
            return tags[g][slot]
    else:
        raise ValueError(f"cannot sort by {sort!r}")
    present = [g for g in entry.order if value(g) is not None]
    missing = [g for g in entry.order if value(g) is None]
    present.sort(key=value, reverse=descending)
    return present + missing


def _tags(con, entry: Entry) -> dict[int, tuple]:
    """The sortable tags of every matching game, read once per result."""
    with entry.lock:
        if entry.tags is None:
            rows = con.execute(f"SELECT gamenumber, {', '.join(TAG_COLUMNS)} FROM games "
                               "WHERE gamenumber IN (SELECT unnest(?::INTEGER[]))", [entry.order]).fetchall()
            entry.tags = {row[0]: row[1:] for row in rows}
        return entry.tags


def page(con, entry: Entry, *, offset: int, limit: int, sort: str = "", descending: bool = False) -> dict:
    """One page of a result: the totals, the page's games as the list shows them, and the
    records ``--format json`` writes for those games."""
    result = entry.result
    games = sorted_games(con, entry, sort, descending)[offset:offset + limit]
    # The records as Python values straight from their Arrow table: equal to what ``--format
    # json`` writes for them once parsed, without writing the JSON text to parse it back.
    records = match_records(con, {g: result.matches[g] for g in games})
    rows = game_rows(records)
    events = {r["gamenumber"]: r["event"] for r in records}
    labels = [key.label for key in result.keys]
    for row in rows:
        row["event"] = events.get(row["gamenumber"])
        row["sort_values"] = list(result.sort_values.get(row["gamenumber"], ())) if labels else []
    return {"games": len(entry.order), "positions": entry.positions, "offset": offset, "limit": limit,
            "sort": sort or "order", "descending": descending, "sort_labels": labels,
            "seconds": round(result.seconds, 4), "variations": result.variations,
            "query": result.query.text, "list": rows, "records": records}
