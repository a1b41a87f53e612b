"""Fixtures for the TUI tests: Analysis objects built in code, and async tests run without an extra plugin."""

from __future__ import annotations

import asyncio
import inspect

import pytest
from fixtures import analysis_factory
from shared_app import SharedApp


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """Run ``async def`` tests (Textual's pilot is async) on a fresh event loop, or inside a module's shared app."""
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        arguments = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
        shared = next((value for value in arguments.values() if isinstance(value, SharedApp)), None)
        coroutine = pyfuncitem.obj(**arguments)
        if shared is not None:
            shared.run(coroutine)
        else:
            asyncio.run(coroutine)
        return True
    return None


@pytest.fixture
def sample():
    return analysis_factory.sample_analysis()


@pytest.fixture
def empty():
    return analysis_factory.empty_analysis()


@pytest.fixture
def multi_rank():
    return analysis_factory.multi_rank_analysis()


@pytest.fixture
def broken():
    return analysis_factory.broken_record_analysis()


@pytest.fixture(scope="module")
def sample_app_module():
    shared = SharedApp(analysis_factory.sample_analysis(), size=(140, 44))
    yield shared
    shared.close()


@pytest.fixture
def sample_app(sample_app_module):
    """One app per module over the sample Analysis, brought back to its just-opened state before each test."""
    sample_app_module.reset()
    return sample_app_module
