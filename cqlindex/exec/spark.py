"""``cqlindex query EXPORT_DIR QUERY --engine spark``: the same query, run by Spark over the exported Parquet.

The driver plans the query as the default engine does, from the export's own files (DuckDB views
over them, :mod:`cqlindex.store.exported`), and hands the plan's SQL, in Spark's dialect, to Spark.
An exact plan's rows are the matches. Otherwise the candidate games travel to the executors a
bucket of consecutive game numbers at a time (``cogroup(...).applyInArrow``: the positions and
the games rows of the same games together), where each task puts them in an in-memory DuckDB and
runs the very code the default engine runs on the index (:func:`cqlindex.exec.run.confirm`):
the prefilters, the game trees and the Python evaluator. Arrow end to end keeps nullable
integers and the signed bitboards as they are (pandas would turn them into floats).

pyspark is imported here only, and this module only when ``--engine spark`` is asked for; the
executors need cqlindex installed (``pip install cqlindex[spark]``), as any Python UDF does.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from cqlindex import no_pandas
from cqlindex.errors import CqlindexError, InputError
from cqlindex.exec.result import QueryResult
from cqlindex.exec.run import knowing_last_game, last_gamenumber
from cqlindex.plan.planner import Plan, plan
from cqlindex.query.prepare import Prepared, prepare
from cqlindex.store.database import columns
from cqlindex.store.exported import exported_tables, open_exported
from cqlindex.store.playable import unplayable_games
from cqlindex.store.trees import _GAME_COLUMNS, _POSITION_COLUMNS

#: Consecutive game numbers sent to one Python task (a DuckDB connection and one evaluator each).
BUCKET_GAMES = 256
_OUTPUT = "gamenumber int, candidates int, ids array<int>, sort_values array<bigint>, comments string, edits string"


class SparkUnavailable(CqlindexError):
    """pyspark or Java is missing: the engine cannot start (exit code 3, as a missing index)."""

    exit_code = 3


@dataclass(frozen=True, slots=True)
class Spec:
    """What an executor needs to rebuild the driver's plan exactly (plans are deterministic)."""

    text: str
    source: str
    variations: bool | None
    gamenumbers: tuple[int, int] | None
    attack_maps: bool
    playable_only: bool
    material: bool = False
    pins: bool = False
    twice: bool = False
    last_gamenumber: int | None = None  # the export's, when the query asks (``lastgamenumber``)


