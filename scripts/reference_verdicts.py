#!/usr/bin/env python3
"""Record which query strings the reference CQL 6.2 engine accepts: tests/reference/verdicts.jsonl.zst.

The strings (the grammar's test corpus, tests/test_cql_reference_grammar.py):

* every example file (data/cql-examples, ASCII and Unicode) and benchmark file (bench/**/*.cql),
  as files;
* seeded mutations of them and of the parse cases of acceptance/parse-cases.jsonl (whose own
  verdicts the test reads from that file): a token dropped, two neighbours swapped, a token
  doubled, an operator moved to the next line or a line break put before a token, the kinds of
  slip a user makes while typing. A file is mutated in its body only (its ``cql(...)`` header
  stays whole: a query without one is cqlindex's own short form).

Each string is given to the reference engine's parser, then run on a one-game PGN
(scripts/reference_engine.py); a bare query gets an empty ``cql()`` header there, as the engine
needs one. Usage, from the
checkout (about two minutes on 2 cores):

    python scripts/reference_verdicts.py [--mutations 6000] [--seed 35]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import zstandard

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference_engine import ROOT, SHARED, verdict  # noqa: E402

OUT = ROOT / "tests" / "reference" / "verdicts.jsonl.zst"
#: Groups of parse-cases.jsonl that are not reference verdicts (tests/test_cql_parse_cases.py says why).
NOT_VERDICTS = {"cql_strings"}

_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/|[A-Za-z_$][A-Za-z0-9_$]*|\d+|'
                    r"-->|<--|->|<-|--|==|<=|>=|!=|~~|\[x\]|\[<\]|\[>\]|[^\s]", re.DOTALL)
MUTATIONS = ("drop", "swap", "double", "operator-down", "break-before")


def files() -> list[tuple[str, str]]:
    """(name relative to ../shared, text) of every example and benchmark file."""
    paths = sorted((SHARED / "data" / "cql-examples").rglob("*.cql")) + sorted((SHARED / "bench").rglob("*.cql"))
    return [(str(p.relative_to(SHARED)), p.read_text(encoding="utf-8")) for p in paths]


def parse_cases() -> list[str]:
    lines = (SHARED / "acceptance" / "parse-cases.jsonl").read_text(encoding="utf-8").splitlines()
    return [case["query"] for case in map(json.loads, lines) if case["group"] not in NOT_VERDICTS]


def body_start(text: str) -> int:
    """Where the body of a file starts: after its ``cql(...)`` header's closing parenthesis."""
    match = re.match(r"\s*(//[^\n]*\s*|/\*.*?\*/\s*)*cql\s*\(", text, re.DOTALL)
    if not match:
        return 0
    depth, i = 1, match.end()
    while i < len(text) and depth:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    return i


def mutate(text: str, rng: random.Random, start: int = 0) -> tuple[str, str] | None:
    """One seeded slip in ``text`` after ``start``: (mutated text, what was done), or None if it has no tokens."""
    spans = [m.span() for m in _TOKEN.finditer(text, start) if not m.group().startswith(("//", "/*"))]
    if not spans:
        return None
    kind = rng.choice(MUTATIONS)
    k = rng.randrange(len(spans))
    a, b = spans[k]
    token = text[a:b]
    if kind == "drop":
        return text[:a] + text[b:], f"drop {token!r}"
    if kind == "double":
        return text[:b] + " " + token + text[b:], f"double {token!r}"
    if kind == "swap" and k + 1 < len(spans):
        c, d = spans[k + 1]
        return text[:a] + text[c:d] + text[b:c] + token + text[d:], f"swap {token!r} {text[c:d]!r}"
    operators = [i for i, (x, y) in enumerate(spans) if not re.match(r"[A-Za-z_$\d\"]", text[x:y])]
    if kind == "operator-down" and operators:
        a, b = spans[rng.choice(operators)]
        token = text[a:b]
        return text[:a].rstrip(" \t") + "\n" + token + text[b:], f"line break before operator {token!r}"
    return text[:a].rstrip(" \t") + "\n" + text[a:], f"line break before {token!r}"


def corpus(count: int, seed: int) -> list[dict]:
    """The files as they are, then ``count`` seeded mutations of the files and the parse cases."""
    rng = random.Random(seed)
    whole = files()
    bases = [(name, text, True) for name, text in whole] + [("parse-cases", q, False) for q in parse_cases()]
    out = [{"source": name, "mutation": "", "file": True, "text": text} for name, text in whole]
    seen = {(True, text) for _, text, _ in bases} | {(False, text) for _, text, _ in bases}
    while len(out) < len(whole) + count:
        # files carry most of the grammar: pick one as often as a parse case
        name, text, is_file = rng.choice(bases[:len(whole)]) if rng.random() < 0.5 else rng.choice(bases)
        done = mutate(text, rng, body_start(text) if is_file else 0)
        if done is None or (is_file, done[0]) in seen or not done[0].strip():
            continue
        seen.add((is_file, done[0]))
        out.append({"source": name, "mutation": done[1], "file": is_file, "text": done[0]})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mutations", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    cases = corpus(args.mutations, args.seed)

    def judge(case: dict) -> dict:
        text = case["text"] if case["file"] else "cql()\n" + case["text"]
        return {**case, **verdict(text)}

    with ThreadPoolExecutor(args.workers) as pool:
        records = list(pool.map(judge, cases))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    OUT.write_bytes(zstandard.ZstdCompressor(level=19).compress(text.encode("utf-8")))  # 3 MB of text, 0.1 MB kept
    parse = sum(r["parse"] == "reject" for r in records)
    run = sum(r["run"] == "reject" for r in records)
    print(f"{len(records)} strings; the reference's parser rejects {parse}, its run {run} -> {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
