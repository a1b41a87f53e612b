"""Renderers fed only by an Analysis: console summary (rich), lint formats, single-file HTML (plotly)."""
