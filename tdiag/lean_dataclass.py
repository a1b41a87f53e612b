"""Dataclasses whose ``__eq__`` and ``__repr__`` are shared functions instead of code generated per class.

Python 3.11's ``dataclass`` compiles every generated method from source text, one ``exec`` each: for the model's
~40 classes that was most of the cost of importing the analysis at the end of ``tdiag run`` (issue 26: ~0.8 ms per
class, a third of it ``__init__``, a third each ``__eq__`` and ``__repr__``). ``lean_dataclass`` keeps the generated
``__init__`` and gives every class the same two functions, which behave as the generated ones do: equality of the
same class's field tuples (``compare=True`` fields), ``NotImplemented`` for another class, unhashable unless frozen;
``Name(field=value, ...)`` over ``repr=True`` fields, ``...`` on recursion. Python 3.13 batches the generated
methods into one ``exec``, which makes this unnecessary there.
"""

from __future__ import annotations

import dataclasses
import reprlib
from typing import Any, TypeVar

T = TypeVar("T", bound=type)

_COMPARED: dict[type, tuple[str, ...]] = {}
_SHOWN: dict[type, tuple[str, ...]] = {}


def lean_dataclass(cls: T | None = None, /, **options: Any):
    """``@dataclass`` (with its options) minus the per-class ``__eq__``/``__repr__`` code. Frozen classes, whose hash
    must follow their equality, are left to ``dataclass`` itself."""
    if options.get("frozen") or "eq" in options or "repr" in options:
        raise TypeError("lean_dataclass is for plain mutable dataclasses: use dataclass for frozen or custom eq/repr")

    def wrap(klass: T) -> T:
        own = set(klass.__dict__)
        klass = dataclasses.dataclass(klass, eq=False, repr=False, **options)
        if "__eq__" not in own:
            klass.__eq__ = _eq
            if "__hash__" not in own:
                klass.__hash__ = None  # as dataclass does for eq=True, frozen=False
        if "__repr__" not in own:
            klass.__repr__ = _repr
        return klass

    return wrap if cls is None else wrap(cls)


def _names(cls: type, cache: dict[type, tuple[str, ...]], flag: str) -> tuple[str, ...]:
    names = cache.get(cls)
    if names is None:
        names = cache[cls] = tuple(f.name for f in dataclasses.fields(cls) if getattr(f, flag))
    return names


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    names = _names(self.__class__, _COMPARED, "compare")
    return tuple(getattr(self, n) for n in names) == tuple(getattr(other, n) for n in names)


@reprlib.recursive_repr()
def _repr(self: Any) -> str:
    names = _names(self.__class__, _SHOWN, "repr")
    return f"{self.__class__.__qualname__}(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in names) + ")"
