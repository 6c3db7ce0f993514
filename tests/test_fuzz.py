"""Fuzzing the query path: nothing a user types may crash cqlindex, hang it, or split the engines.

Strings are generated from a fixed seed: mutations (deletions, inserted tokens, duplicated
slices, swapped slices, truncations) of the reference engine's parse cases and of the visible
queries, deep nesting of braces, parentheses and prefix filters, long chains of one operator,
inserted Unicode (digits and letters of other scripts, CQL's symbols, controls), and numbers
past 64 bits. Every string must end, within 10 s, in an answer or a cqlindex error; a Python
traceback or a hang fails the test, listing the strings.

Each string goes two ways:

* parsed, planned into SQL (the SQL engine's front half, sqlglot included) and evaluated by the
  Python engine on one game tree with variations, in both modes;
* run through both full engines (``run``, SQL and Python) on a small index of 39 games
  (1,418 positions, 128 in variations) with a 10 s ``timeout``: a string that does not parse
  stops at once on both with the same kind of error, the others are answered, and wherever both
  answer, the answers must be the same.

The default suite runs 2,400 strings; the ``slow`` variant runs 20,000.
"""

from __future__ import annotations

import json
import random
import signal
import traceback
from collections.abc import Iterator

import pytest

from cqlindex.errors import CqlindexError
from cqlindex.evaluate.core import Evaluator
from cqlindex.exec.run import run
from cqlindex.plan.planner import plan
from cqlindex.query.prepare import prepare
from cqlindex.store.database import connect
from cqlindex.store.trees import load_games
from tests.conftest import shared_path

SEED = 14
LIMIT_SECONDS = 10
DATA = ("data/annotated/lichess-studies/lichess_study_beautiful-checkmate-puzzles_by_thijscom_2018.04.16.pgn",
        "data/games/otb-oly14r11.pgn")

TOKENS = ["{", "}", "(", ")", "[", "]", " not ", " and ", " or ", "flip ", "flipcolor ", "shift ", "rotate90 ",
          "find ", "find all ", "line ", "-->", "<--", "--", "――", "|", "&", "+", "-", "*", "/", "%", ":", "~", "#",
          "==", "<", ">=", "check", "mate", "K", "Ka1", "qa-h8", "[Qq]", "_", ".", "ply", "0", "1", "7",
          "9223372036854775807", "9223372036854775808", "-9223372036854775808", "123456789012345678901234567890",
          "²", "٣", "١٢", "♔", "♛", "∀", "∊", "→", "≤", "×", "é", "Ж", "\u200b", "\x00", "\t", "\n", '"', '"a\\"b"',
          "\\", "\\1", "/*", "*/", "//", ";", "echo (s t) ", "path ", "{+}", "{*}", "{4294967296,}", "{2,}", "{,3}",
          "sort ", "x", "x = ", "square s in ", "piece p in ", " in ", "[x]", "=?", "position 0", "parent", "child",
          "move from ", "pin ", "ray ", "attacks", "light ", "up ", "cql(variations) ", "result 1-0 ", "player ",
          "message ", "comment ", "consecutivemoves ", "function f(x) {x} f(1)", "o-o", "if check then mate else ",
          "abs ", "#[Aa]", "dark", "-->{3}", "quiet ", "true", "false", "initial", "terminal", "A", "a", "[a-h]"]
PREFIXES = [("{", "}"), ("(", ")"), ("not ", ""), ("flip ", ""), ("flipcolor ", ""), ("find ", ""), ("~", ""),
            ("abs ", ""), ("light ", ""), ("up ", ""), ("parent:", ""), ("sort ", ""), ("- (", ")"),
            ("if check then ", " else mate"), ("line --> {", "}")]
CHAINS = [" + ", " - ", " * ", " | ", " & ", " and ", " or ", " ", ":", " < "]
ATOMS = ["1", "K", "check", "ply", "Ka1", "[Qq]", "mate", "parent", "0", "#P", "a-h1-8", "x"]
#: CQL 5's relation (seed 001): its mutations reach the relation grammar's errors.
RELATION_SEEDS = ["relation (tomove match) echoflipvertical (sourcesquares a1-8 targetsquares [Aa] match 3 64)",
                  "K on darksquares relation K on lightsquares (tomove match) echoshift (mismatch 0)"]
