"""cqlindex against the reference CQL engine, file by file, each engine a process of its own (issue 34).

Per query file: the reference engine (``cql -threads 2 -i PGN -o out.pgn -showmatches FILE``) on
the PGN and ``cqlindex query INDEX -f FILE`` on its index, each timed from outside (wall and
CPU seconds, peak RSS: ``bench_vs_cql_engines.py``), the games each found, and the ratio of the
reference's wall time to cqlindex's (above 1: cqlindex is faster). The two must find the same
games: every difference is printed, and the exit code is 1 when any file differs or an engine
failed on it. A fast wrong answer never looks good.

File sets (``--set``, repeatable): ``bench`` (shared/bench/*.cql) and ``patterns``
(shared/bench/patterns/*.cql), the default, on the first ``--games`` games of the gnuchess
collection (or ``--pgn FILE``); ``examples``, CQL 6.2's 90 example files (ASCII copies), on
studies/cql6-sample.pgn, each run as it is, as tests/examples.py runs them: its own header
decides ``variations`` and the rest, only its ``input`` overridden (``-i`` for the reference,
the index argument for cqlindex). ``--files`` runs given files instead on the gnuchess data.

``--session``: the issue's other target, the example files one after another in ONE Python
session (this Python: ``cqlindex.open`` once, then its ``query`` per file) against the
reference engine running them one after another; totals only, the games still compared file
by file (the examples by default, or the given ``--set`` or ``--files``).

The index is built once per PGN by ``cqlindex build`` (timed, reported apart) and kept in
``--cache`` with the PGN slice, so a rerun neither cuts nor builds again.

Usage: python scripts/bench_vs_cql.py [--set bench|patterns|examples ...] [--games N | --pgn FILE]
                                      [--files F.cql ...] [--session] [--json FILE] [--cache DIR]
Develop on ``--games 2000``. On the default 20,000 games the reference takes seconds a file;
cqlindex's pattern files can take minutes today, so ``--timeout`` stops a run (a failure, shown
as such, left out of the totals) and the table is printed a line at a time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from bench_bytecode import compiled
from bench_vs_cql_data import Dataset, gnuchess_slice, indexed
from bench_vs_cql_engines import Side, rss_floor, run_cqlindex, run_reference, run_session

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SHARED = ROOT.parent / "shared"
REFERENCE = Path("reference/cql62/cql")
STUDIES = Path("data/studies/cql6-sample.pgn")
#: Each set: its query files (a glob under the shared folder), and whether it runs on the studies file.
SETS = {"bench": ("bench/*.cql", False), "patterns": ("bench/patterns/*.cql", False),
        "examples": ("data/cql-examples/ascii/*.cql", True)}


@dataclass
class Row:
    """One query file: both engines' figures and games."""

    file: Path
    reference: Side
    cqlindex: Side

    @property
    def differs(self) -> bool:
        return bool(self.difference())

    @property
    def failed(self) -> bool:
        return self.reference.games is None or self.cqlindex.games is None

    @property
    def ratio(self) -> float | None:
        return _share(self.reference.wall, self.cqlindex.wall)

    def difference(self) -> str:
        """What went wrong, in a line, or "": a failure, the games only one engine found, or
        different numbers of games read (then the two did not search the same PGN)."""
        if self.failed:
            return "; ".join(e for e in (self.reference.error, self.cqlindex.error) if e)
        parts = []
        for name, mine, theirs in (("reference", self.reference.games, self.cqlindex.games),
                                   ("cqlindex", self.cqlindex.games, self.reference.games)):
            only = sorted(mine - theirs)
            if only:
                shown = " ".join(map(str, only[:20])) + (" ..." if len(only) > 20 else "")
                parts.append(f"only {name} ({len(only)}): {shown}")
        read = (self.reference.games_read, self.cqlindex.games_read)
        if None not in read and read[0] != read[1]:
            parts.append(f"games read: reference {read[0]}, cqlindex {read[1]}")
        return "; ".join(parts)

    def to_json(self) -> dict:
        return {"file": str(self.file), "equal": not self.differs, "ratio": self.ratio,
                "reference": self.reference.to_json(), "cqlindex": self.cqlindex.to_json()}


HEADER = ["| file | games ref | games cqlindex | ref s | cqlindex s | ratio | cqlindex peak RSS MB |",
          "|---|---:|---:|---:|---:|---:|---:|"]


def table_line(row: Row) -> str:
    """A file's line; no ratio when a side failed (a run stopped at the timeout has only a bound)."""
    mark = " **failed**" if row.failed else " **differs**" if row.differs else ""
    ratio = "-" if row.failed else _ratio(row.ratio)
    return (f"| {row.file.stem}{mark} | {_games(row.reference)} | {_games(row.cqlindex)} | "
            f"{row.reference.wall:.2f} | {row.cqlindex.wall:.2f} | {ratio} | {row.cqlindex.rss_mb:.0f} |")


