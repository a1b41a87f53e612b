"""The two stand-ins that keep the end-of-run summary cheap to import (issue 26) behave as what they replace:
``lean_dataclass`` as ``dataclass`` (init, equality, repr, hashability, frozen, subclasses, the parameters it reports;
every dataclass of the package is one), ``lazy_regex`` as ``re.compile`` (and every
pattern in the package compiles: a typo no longer fails at import, so this test is where it fails)."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import re
from dataclasses import dataclass, field

import pytest

import tdiag
from tdiag import lean_dataclass as lean_dataclass_module
from tdiag.lazy_regex import LazyPattern, lazy_regex
from tdiag.lean_dataclass import lean_dataclass


@dataclass
class Plain:
    a: int = 1
    b: list = field(default_factory=list)
    hidden: int = field(default=0, compare=False, repr=False)


@lean_dataclass
class Lean:
    a: int = 1
    b: list = field(default_factory=list)
    hidden: int = field(default=0, compare=False, repr=False)


@lean_dataclass(kw_only=True)
class LeanChild(Lean):
    c: str = "x"


@lean_dataclass
class OwnRepr:
    a: int = 1

    def __repr__(self) -> str:
        return "mine"


def test_equality_repr_and_hash_as_dataclass():
    for args in [(), (2,), (2, [1], 5)]:
        plain, lean = Plain(*args), Lean(*args)
        assert repr(lean) == repr(plain).replace("Plain", "Lean")
    assert Lean(1, [2], 3) == Lean(1, [2], 4)  # compare=False left out, as dataclass does
    assert Lean(1, [2]) != Lean(1, [3])
    assert Lean() != Plain() and Lean.__eq__(Lean(), Plain()) is NotImplemented
    assert LeanChild(a=1) != Lean(1)  # another class, even a subclass: not equal
    assert Lean.__hash__ is None and Plain.__hash__ is None  # mutable and compared: unhashable
    with pytest.raises(TypeError):
        hash(Lean())
    assert repr(LeanChild(a=3, c="y")) == "LeanChild(a=3, b=[], c='y')"
    assert repr(OwnRepr()) == "mine"  # a class's own method is kept
    looped = Lean()
    looped.b.append(looped)
    assert repr(looped) == "Lean(a=1, b=[...])"
    assert [f.name for f in dataclasses.fields(LeanChild)] == ["a", "b", "hidden", "c"]


def _key_class(decorate):
    @decorate
    class Key:
        rank: int
        frame: int | None = None
        tags: tuple = ()
        note: str = field(default="", compare=False)

    return Key


def _init_class(decorate):
    @decorate
    class Init:
        a: int
        b: list = field(default_factory=list)
        derived: int = field(init=False, default=0)
        made: list = field(init=False, default_factory=lambda: ["made"])

        def __post_init__(self) -> None:
            self.derived = self.a * 2

    return Init


# the same class bodies under dataclass and under lean_dataclass
PlainKey, LeanKey = _key_class(dataclass(frozen=True)), _key_class(lean_dataclass(frozen=True))
PlainInit, LeanInit = _init_class(dataclass(kw_only=True)), _init_class(lean_dataclass(kw_only=True))


def _state(obj) -> dict:
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}


def _failure(call) -> str:
    with pytest.raises(TypeError) as raised:
        call()
    return str(raised.value).split("__init__() ", 1)[-1]


def test_frozen_as_dataclass():
    for args, kwargs in [((0,), {}), ((1, 2), {"tags": ("x",)}), ((), {"rank": 3, "note": "n"})]:
        plain, lean = PlainKey(*args, **kwargs), LeanKey(*args, **kwargs)
        assert _state(lean) == _state(plain)
        assert hash(lean) == hash(plain)  # both hash the tuple of compared fields
        assert repr(lean) == repr(plain)
    assert LeanKey(1, note="a") == LeanKey(1, note="b") and len({LeanKey(1, note="a"), LeanKey(1, note="b")}) == 1
    key = LeanKey(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        key.rank = 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        del key.rank
    assert dataclasses.replace(key, frame=5) == LeanKey(1, 5) and key.frame is None


def test_init_as_dataclass():
    """Parameters, defaults, factories, init=False fields, __post_init__ and the errors, before and after the class
    switches to the generated __init__ (COMPILE_AFTER instances)."""
    for round_ in range(lean_dataclass_module.COMPILE_AFTER + 2):
        plain, lean = PlainInit(a=round_), LeanInit(a=round_)
        assert _state(lean) == _state(plain) and lean.derived == 2 * round_ and lean.made == ["made"]
        assert LeanInit(a=1).b is not LeanInit(a=1).b  # a fresh list per instance
        assert LeanKey(round_, frame=1) == LeanKey(round_, 1)
    assert LeanInit.__init__ is not lean_dataclass_module._init  # switched to dataclass's own code
    fresh = lean_dataclass(kw_only=True)(type("Fresh", (), {"__annotations__": {"a": "int"}, "__doc__": "d"}))
    for plain_call, lean_call in [(lambda: PlainInit(), lambda: fresh()),
                                  (lambda: PlainInit(1), lambda: fresh(1)),
                                  (lambda: PlainInit(a=1, c=2), lambda: fresh(a=1, c=2))]:
        assert _failure(lean_call).split(":")[0].split(" ")[0:2] == _failure(plain_call).split(":")[0].split(" ")[0:2]
    assert "'a'" in _failure(lambda: fresh())
    assert "unexpected keyword argument 'c'" in _failure(lambda: fresh(a=1, c=2))
    assert "multiple values for argument 'a'" in _failure(lambda: Lean(1, a=2))
    assert "takes 4 positional arguments but 5 were given" in _failure(lambda: Lean(1, [], 0, 9))


def test_what_dataclass_refuses_or_lean_does_not_do():
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):
        lean_dataclass(type("Bad", (), {"__annotations__": {"a": "int", "b": "int"}, "a": 1, "__doc__": "d"}))
    for option in ("slots", "eq", "init", "order"):
        with pytest.raises(TypeError):
            lean_dataclass(**{option: True})
    with pytest.raises(TypeError, match="InitVar"):
        lean_dataclass(type("WithInitVar", (), {"__annotations__": {"a": dataclasses.InitVar[int]}, "__doc__": "d"}))


def test_a_subclass_keeps_its_own_init_after_the_switch():
    """Once the shared __init__ switches to the generated one, it does so for the class that has it, never for a
    subclass whose own __init__ reached it through super()."""

    @lean_dataclass
    class Base:
        a: int = 0

    class Own(Base):
        def __init__(self, a: int) -> None:
            super().__init__(a * 2)
            self.own = True

    @lean_dataclass
    class Inherits(Base):
        b: int = 1

    for i in range(lean_dataclass_module.COMPILE_AFTER * 2):
        made = Own(i)
        assert (made.a, made.own) == (2 * i, True)
        plain = Base(i)
        assert plain.a == i and not hasattr(plain, "own")
        child = Inherits(i, i + 1)
        assert (child.a, child.b) == (i, i + 1)
    assert "__init__" in Own.__dict__ and Own.__init__.__qualname__.endswith("Own.__init__")


def test_parameters_are_reported_to_dataclasses_and_type_checkers():
    """``__dataclass_params__`` says what the class does (frozen included), so dataclass's own rules hold: a mutable
    dataclass cannot subclass a frozen lean one. ``dataclass_transform`` is what type checkers read."""

    @lean_dataclass(frozen=True)
    class Frozen:
        a: int = 0

    @lean_dataclass(frozen=True)
    class FrozenChild(Frozen):
        b: int = 1

    assert Frozen.__dataclass_params__.frozen and not Lean.__dataclass_params__.frozen
    assert Frozen.__dataclass_params__.init and Frozen.__dataclass_params__.eq and Frozen.__dataclass_params__.repr
    assert FrozenChild.__dataclass_params__.frozen and hash(FrozenChild(1, 2)) == hash(FrozenChild(1, 2))
    with pytest.raises(dataclasses.FrozenInstanceError):
        FrozenChild().b = 3
    with pytest.raises(TypeError, match="non-frozen dataclass from a frozen one"):
        @dataclass
        class Mutable(Frozen):
            c: int = 2
    with pytest.raises(TypeError, match="non-frozen dataclass from a frozen one"):
        @lean_dataclass
        class LeanMutable(Frozen):
            c: int = 2
    import sys

    if sys.version_info >= (3, 11):
        transform = lean_dataclass.__dataclass_transform__
        assert dataclasses.field in transform["field_specifiers"]


def test_every_dataclass_of_the_package_is_lean():
    """One dataclass flavour (issue 34): every dataclass tdiag defines shares lean_dataclass's methods."""
    lean_methods = {lean_dataclass_module._init, lean_dataclass_module._repr}
    plain = []
    for pkg in ("tdiag", "tdiag.analyzer", "tdiag.reports", "tdiag.tracer", "tdiag.compiler", "tdiag.tui"):
        package = importlib.import_module(pkg)
        for info in pkgutil.walk_packages(package.__path__, pkg + "."):
            if info.name.endswith("__main__"):
                continue
            module = importlib.import_module(info.name)
            for value in vars(module).values():
                if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == info.name:
                    own = {value.__dict__.get("__init__"), value.__dict__.get("__repr__")}
                    if not own & lean_methods and not _lean_by_inheritance(value):
                        plain.append(f"{info.name}.{value.__qualname__}")
    assert not plain