def session(master: str = "local[*]"):
    """The Spark session (an existing one is reused, as ``getOrCreate`` does); a clear error without pyspark or Java."""
    no_pandas.unhide()  # pyspark's Arrow UDFs import pandas
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise SparkUnavailable("--engine spark needs pyspark: pip install 'cqlindex[spark]'") from None
    if not (os.environ.get("JAVA_HOME") or shutil.which("java")):
        raise SparkUnavailable("--engine spark needs Java 17 or later (java on PATH or JAVA_HOME); "
                               "on Debian: apt-get install default-jre-headless")
    if master.startswith("local"):
        # Local Python workers run this interpreter, which has cqlindex and pyarrow.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    try:
        spark = (SparkSession.builder.master(master).appName("cqlindex")
                 .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
                 .getOrCreate())
    except Exception as error:  # the JVM did not start: Java too old, no memory, a bad master URL
        raise SparkUnavailable(f"Spark did not start ({str(error).splitlines()[0][:300]})") from None
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def run_spark(directory: str | Path, text: str, *, variations: bool | None = None, source: str = "<query>",
              gamenumbers: tuple[int, int] | None = None, matchcount: tuple[int, int | None] | None = None,
              include_unplayable: bool = False, master: str = "local[*]", spark=None) -> QueryResult:
    """Find the matches of ``text`` in the export at ``directory`` with Spark (``spark``: a session to use)."""
    started = time.perf_counter()
    directory = Path(directory)
    prepared = prepare(text, source, variations=variations, gamenumbers=gamenumbers, matchcount=matchcount)
    if prepared.analysis.says_messages:
        raise InputError("a message (or assert) filter acts at every position it is evaluated at, in order: run it with "
                         "--engine sql or python on the index")
    tables = exported_tables(directory)
    con = open_exported(directory)
    try:
        spec = _spec(con, text, source, variations, gamenumbers, include_unplayable)
        prepared = knowing_last_game(prepared, spec.last_gamenumber)
        span = prepared.gamenumbers
        games_examined = con.execute("SELECT count(*) FROM games" + (" WHERE gamenumber BETWEEN ? AND ?" if span
                                                                     else ""), list(span) if span else []).fetchall()[0][0]
    finally:
        con.close()
    p = _planned(spec)[1]  # the executors' plan; ``prepared`` keeps -matchcount for the result
    spark = spark or session(master)
    frames = {table: spark.read.parquet(str((directory / table).resolve())) for table in tables}
    for table, frame in frames.items():
        frame.createOrReplaceTempView(table)
    result = QueryResult(prepared.query, prepared.variations, prepared.analysis.sort_keys)
    result.games_examined = games_examined
    candidates = spark.sql(p.transpile("spark"))
    if p.exact:
        rows = candidates.collect()
        result.candidates = len(rows)
        for game, ids in _grouped((r[0], r[1]) for r in rows).items():
            result.keep(game, ids)
    else:
        result.candidates = 0
        for row in _confirm_on_executors(spec, prepared, p, candidates, frames).collect():
            result.candidates += row.candidates
            evaluated = _Evaluated(
                {key.node: v for key, v in zip(prepared.analysis.sort_keys, row.sort_values or [])
                 if key.node is not None and v is not None},
                {int(k): v for k, v in json.loads(row.comments).items()},
                [tuple(edit) for edit in json.loads(row.edits)])
            result.keep(row.gamenumber, list(row.ids), evaluated)
    result.order()
    result.seconds = time.perf_counter() - started
    return result


def plan_exported(directory: str | Path, text: str, *, variations: bool | None = None, source: str = "<query>",
                  gamenumbers: tuple[int, int] | None = None, include_unplayable: bool = False) -> Plan:
    """The plan ``--engine spark`` runs on an export (for ``--explain``)."""
    con = open_exported(Path(directory))
    try:
        return _planned(_spec(con, text, source, variations, gamenumbers, include_unplayable))[1]
    finally:
        con.close()


def _spec(con, text: str, source: str, variations: bool | None, gamenumbers: tuple[int, int] | None,
          include_unplayable: bool) -> Spec:
    """What the plan depends on besides the query: the export's columns and its unplayable games."""
    present = columns(con, "positions")
    last = last_gamenumber(con, prepare(text, source, variations=variations, gamenumbers=gamenumbers))
    return Spec(text, source, variations, gamenumbers, attack_maps="white_attacks" in present,
                material="material" in present, pins="pinned" in present,
                twice="white_attacks_twice" in present,
                playable_only=not include_unplayable and bool(unplayable_games(con)), last_gamenumber=last)


@dataclass(slots=True)
class _Evaluated:
    sort_values: dict
    comments: dict[int, list[str]]
    edits: list[tuple]


def _grouped(rows) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for game, position in rows:
        out.setdefault(game, []).append(position)
    return out