def closing(rows: list[Row]) -> list[str]:
    """The lines under the table: the totals, then each difference."""
    totals = totals_of(rows)
    summary = (f"Totals over {totals['files']} files: reference {totals['reference_wall']:.1f} s wall "
               f"({totals['reference_cpu']:.1f} CPU s), cqlindex {totals['cqlindex_wall']:.1f} s wall "
               f"({totals['cqlindex_cpu']:.1f} CPU s), ratio of totals {_ratio(totals['ratio'])} "
               f"(of CPU seconds {_ratio(totals['cpu_ratio'])}); "
               f"cqlindex faster on {totals['cqlindex_faster']} of {totals['files']} files; "
               f"games differ on {totals['differ']} files; an engine failed on {totals['failed']} more.")
    lines = ["", summary]
    different = [row for row in rows if row.differs]
    if different:
        lines += ["", "Differences:"] + [f"- {row.file.name}: {row.difference()}" for row in different]
    return lines


def markdown(rows: list[Row]) -> str:
    """The table, one line per file, then the totals and the differences."""
    return "\n".join(HEADER + [table_line(row) for row in rows] + closing(rows))


def _games(side: Side) -> str:
    return f"{len(side.games):,}" if side.games is not None else "failed"


def _share(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator else None


def _ratio(value: float | None) -> str:
    return f"{value:.2f}" if value is not None else "-"


def totals_of(rows: list[Row]) -> dict:
    """Sums over the files both engines answered (a run stopped or failed has no time to compare);
    ``failed`` counts the others, ``differ`` the answered files whose games differ."""
    answered = [r for r in rows if not r.failed]
    ref, mine = sum(r.reference.wall for r in answered), sum(r.cqlindex.wall for r in answered)
    return {"files": len(answered), "reference_wall": ref, "cqlindex_wall": mine,
            "reference_cpu": sum(r.reference.cpu for r in answered), "cqlindex_cpu": sum(r.cqlindex.cpu for r in answered),
            "ratio": _share(ref, mine),
            "cpu_ratio": _share(sum(r.reference.cpu for r in answered), sum(r.cqlindex.cpu for r in answered)),
            "cqlindex_faster": sum(r.cqlindex.wall < r.reference.wall for r in answered),
            "differ": sum(r.differs for r in answered), "failed": len(rows) - len(answered)}


def run_files(files: list[Path], data: Dataset, args: argparse.Namespace) -> tuple[dict, int]:
    """Both engines on every file, one after the other, the table printed a line at a time (a long
    run shows what it has measured so far); the figures and the number of files that differ."""
    rows = []
    print("\n".join(HEADER), flush=True)
    for path in files:
        reference = run_reference(args.cql, args.threads, data.pgn, path, args.timeout)
        rows.append(Row(path, reference, run_cqlindex(args.cqlindex, data.index, path, args.timeout)))
        print(table_line(rows[-1]), flush=True)
    print("\n".join(closing(rows)))
    totals = totals_of(rows)
    return {"files": [row.to_json() for row in rows], "totals": totals}, totals["differ"] + totals["failed"]


def session(files: list[Path], data: Dataset, args: argparse.Namespace) -> tuple[dict, int]:
    """The files in one cqlindex session against the reference one after another: the totals
    printed, the figures and the number of files whose games differ (or 1 more if the session failed)."""
    rows_ref = {str(path): run_reference(args.cql, args.threads, data.pgn, path, args.timeout) for path in files}
    whole, per_file = run_session(sys.executable, data.index, files, args.timeout)
    rows = [Row(Path(name), rows_ref[name], per_file[name]) for name in rows_ref]
    different = [row for row in rows if row.differs]
    ref_wall, ref_cpu = sum(s.wall for s in rows_ref.values()), sum(s.cpu for s in rows_ref.values())
    ratio = _share(ref_wall, whole.wall)
    ref_rss = max(s.rss_mb for s in rows_ref.values())
    inside = sum(s.wall for s in per_file.values())
    lines = ["| side | files | wall s | CPU s | peak RSS MB |", "|---|---:|---:|---:|---:|",
             f"| reference, a process per file | {len(files)} | {ref_wall:.2f} | {ref_cpu:.2f} | {ref_rss:.0f} |",
             f"| cqlindex, one Python session | {len(files)} | {whole.wall:.2f} | {whole.cpu:.2f} | {whole.rss_mb:.0f} |",
             "", (f"Ratio reference / cqlindex session: {_ratio(ratio)}; queries alone inside the session {inside:.2f} s; "
                  f"games differ (or a side failed) on {len(different)} files.")]
    if whole.error:
        lines.append(f"Session failed: {whole.error}")
    if different:
        lines += ["", "Differences:"] + [f"- {row.file.name}: {row.difference()}" for row in different]
    print("\n".join(lines))
    figures = {"files": [row.to_json() for row in rows], "reference_wall": ref_wall, "reference_cpu": ref_cpu,
               "session": whole.to_json(), "ratio": ratio, "differ": len(different)}
    return figures, len(different) + bool(whole.error)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", dest="sets", action="append", choices=sorted(SETS),
                        help="a set of query files (repeatable; default: bench and patterns)")
    parser.add_argument("--files", nargs="+", type=Path, default=None, help="these query files instead of the sets")
    parser.add_argument("--games", type=int, default=20_000, help="the first N games of the gnuchess collection")
    parser.add_argument("--pgn", type=Path, default=None, help="this PGN instead of the gnuchess slice")
    parser.add_argument("--session", action="store_true",
                        help="the example files in one Python session against the reference; totals only")
    parser.add_argument("--json", type=Path, default=None, help="also write every figure to this JSON file")
    parser.add_argument("--cache", type=Path, default=ROOT / "build" / "bench-vs-cql",
                        help="where the PGN slices and their indexes are kept between runs")
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help="the shared folder (data, bench, reference)")
    parser.add_argument("--cql", type=Path, default=None, help="the reference engine (default: the shared one)")
    parser.add_argument("--cqlindex", default=None,
                        help="the cqlindex command (default: the one beside this Python)")
    parser.add_argument("--threads", type=int, default=2, help="the reference engine's -threads")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds before a run is stopped (a failure)")
    args = parser.parse_args(argv)
    if args.files and args.sets:
        parser.error("--files or --set, not both")
    args.cql = args.cql or args.shared / REFERENCE
    args.cqlindex = [args.cqlindex or str(Path(sys.executable).parent / "cqlindex")]
    for label, path in (("the reference engine", args.cql), ("cqlindex", Path(args.cqlindex[0]))):
        if not path.is_file() and not shutil.which(str(path)):
            parser.error(f"{label} not found: {path}")
    if args.games < 1:
        parser.error("--games must be at least 1")
    for path in [args.pgn] + (args.files or []):
        if path is not None and not path.is_file():
            parser.error(f"no such file: {path}")
    return args