UNICODE = "²³¹٣٤۵०१๑߁᠑𝟙ⅯⅫ①⑴⒈éßЖ中😀\u200b\u200e\ufeff\x00\x7f♔♕♖♗♘♙♚♛♜♝♞♟△▲□◭✵⬓∀⊢◎∙∊≺≻≼≽→←≤≥≠∪∩×―▦"


def seeds() -> list[str]:
    cases = [json.loads(line) for line in shared_path("acceptance/parse-cases.jsonl").open()]
    # mostly queries the reference engine accepts: mutations of them are near misses
    cases = [c["query"] for i, c in enumerate(cases) if c["reference"] == "accept" or i % 4 == 0]
    visible = [json.loads(line)["query"] for line in shared_path("acceptance/visible.jsonl").open()]
    return [q for q in cases + visible + RELATION_SEEDS if q.strip()]


def generate(count: int, seed: int = SEED) -> Iterator[str]:
    """``count`` strings from the seed queries, the same for the same ``seed``."""
    rng = random.Random(seed)
    base = seeds()
    kinds = [_mutate] * 6 + [_nest, _chain, _unicode, _huge_numbers]
    for _ in range(count):
        text = rng.choice(base)
        for _ in range(rng.choice((0, 1, 1, 1, 2, 3))):  # a sixth as they are: valid queries to run
            text = rng.choice(kinds)(rng, text)
        yield text


def _mutate(rng: random.Random, text: str) -> str:
    i, j = sorted(rng.randrange(len(text) + 1) for _ in range(2))
    op = rng.randrange(5)
    if op == 0:
        return text[:i] + text[j:]  # delete a slice
    if op == 1:
        return text[:i] + rng.choice(TOKENS) + text[i:]  # insert a token
    if op == 2:
        return text[:j] + text[i:j] * rng.randint(1, 4) + text[j:]  # repeat a slice
    if op == 3:
        k = rng.randrange(len(text) + 1)
        return text[:i] + text[k:] + text[i:k] if k > i else text[:k] + text[i:j] + text[k:i] + text[j:]
    return text[:j]  # truncate


def _nest(rng: random.Random, text: str) -> str:
    depth = rng.choice((5, 20, 23, 24, 25, 26, 30, 60, 89, 200, 1500))
    mixed = rng.random() < 0.5
    chosen = rng.choice(PREFIXES)
    opening, closing = [], []
    for _ in range(depth):
        before, after = rng.choice(PREFIXES) if mixed else chosen
        opening.append(before)
        closing.append(after)
    return "".join(opening) + text + "".join(reversed(closing))


def _chain(rng: random.Random, text: str) -> str:
    op = rng.choice(CHAINS)
    if rng.random() < 0.2 and len(text) < 60:
        return op.join([text] * rng.randint(2, 12))  # a whole query a few times
    length = rng.choice((4, 50, 500, 501, 2000))
    atom = rng.choice(ATOMS)
    terms = [atom if rng.random() < 0.8 else rng.choice(ATOMS) for _ in range(length)]
    return text + " " + op.join(terms) if rng.random() < 0.5 else op.join(terms)


def _unicode(rng: random.Random, text: str) -> str:
    i = rng.randrange(len(text) + 1)
    return text[:i] + "".join(rng.choice(UNICODE) for _ in range(rng.randint(1, 3))) + text[i:]


def _huge_numbers(rng: random.Random, text: str) -> str:
    number = rng.choice(("9223372036854775807", "9223372036854775808", "18446744073709551616", "4294967296",
                         "1" + "0" * rng.randint(19, 60)))
    out = "".join(number if c.isdigit() and rng.random() < 0.5 else c for c in text)
    return out if out != text else text + f" ply > {number}"


