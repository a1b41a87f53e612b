"""Hardening suite: after a run that produced result files, regenerate docs/reliability.md from them."""

from __future__ import annotations


def pytest_sessionfinish(session, exitstatus):
    from hardening_util import RESULTS

    if not RESULTS.is_dir() or not any(RESULTS.glob("*.json")):
        return
    from render_reliability import render

    render()