def plan(args: argparse.Namespace) -> list[tuple[str, list[Path], Dataset]]:
    """(name, query files, data) per set to run, the data prepared (cut, built or reused)."""
    if args.session and not args.sets:
        args.sets = ["examples"]
    if args.files:
        groups = [("files", list(args.files), False)]
    else:
        groups = [(name, sorted(args.shared.glob(SETS[name][0])), SETS[name][1]) for name in args.sets or ["bench", "patterns"]]
    prepared, datasets = [], {}
    for name, files, on_studies in groups:
        if not files:
            raise SystemExit(f"bench_vs_cql: no query files in the set {name} under {args.shared}")
        pgn = args.shared / STUDIES if on_studies else args.pgn or gnuchess_slice(args.shared, args.games, args.cache)
        if pgn not in datasets:
            datasets[pgn] = indexed(pgn, args.cache, args.cqlindex)
        prepared.append((name, files, datasets[pgn]))
    return prepared


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    compiled()  # cqlindex's bytecode, as an installed package has it (bench_bytecode.py)
    floor = rss_floor()
    figures, failures = {"rss_floor_mb": floor, "load_average_at_start": os.getloadavg()[0], "sets": []}, 0
    for name, files, data in plan(args):
        build = data.build
        print(f"## {name}: {len(files)} files on {data.pgn.name} ({data.games:,} games)\n\n"
              f"Index: {'reused, built earlier in' if build['cached'] else 'built in'} {build['wall_seconds']:.1f} s "
              f"wall ({build['cpu_seconds']:.1f} CPU s, peak RSS {build['peak_rss_mb']:.0f} MB).\n", flush=True)
        numbers, failed = (session if args.session else run_files)(files, data, args)
        failures += failed
        figures["sets"].append({"set": name, "data": data.to_json(), **numbers})
        print()
        if args.json:  # after each set: a long run stopped later keeps what it measured
            args.json.write_text(json.dumps(figures, indent=2))
    figures["load_average_at_end"] = os.getloadavg()[0]
    print(f"Load average (1 min) {figures['load_average_at_start']:.1f} at the start, {figures['load_average_at_end']:.1f} "
          f"at the end, on {os.cpu_count()} cores: compare ratios taken in one run, not seconds across runs.")
    print(f"A peak RSS is never below {floor:.0f} MB: a child reports this script's peak when it is above its own "
          f"(/bin/true, started the same way). Reference: {args.cql} -threads {args.threads}; "
          f"cqlindex: {' '.join(args.cqlindex)}.")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    if failures:
        print(f"bench_vs_cql: the engines' games differ (or an engine failed) on {failures} files", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
