"""The package's torch requirement never makes pip replace the user's torch: a lower bound only, the oldest release
of the tested matrix, admitting every newer release (2.14.1 on this machine's index, 2.15.0 beyond it).

That pip really keeps a 2.14.1 when installing tdiag with its dependencies is checked by installing it:
`scripts/torch-matrix 2.14.1` (scripts/test's new-torch step) fails that version when torch was replaced.
"""

from __future__ import annotations

from pathlib import Path

import tomllib
from packaging.requirements import Requirement
from packaging.version import Version

from tdiag.torch_releases import TESTED

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def torch_requirement() -> Requirement:
    deps = tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"]
    (req,) = [Requirement(d) for d in deps if Requirement(d).name == "torch"]
    return req


def test_newer_releases_are_admitted():
    spec = torch_requirement().specifier
    for release in ("2.14.1", "2.15.0", "2.16.0", "3.0.0", *TESTED):
        assert spec.contains(Version(release)), release
    assert spec.contains(Version("2.15.0.dev20260901"), prereleases=True)  # a nightly too


def test_the_only_bound_is_the_oldest_tested_release():
    (bound,) = torch_requirement().specifier  # one specifier: no upper bound, no pin
    oldest = min(TESTED, key=Version)
    assert bound.operator == ">=" and Version(bound.version).release[:2] == Version(oldest).release[:2]
    assert not torch_requirement().specifier.contains(Version("2.8.0"))
