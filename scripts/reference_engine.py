"""Running the reference CQL 6.2 engine, for the scripts that record its answers as test data.

cqlindex never calls the reference engine; these scripts do, once, and the tests read what they
wrote. Two questions are asked of it:

* :func:`matches`: the positions a query matches in a PGN file, read as acceptance/FACTS.md
  says (the query wrapped in braces, then ``message quiet ("@@ " gamenumber " " positionid)``).
* :func:`verdict`: whether it accepts a query at all, run on a one-game PGN: "accept" when the
  run ends normally, else "reject" with the engine's last words (its syntax error).
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("CQLINDEX_SHARED", ROOT.parent / "shared"))
ENGINE = SHARED / "reference" / "cql62" / "cql"
_MATCH = re.compile(r"@@ (\d+) (\d+)")
_TINY = '[Event "x"]\n[White "a"]\n[Black "b"]\n[Result "*"]\n\n1. e4 e5 2. Nf3 *\n'


def matches(query: str, pgn: Path, variations: bool, timeout: float = 600) -> dict[int, list[int]]:
    """{gamenumber: sorted position ids} the reference engine matches with ``query`` on ``pgn``."""
    with tempfile.TemporaryDirectory() as folder:
        cql = Path(folder) / "q.cql"
        cql.write_text(f"cql(input {pgn} {'variations' if variations else ''} quiet)\n{{\n{query}\n}}\n"
                       'message quiet ("@@ " gamenumber " " positionid)\n', encoding="utf-8")
        done = subprocess.run([str(ENGINE), "-threads", "1", "-o", str(Path(folder) / "out.pgn"), str(cql)],
                              capture_output=True, text=True, errors="replace", timeout=timeout, cwd=folder)
        if done.returncode != 0:
            raise RuntimeError(f"the reference refused {query!r}: {(done.stdout + done.stderr)[-400:]}")
    found: dict[int, set[int]] = {}
    for game, position in _MATCH.findall(done.stdout):
        found.setdefault(int(game), set()).add(int(position))
    return {game: sorted(ids) for game, ids in sorted(found.items())}


def verdict(text: str, timeout: float = 20) -> dict[str, str]:
    """How the reference engine takes the query or .cql file text ``text``, in two steps:

    * ``parse``: its parser alone (``-parse``), "accept" or "reject": the grammar;
    * ``run``: a whole run on a one-game PGN given with -i (which overrides a header's input),
      which also refuses what parses but can only be a slip (a number asked whether it matches);
      a run longer than ``timeout`` counts as accepted (it parsed, then searched);

    and ``message``, the engine's first line that speaks of an error (its syntax error).
    """
    out: dict[str, str] = {"message": ""}
    with tempfile.TemporaryDirectory() as folder:
        pgn = Path(folder) / "tiny.pgn"
        pgn.write_text(_TINY)
        cql = Path(folder) / "q.cql"
        cql.write_text(text, encoding="utf-8")
        for step, options in (("parse", ["-parse"]), ("run", ["-threads", "1", "-o", str(Path(folder) / "o.pgn")])):
            try:
                done = subprocess.run([str(ENGINE), *options, "-i", str(pgn), str(cql)], capture_output=True,
                                      text=True, errors="replace", timeout=timeout, cwd=folder)
            except subprocess.TimeoutExpired:
                out[step] = "accept"
                continue
            out[step] = "accept" if done.returncode == 0 else "reject"
            said = [line.strip() for line in (done.stdout + done.stderr).splitlines() if line.strip()]
            if out[step] == "reject" and not out["message"]:
                out["message"] = next((line for line in said if "error" in line.lower()), said[-1] if said else "")[:300]
            if out[step] == "reject":
                out["run"] = "reject"  # what does not parse does not run
                break
    return out
