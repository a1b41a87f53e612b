"""Dataclasses whose methods are shared functions instead of code generated per class.

Python 3.11's ``dataclass`` compiles every generated method from source text, one parse and ``exec`` each (~0.3 ms
for an ``__init__``, six methods for a frozen class). Under callgrind that was the largest single cost of the
end-of-run summary (issue 26: ~90 compiles, ~80 M instructions, for ~60 classes of which a short record instantiates
fewer than half). ``lean_dataclass`` lets ``dataclass`` collect the fields (so ``fields``, ``asdict``, ``replace`` and
``is_dataclass`` work as before) and gives every class the same functions, which behave as the generated ones do:

- ``__init__``: the same parameters (positional in field order, ``kw_only`` after), defaults, ``default_factory``,
  ``init=False`` fields, ``__post_init__``, and the same ``TypeError`` for a missing, unexpected or repeated argument;
- ``__eq__``: the field tuples (``compare=True``) of the same class, ``NotImplemented`` for another class;
- ``__repr__``: ``Name(field=value, ...)`` over ``repr=True`` fields, ``...`` on recursion;
- ``frozen=True``: ``__setattr__``/``__delattr__`` raise ``FrozenInstanceError``, ``__hash__`` hashes the compared
  fields (``hash=`` honoured); mutable classes are unhashable, as with ``eq=True``.

A class's own ``__init__``/``__eq__``/``__repr__``/``__hash__`` is kept, and a subclass's own ``__init__`` stays its own
(the shared one serves the class that has it, whichever subclass calls it). ``__dataclass_params__`` says what the
class does (``init``, ``eq``, ``repr``, ``frozen``), so ``dataclasses`` refuses a mutable dataclass subclass of a
frozen one as it does for its own; ``typing.dataclass_transform`` tells type checkers and IDEs the constructor's
parameters. Not supported (refused): ``slots``, ``InitVar``
and options that turn methods off or on (``init``, ``eq``, ``repr``, ``order``, ``unsafe_hash``). Python 3.13 batches
the generated methods into one ``exec``, which makes this less needed there.
"""

from __future__ import annotations

import dataclasses
import reprlib
import sys
from typing import Any, TypeVar

if sys.version_info >= (3, 11):
    from typing import dataclass_transform
else:  # Python 3.10: type checkers read typing_extensions' name; at run time it changes nothing
    def dataclass_transform(**_kwargs: Any):
        return lambda decorator: decorator

T = TypeVar("T", bound=type)

REFUSED = ("init", "eq", "repr", "order", "unsafe_hash", "slots")
_MISSING = dataclasses.MISSING
_FIELD_INITVAR = getattr(dataclasses, "_FIELD_INITVAR", None)

_COMPARED: dict[type, tuple[str, ...]] = {}
_SHOWN: dict[type, tuple[str, ...]] = {}
_HASHED: dict[type, tuple[str, ...]] = {}
_INITS: dict[type, _InitSpec] = {}
# After this many instances the class gets the ``__init__`` that ``dataclass`` generates (one compile, ~0.4 ms, then
# ~1.8 us less per instance): a class instantiated in bulk (events of a long record) pays what it always did, once,
# and one instantiated a few hundred times (a short run's events and guards) never pays for the compile.
COMPILE_AFTER = 256


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def lean_dataclass(cls: T | None = None, /, *, frozen: bool = False, **options: Any):
    """``@dataclass`` (``kw_only``, ``match_args``, ``frozen``) with shared methods instead of per-class code."""
    refused = [name for name in REFUSED if name in options]
    if refused:
        raise TypeError(f"lean_dataclass does not take {', '.join(refused)}: use dataclass for that class")

    def wrap(klass: T) -> T:
        own = set(klass.__dict__)
        # dataclass checks frozen against the bases' parameters: a frozen subclass of a frozen dataclass must say so
        # (it then writes __setattr__/__delattr__, replaced below; rare enough to pay for)
        frozen_base = any(getattr(base.__dict__.get("__dataclass_params__"), "frozen", False) for base in klass.__mro__[1:])
        klass = dataclasses.dataclass(klass, init=False, eq=False, repr=False, frozen=frozen and frozen_base, **options)
        _report_parameters(klass, frozen)
        _check_parameters(klass)
        if "__init__" not in own:
            klass.__init__ = _init
        if "__eq__" not in own:
            klass.__eq__ = _eq
        if "__repr__" not in own:
            klass.__repr__ = _repr
        if frozen:
            klass.__setattr__ = _frozen_setattr
            klass.__delattr__ = _frozen_delattr
        if "__hash__" not in own:  # (a class defining __eq__ has __hash__ = None in its body)
            klass.__hash__ = _hash if frozen else None  # as dataclass does for eq=True
        return klass

    return wrap if cls is None else wrap(cls)


def _report_parameters(cls: type, frozen: bool) -> None:
    """What the class does, as ``dataclass`` would say it: its methods are shared, not absent."""
    params = cls.__dataclass_params__
    params.init = params.eq = params.repr = True
    params.frozen = frozen
    if frozen:  # dataclass's own rule: no frozen subclass of a mutable dataclass, nor the reverse
        for base in cls.__mro__[1:]:
            base_params = base.__dict__.get("__dataclass_params__")
            if base_params is not None and not base_params.frozen:
                raise TypeError("cannot inherit frozen dataclass from a non-frozen one")
    else:
        for base in cls.__mro__[1:]:
            base_params = base.__dict__.get("__dataclass_params__")
            if base_params is not None and base_params.frozen:
                raise TypeError("cannot inherit non-frozen dataclass from a frozen one")