class Hang(Exception):
    """A string ran past the limit (raised by the alarm)."""


def _alarm(signum, frame):
    raise Hang()


@pytest.fixture()
def alarm():
    """``alarm(seconds)`` arms SIGALRM to raise Hang; disarmed after the test."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    yield lambda seconds: signal.setitimer(signal.ITIMER_REAL, seconds)
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def index(build_db):
    return build_db(*DATA, workers=1)


@pytest.fixture(scope="module")
def tree(index):
    """One game tree with variations: the Python engine's fuzzing ground."""
    con = connect(index)
    try:
        trees = list(load_games(con, None, variations=True))
    finally:
        con.close()
    return max((t for t in trees if len(t.positions) < 120), key=lambda t: len(t.positions))


def failure(text: str, error: BaseException) -> str:
    where = traceback.extract_tb(error.__traceback__)[-1]
    return f"{type(error).__name__} at {where.filename.rsplit('/', 1)[-1]}:{where.lineno}: {text[:120]!r}"


def front_halves(text: str, tree, alarm) -> str | None:
    """Parse, plan (with the SQL text) and evaluate on one tree; a failure's description, or None."""
    alarm(LIMIT_SECONDS)
    outcome = None
    try:
        try:
            for variations in (False, True):
                prepared = prepare(text, variations=variations)
                plan(prepared.query, variations, expansions=prepared.expansions).sql
                Evaluator(prepared.query, variations, prepared.expansions).matches(tree)
        except CqlindexError:
            pass
        except Exception as error:  # noqa: BLE001  (a Hang, or any other exception: the bug being looked for)
            outcome = failure(text, error)
        finally:
            alarm(0)
    except Hang as error:  # the alarm went off while being disarmed: the string took the whole limit
        outcome = failure(text, error)
    return outcome


def both_engines(index, text: str, answered: list[str]) -> str | None:
    """Run ``text`` fully on each engine; a failure's description (or a disagreement), or None.

    Strings both engines answer are appended to ``answered``.
    """
    answers, refusals = {}, {}
    for engine in ("sql", "python"):
        try:
            answers[engine] = run(index, text, engine=engine, variations=True, timeout=LIMIT_SECONDS).matches
        except CqlindexError as error:
            if type(error).__name__ == "QueryTimeout":
                return f"ran past {LIMIT_SECONDS} s on {engine}: {text[:120]!r}"
            refusals[engine] = type(error).__name__
        except Exception as error:  # noqa: BLE001  (any other exception is the bug being looked for)
            return failure(text, error)
    if len(answers) == 2:
        answered.append(text)
        if answers["sql"] != answers["python"]:
            return f"the engines disagree: {text[:120]!r}"
    elif refusals.get("sql", "answer") != refusals.get("python", "answer") and "CqlSyntaxError" in refusals.values():
        return f"a syntax error on one engine only ({refusals}): {text[:120]!r}"
    return None


def fuzz(index, tree, alarm, count: int) -> None:
    strings = list(generate(count))
    assert len(set(strings)) > count * 0.8  # varied, not one string many times
    failures = [f for f in (front_halves(s, tree, alarm) for s in strings) if f]
    assert not failures, f"{len(failures)} of {count} strings failed:\n" + "\n".join(failures[:40])
    answered = []
    failures = [f for f in (both_engines(index, s, answered) for s in strings) if f]
    assert not failures, f"{len(failures)} of {count} strings failed:\n" + "\n".join(failures[:40])
    assert len(answered) > count // 10  # enough of them are valid queries, answered by both engines


def test_fuzz(index, tree, alarm) -> None:
    fuzz(index, tree, alarm, count=600)  # 20,000 with -m slow (test_fuzz_many)


@pytest.mark.slow
def test_fuzz_many(index, tree, alarm) -> None:
    fuzz(index, tree, alarm, count=20000)


def test_the_strings_are_the_same_every_time() -> None:
    assert list(generate(50)) == list(generate(50))
    assert list(generate(50)) != list(generate(50, seed=SEED + 1))
