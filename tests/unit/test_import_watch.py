"""import_watch.after_import: a callback right after a module's first import, and sys.meta_path left as it was."""

from __future__ import annotations

import importlib
import sys

import pytest
from tdiag.tracer.import_watch import after_import


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A fresh package on sys.path with one submodule that records when its body ran."""
    root = tmp_path / "watched_pkg"
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "late.py").write_text("import watched_pkg\nwatched_pkg.order.append('module body')\nVALUE = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "watched_pkg"
    for name in [n for n in sys.modules if n == "watched_pkg" or n.startswith("watched_pkg.")]:
        del sys.modules[name]


def test_callback_runs_after_the_module_body_and_the_finder_leaves(package):
    pkg = importlib.import_module(package)
    pkg.order = []
    before = list(sys.meta_path)
    seen = []
    after_import(f"{package}.late", lambda: seen.append(list(pkg.order) + [sys.modules[f"{package}.late"].VALUE]),
                 unwatchable=lambda: pytest.fail("a plain module is watchable"))
    assert seen == [] and len(sys.meta_path) == len(before) + 1
    module = importlib.import_module(f"{package}.late")
    assert seen == [["module body", 42]]
    assert sys.meta_path == before
    assert "exec_module" not in vars(module.__spec__.loader)  # the loader is as it was


def test_loaded_module_calls_back_at_once(package):
    importlib.import_module(package)
    seen = []
    cancel = after_import(package, lambda: seen.append(1), unwatchable=lambda: None)
    assert seen == [1]
    cancel()


def test_cancel_before_the_import(package):
    importlib.import_module(package).order = []
    before = list(sys.meta_path)
    cancel = after_import(f"{package}.late", lambda: pytest.fail("cancelled"), unwatchable=lambda: None)
    cancel()
    assert sys.meta_path == before
    importlib.import_module(f"{package}.late")


def test_a_failing_import_fails_as_before_and_a_retry_is_still_watched(package, tmp_path):
    (tmp_path / package / "broken.py").write_text("raise ValueError('in the module body')\n")
    importlib.import_module(package)
    before = list(sys.meta_path)
    seen = []
    after_import(f"{package}.broken", lambda: seen.append(1), unwatchable=lambda: None)
    with pytest.raises(ValueError, match="in the module body"):
        importlib.import_module(f"{package}.broken")
    assert seen == [] and len(sys.meta_path) == len(before) + 1
    (tmp_path / package / "broken.py").write_text("FIXED = True\n")
    importlib.invalidate_caches()
    assert importlib.import_module(f"{package}.broken").FIXED
    assert seen == [1] and sys.meta_path == before
