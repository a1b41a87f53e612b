"""Run a function once a module is imported: at once if it is loaded already, else right after the import that loads it.

tdiag's Dynamo hooks patch classes of ``torch._dynamo``, which takes about a second to import. A program that never
compiles never imports it and must not pay that second under tdiag; one that compiles imports it before its first
compile, so hooks installed just after that import see every compile. The watcher is a finder at the head of
``sys.meta_path`` that leaves it once it fired or was cancelled (wrapt's post-import hooks, the library way to do
this, stay registered for the life of the process, which ``tdiag.capture()`` inside a user's process must not do).
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
import threading
from collections.abc import Callable


def after_import(name: str, callback: Callable[[], None], unwatchable: Callable[[], None]) -> Callable[[], None]:
    """Call ``callback()`` once ``name`` is imported; return a function that cancels a call not yet made.

    ``unwatchable()`` is called instead where the module's loader cannot be followed (none seen: torch is plain
    files on disk); the module then imports untouched."""
    if name in sys.modules:
        callback()
        return lambda: None
    watcher = _Watcher(name, callback, unwatchable)
    sys.meta_path.insert(0, watcher)
    return watcher.cancel


class _Watcher(importlib.abc.MetaPathFinder):
    def __init__(self, name: str, callback: Callable[[], None], unwatchable: Callable[[], None]):
        self.name = name
        self.callback: Callable[[], None] | None = callback
        self.unwatchable = unwatchable
        self._finding = threading.local()

    def find_spec(self, fullname, path, target=None):
        if fullname != self.name or getattr(self._finding, "active", False) or self.callback is None:
            return None
        self._finding.active = True
        try:
            spec = importlib.util.find_spec(fullname)  # the other finders' answer; this one steps aside
        finally:
            self._finding.active = False
        loader = getattr(spec, "loader", None) if spec is not None else None
        if loader is None or not hasattr(loader, "exec_module") or not hasattr(loader, "__dict__"):
            if spec is not None:
                self.cancel()
                self.unwatchable()
            return spec
        exec_module = loader.exec_module

        def exec_then_notify(module):
            try:
                exec_module(module)
            finally:
                vars(loader).pop("exec_module", None)  # the loader as it was
            self._fire()

        loader.exec_module = exec_then_notify  # this module's own loader instance, for this one import
        return spec

    def _fire(self) -> None:
        callback, self.callback = self.callback, None
        self.cancel()
        if callback is not None:
            callback()

    def cancel(self) -> None:
        self.callback = None
        try:
            sys.meta_path.remove(self)
        except ValueError:
            pass
