"""cqlindex.cql.frozen against the dataclass(frozen=True, slots=True) it stands in for: the same
class declared both ways must construct, compare, hash, print, refuse changes, copy and pickle alike."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from dataclasses import FrozenInstanceError, dataclass, field

import pytest

from cqlindex.cql import ast
from cqlindex.cql.frozen import Frozen, frozen
from cqlindex.cql.tokens import Span


@frozen
class FBase(Frozen):
    span: object = field(compare=False, repr=False)


@frozen
class FLeaf(FBase):
    name: str
    count: int = 1
    tags: tuple = ()


@frozen
class FBare(FBase):
    """No field beyond the base's, which is not compared."""


@dataclass(frozen=True, slots=True)
class DBase:
    span: object = field(compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class DLeaf(DBase):
    name: str
    count: int = 1
    tags: tuple = ()


@dataclass(frozen=True, slots=True)
class DBare(DBase):
    """No field beyond the base's, which is not compared."""


def both(make):
    """``make(Leaf)`` with the frozen class and with the dataclass: (outcome, outcome)."""
    def outcome(cls):
        try:
            value = make(cls)
        except Exception as error:  # the type of error is what must agree
            return type(error).__name__
        return value
    return outcome(FLeaf), outcome(DLeaf)


def shown(value):
    """A value with the class names taken out of reprs, so FLeaf(...) and DLeaf(...) compare."""
    return value.replace("FLeaf", "Leaf").replace("DLeaf", "Leaf") if isinstance(value, str) else value


CASES = {
    "positional": lambda L: shown(repr(L(None, "a", 2, (1,)))),
    "keywords": lambda L: shown(repr(L(span=None, name="a", tags=(2,)))),
    "defaults": lambda L: (L(None, "a").count, L(None, "a").tags),
    "mixed": lambda L: shown(repr(L(None, "a", tags=(3,)))),
    "too many": lambda L: L(None, "a", 1, (), 5),
    "missing": lambda L: L(None),
    "unknown keyword": lambda L: L(None, "a", colour="w"),
    "twice": lambda L: L(None, "a", name="b"),
    "equal, span aside": lambda L: L(1, "a") == L(2, "a"),
    "unequal": lambda L: L(1, "a") == L(1, "a", 2),
    "other class": lambda L: L(1, "a") == ("a", 1, ()),
    "hash, span aside": lambda L: hash(L(1, "a", 2)) == hash(L(2, "a", 2)),
    "in a set": lambda L: len({L(1, "a"), L(2, "a"), L(1, "b")}),
    "assign": lambda L: setattr(L(None, "a"), "name", "b"),
    "delete": lambda L: delattr(L(None, "a"), "name"),
    "no dict": lambda L: hasattr(L(None, "a"), "__dict__"),
    "replace": lambda L: shown(repr(dataclasses.replace(L(None, "a"), count=5))),
    "fields": lambda L: [f.name for f in dataclasses.fields(L)],
    "match args": lambda L: L.__match_args__,
    "copy": lambda L: (lambda v: copy.copy(v) == v and copy.deepcopy(v) == v)(L(None, "a", 2, (L(None, "b"),))),
    "pickle": lambda L: (lambda v: pickle.loads(pickle.dumps(v)) == v)(L(None, "a", 2)),
    "pickled span": lambda L: pickle.loads(pickle.dumps(L(7, "a"))).span,
}


@pytest.mark.parametrize("make", CASES.values(), ids=CASES.keys())
def test_behaves_as_a_frozen_slotted_dataclass(make) -> None:
    ours, theirs = both(make)
    assert ours == theirs


def test_a_new_attribute_is_refused_as_frozen() -> None:
    """The dataclass refuses it too, but with Python 3.11's TypeError from a super() call on the
    class its slots replaced (a CPython bug); the error meant is FrozenInstanceError."""
    with pytest.raises(FrozenInstanceError):
        FLeaf(None, "a").other = 1  # type: ignore[attr-defined]
    with pytest.raises((FrozenInstanceError, TypeError)):
        DLeaf(None, "a").other = 1  # type: ignore[attr-defined]


def test_a_class_with_no_compared_field() -> None:
    assert FBare(1) == FBare(2) and hash(FBare(1)) == hash(FBare(2))
    assert repr(FBare(1)) == repr(DBare(1)).replace("DBare", "FBare")
    assert FBare(1) != DBare(1)


def test_refused_at_declaration_what_the_shared_methods_cannot_honour() -> None:
    with pytest.raises(TypeError, match="derives from Frozen"):
        frozen(type("Loose", (), {"__annotations__": {"x": "int"}}))

    with pytest.raises(TypeError, match="default_factory"):
        @frozen
        class Made(Frozen):
            items: list = field(default_factory=list)

    with pytest.raises(TypeError, match="__post_init__"):
        @frozen
        class Checked(Frozen):
            x: int

            def __post_init__(self) -> None:
                raise AssertionError("never called by Frozen.__init__")


def test_the_syntax_tree_is_built_on_it() -> None:
    span = Span(1, 1, 0, 3)
    node = ast.Pieces(span, frozenset("K"), 1, "Ka1")
    assert isinstance(node, Frozen) and dataclasses.is_dataclass(node)
    assert node == ast.Pieces(Span(1, 6, 5, 8), frozenset("K"), 1, "Ka1")
    with pytest.raises(FrozenInstanceError):
        node.squares = 2  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(node)) == node