def _check_parameters(cls: type) -> None:
    """What ``dataclass`` checks while it writes ``__init__``: no InitVar, no required parameter after a default."""
    pseudo = getattr(cls, "__dataclass_fields__", {}).values()
    if _FIELD_INITVAR is not None and any(getattr(f, "_field_type", None) is _FIELD_INITVAR for f in pseudo):
        raise TypeError(f"{cls.__qualname__}: lean_dataclass does not support InitVar")
    seen_default = False
    for f in dataclasses.fields(cls):
        if not f.init or f.kw_only:
            continue
        if f.default is not _MISSING or f.default_factory is not _MISSING:
            seen_default = True
        elif seen_default:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")


class _InitSpec:
    """A class's ``__init__`` parameters, worked out on its first instantiation."""

    __slots__ = ("owner", "positional", "accepted", "steps", "post_init", "setter", "name", "calls")

    def __init__(self, cls: type):
        self.owner = cls
        fields = dataclasses.fields(cls)
        self.name = f"{cls.__qualname__}.__init__()"
        self.positional = tuple(f.name for f in fields if f.init and not f.kw_only)
        self.accepted = frozenset(f.name for f in fields if f.init)
        # (name, takes a parameter, default, factory) in field order; init=False fields without a factory read the
        # class attribute, as with dataclass
        self.steps = tuple((f.name, f.init, f.default, f.default_factory) for f in fields
                           if f.init or f.default_factory is not _MISSING)
        self.post_init = hasattr(cls, "__post_init__")
        self.setter = object.__setattr__ if cls.__setattr__ is _frozen_setattr else setattr
        self.calls = 0


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    cls = self.__class__
    spec = _INITS.get(cls)
    if spec is None:
        # the class whose __init__ this is: the nearest one holding the shared function (a subclass with an __init__
        # of its own reaches it through super().__init__, and keeps its own)
        owner = next(k for k in cls.__mro__ if k.__dict__.get("__init__") is _init)
        spec = _INITS[cls] = _INITS.get(owner) or _INITS.setdefault(owner, _InitSpec(owner))
    spec.calls += 1
    if spec.calls == COMPILE_AFTER:
        spec.owner.__init__ = _generated_init(spec.owner)
    positional = spec.positional
    if len(args) > len(positional):
        raise TypeError(f"{spec.name} takes {len(positional) + 1} positional arguments but {len(args) + 1} were given")
    if kwargs:
        values = dict(zip(positional, args))
        for name, value in kwargs.items():
            if name not in spec.accepted:
                raise TypeError(f"{spec.name} got an unexpected keyword argument {name!r}")
            if name in values:
                raise TypeError(f"{spec.name} got multiple values for argument {name!r}")
            values[name] = value
    else:
        values = dict(zip(positional, args))
    setter = spec.setter
    for name, parameter, default, factory in spec.steps:
        if parameter and name in values:
            setter(self, name, values[name])
        elif factory is not _MISSING:
            setter(self, name, factory())
        elif default is not _MISSING:
            setter(self, name, default)
        else:
            raise TypeError(f"{spec.name} missing 1 required argument: {name!r}")
    if spec.post_init:
        self.__post_init__()


def _generated_init(cls: type):
    """The ``__init__`` that ``dataclass`` writes for ``cls``: generated on a stand-in class with the same fields."""
    annotations, namespace = {}, {}
    for f in dataclasses.fields(cls):
        annotations[f.name] = f.type
        namespace[f.name] = dataclasses.field(default=f.default, default_factory=f.default_factory, init=f.init,
                                              kw_only=f.kw_only)
    if hasattr(cls, "__post_init__"):
        namespace["__post_init__"] = cls.__post_init__
    stand_in = type(cls.__name__, (), {**namespace, "__annotations__": annotations, "__qualname__": cls.__qualname__,
                                       "__module__": cls.__module__, "__doc__": cls.__doc__})
    frozen = cls.__setattr__ is _frozen_setattr
    return dataclasses.dataclass(stand_in, eq=False, repr=False, frozen=frozen, match_args=False).__init__


def _names(cls: type, cache: dict[type, tuple[str, ...]], keep) -> tuple[str, ...]:
    names = cache.get(cls)
    if names is None:
        names = cache[cls] = tuple(f.name for f in dataclasses.fields(cls) if keep(f))
    return names


def _compared(f: dataclasses.Field) -> bool:
    return f.compare


def _shown(f: dataclasses.Field) -> bool:
    return f.repr


def _hashed(f: dataclasses.Field) -> bool:
    return f.compare if f.hash is None else f.hash


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    names = _names(self.__class__, _COMPARED, _compared)
    return tuple(getattr(self, n) for n in names) == tuple(getattr(other, n) for n in names)


def _hash(self: Any) -> int:
    return hash(tuple(getattr(self, n) for n in _names(self.__class__, _HASHED, _hashed)))


@reprlib.recursive_repr()
def _repr(self: Any) -> str:
    names = _names(self.__class__, _SHOWN, _shown)
    return f"{self.__class__.__qualname__}(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in names) + ")"


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
