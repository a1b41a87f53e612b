"""Fixtures for the TUI tests: Analysis objects built in code, and async tests run without an extra plugin."""

from __future__ import annotations

import asyncio
import inspect

import pytest
import tui_factory


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """Run ``async def`` tests (Textual's pilot is async) on a fresh event loop; no pytest-asyncio needed."""
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        arguments = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
        asyncio.run(pyfuncitem.obj(**arguments))
        return True
    return None


@pytest.fixture
def sample():
    return tui_factory.sample_analysis()


@pytest.fixture
def empty():
    return tui_factory.empty_analysis()


@pytest.fixture
def multi_rank():
    return tui_factory.multi_rank_analysis()


@pytest.fixture
def broken():
    return tui_factory.broken_record_analysis()
