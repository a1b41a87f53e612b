"""Record -> Analysis: pure functions, no torch needed to load a record."""

from tdiag.analyzer.build import build

__all__ = ["build"]
