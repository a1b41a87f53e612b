"""The two stand-ins that keep the end-of-run summary cheap to import (issue 26) behave as what they replace:
``lean_dataclass`` as ``dataclass`` (equality, repr, hashability), ``lazy_regex`` as ``re.compile`` (and every
pattern in the package compiles: a typo no longer fails at import, so this test is where it fails)."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import re
from dataclasses import dataclass, field

import pytest

import tdiag
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


def test_frozen_is_refused():
    with pytest.raises(TypeError):
        lean_dataclass(frozen=True)


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