def _lean_by_inheritance(cls) -> bool:
    return cls.__eq__ is lean_dataclass_module._eq or cls.__repr__ is lean_dataclass_module._repr


def test_lazy_regex_compiles_on_first_use():
    pattern = lazy_regex(r"(\d+)-(\d+)", re.I)
    assert isinstance(pattern, LazyPattern) and pattern._compiled is None
    assert pattern.search("x 12-34").groups() == ("12", "34")
    assert pattern._compiled is not None and pattern.flags & re.I and pattern.pattern == r"(\d+)-(\d+)"
    assert pattern.sub("#", "1-2 and 3-4") == "# and #"
    broken = lazy_regex(r"(unclosed")
    with pytest.raises(re.error):
        broken.search("x")


def test_every_pattern_in_the_package_compiles():
    seen = 0
    packages = [importlib.import_module(f"tdiag.{name}") for name in ("analyzer", "tracer", "compiler", "reports")]
    infos = [info for package in [tdiag, *packages] for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]
    for info in infos:
        if info.name.endswith("__main__") or info.name.startswith(("tdiag.tui", "tdiag.reports.html", "tdiag.notebook")):
            continue  # optional dependencies (textual, jinja2...); they hold no lazy pattern
        try:
            module = importlib.import_module(info.name)
        except ImportError:
            continue
        for value in vars(module).values():
            if isinstance(value, LazyPattern):
                value.pattern  # noqa: B018 -- compiles it; a bad pattern raises re.error here
                seen += 1
    assert seen >= 40
