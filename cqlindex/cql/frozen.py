"""Frozen, slotted value classes declared like dataclasses, without code generated per class.

Why: ``@dataclass(frozen=True, slots=True)`` compiles six methods for every class it makes
(``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``), each
an ``exec`` of generated source. Python 3.11 does that one method at a time, so the fifty classes
of the CQL syntax tree cost every query ~25 ms of its start-up (issue 16), more than any other
module of cqlindex, and the value classes every query imports besides (tokens, filter
declarations, plan terms, the prepared query, output options) ~8 ms more. Here the classes are
still dataclasses (``dataclasses.fields``, ``replace``, ``__match_args__`` and type checkers see
them as before, through ``dataclass_transform``) but the six methods are written once, in
:class:`Frozen`, and read each class's fields from a table made the first time the class is
used. What those methods cannot honour, a ``default_factory`` or a ``__post_init__``, is refused
when the class is declared.

They behave as the generated ones do: positional or keyword arguments with the declared
defaults, equality and hash over the fields declared with ``compare`` (same class only), a repr
of the fields declared with ``repr``, ``FrozenInstanceError`` on assignment, and pickling and
copying through ``__getstate__``/``__setstate__``. ``tests/test_cql_frozen.py`` holds them to
``dataclass(frozen=True, slots=True)`` case by case. Construction costs ~1.0 us instead of
~0.8, equality and hash about twice as much; nothing in cqlindex compares trees on a hot path
(the evaluator keys its tables by ``id``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import MISSING, FrozenInstanceError
from operator import attrgetter
from typing import Any, Callable, TypeVar, dataclass_transform

_T = TypeVar("_T")


class _Shape:
    """What the shared methods need to know about one class's fields, in declaration order."""

    __slots__ = ("names", "defaults", "key", "shown")

    def __init__(self, cls: type) -> None:
        fields = dataclasses.fields(cls)
        self.names = tuple(f.name for f in fields)
        self.defaults = {f.name: f.default for f in fields if f.default is not MISSING}
        compared = [f.name for f in fields if f.compare]
        self.key: Callable[[Any], tuple] = (attrgetter(*compared) if len(compared) > 1
                                            else (lambda obj, g=attrgetter(*compared): (g(obj),)) if compared
                                            else (lambda obj: ()))
        self.shown = tuple(f.name for f in fields if f.repr)


_SHAPES: dict[type, _Shape] = {}


def _shape(cls: type) -> _Shape:
    shape = _SHAPES.get(cls)
    if shape is None:
        shape = _SHAPES[cls] = _Shape(cls)
    return shape


class Frozen:
    """The base of every :func:`frozen` class: the methods a frozen dataclass would generate."""

    __slots__ = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        shape = _shape(type(self))
        names = shape.names
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__}() takes {len(names)} arguments but {len(args)} were given")
        put = object.__setattr__
        for name, value in zip(names, args):
            put(self, name, value)
        for name, value in kwargs.items():
            if name not in names:
                raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {name!r}")
            if names.index(name) < len(args):
                raise TypeError(f"{type(self).__name__}() got multiple values for argument {name!r}")
            put(self, name, value)
        for name in names[len(args):]:
            if name not in kwargs:
                if name not in shape.defaults:
                    raise TypeError(f"{type(self).__name__}() missing required argument: {name!r}")
                put(self, name, shape.defaults[name])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        key = _shape(type(self)).key
        return key(self) == key(other)

    def __hash__(self) -> int:
        return hash(_shape(type(self)).key(self))

    def __repr__(self) -> str:
        shown = _shape(type(self)).shown
        return f"{type(self).__qualname__}({', '.join(f'{name}={getattr(self, name)!r}' for name in shown)})"

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __getstate__(self) -> tuple:
        return tuple(getattr(self, name) for name in _shape(type(self)).names)

    def __setstate__(self, state: tuple) -> None:
        for name, value in zip(_shape(type(self)).names, state):
            object.__setattr__(self, name, value)


_declare = dataclasses.dataclass(init=False, repr=False, eq=False, slots=True)


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
def frozen(cls: type[_T]) -> type[_T]:
    """``cls`` (a subclass of :class:`Frozen`) as a frozen, slotted dataclass: its fields declared,
    its methods :class:`Frozen`'s."""
    if not issubclass(cls, Frozen):
        raise TypeError(f"{cls.__name__}: a frozen class derives from Frozen")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: a frozen class has no __post_init__ (Frozen.__init__ would not call it)")
    made = _declare(cls)
    if any(f.default_factory is not MISSING for f in dataclasses.fields(made)):
        raise TypeError(f"{cls.__name__}: frozen classes take plain defaults, not default_factory")
    return made