def _confirm_on_executors(spec: Spec, prepared: Prepared, p: Plan, candidates, frames):
    """The candidate games' rows, a bucket of games per task, through :func:`confirm` there."""
    from pyspark.sql import functions as F

    positions, games = frames["positions"], frames["games"]
    marked = candidates.select("gamenumber", "positionid").withColumn("candidate", F.lit(True))
    whole_games = bool(p.prefilters) or not p.row_local or prepared.analysis.sorts_beyond_candidates
    if whole_games:
        rows = positions.join(marked.select("gamenumber").distinct(), "gamenumber", "left_semi")
        rows = rows.join(marked, ["gamenumber", "positionid"], "left")
    else:
        rows = positions.join(marked, ["gamenumber", "positionid"], "inner")
    # Prefilters are SQL over the task's rows, which may read any column.
    columns = positions.columns if p.prefilters else [c for c in _POSITION_COLUMNS if c in positions.columns]
    rows = rows.select(*columns, "candidate")
    game_rows = games.join(marked.select("gamenumber").distinct(), "gamenumber", "left_semi").select(
        *[c for c in dict.fromkeys((*_GAME_COLUMNS, "playable")) if c in games.columns])
    bucket = (F.col("gamenumber") / F.lit(BUCKET_GAMES)).cast("int").alias("bucket")

    def task(positions_table: pa.Table, games_table: pa.Table) -> pa.Table:
        return confirm_bucket(spec, positions_table, games_table)

    return (rows.groupBy(bucket).cogroup(game_rows.groupBy(bucket))
            .applyInArrow(task, _OUTPUT))


_PREPARED: dict[Spec, tuple[Prepared, Plan]] = {}


def _planned(spec: Spec) -> tuple[Prepared, Plan]:
    """The query prepared and planned, once per process: the driver and every executor make the same plan."""
    if spec not in _PREPARED:
        prepared = knowing_last_game(prepare(spec.text, spec.source, variations=spec.variations,
                                             gamenumbers=spec.gamenumbers), spec.last_gamenumber)
        _PREPARED[spec] = (prepared, plan(prepared.query, prepared.variations, attack_maps=spec.attack_maps,
                                          material=spec.material, pins=spec.pins, twice=spec.twice,
                                          expansions=prepared.expansions, playable_only=spec.playable_only))
    return _PREPARED[spec]


def confirm_bucket(spec: Spec, positions: pa.Table, games: pa.Table) -> pa.Table:
    """On an executor: one bucket's candidate games through the default engine's own confirmation."""
    import duckdb

    from cqlindex.exec.run import confirm

    prepared, p = _planned(spec)
    positions = positions.drop_columns([c for c in ("bucket",) if c in positions.column_names])
    games = games.drop_columns([c for c in ("bucket",) if c in games.column_names])
    flags = positions.column("candidate").to_pylist()
    numbers, ids = positions.column("gamenumber").to_pylist(), positions.column("positionid").to_pylist()
    candidates = _grouped((g, i) for g, i, c in zip(numbers, ids, flags) if c)
    out: dict[str, list] = {name: [] for name in ("gamenumber", "candidates", "ids", "sort_values", "comments",
                                                  "edits")}
    keys = prepared.analysis.sort_keys

    def keep(game: int, matched: list[int], evaluator) -> None:
        out["gamenumber"].append(game)
        out["candidates"].append(len(candidates[game]))
        out["ids"].append(matched)
        out["sort_values"].append([None if key.node is None else evaluator.sort_values.get(key.node)
                                   for key in keys])
        out["comments"].append(json.dumps(evaluator.comments or {}))
        out["edits"].append(json.dumps(evaluator.edits or []))  # removecomment/settag/removetag: tuples of str, int

    con = duckdb.connect()
    try:
        con.register("_positions", positions.drop_columns(["candidate"]))
        con.register("_games", games)
        con.execute("CREATE TABLE positions AS SELECT * FROM _positions ORDER BY gamenumber, positionid")
        con.execute("CREATE TABLE games AS SELECT * FROM _games ORDER BY gamenumber")
        confirm(con, prepared, p, candidates, keep, workers=1)  # Spark shares the games out itself
    finally:
        con.close()
    return pa.table({"gamenumber": pa.array(out["gamenumber"], pa.int32()),
                     "candidates": pa.array(out["candidates"], pa.int32()),
                     "ids": pa.array(out["ids"], pa.list_(pa.int32())),
                     "sort_values": pa.array(out["sort_values"], pa.list_(pa.int64())),
                     "comments": pa.array(out["comments"], pa.string()),
                     "edits": pa.array(out["edits"], pa.string())})
