"""tdiag: graph-break, recompilation and kernel diagnostics for torch.compile."""

__version__ = "0.1.0"


def capture(*args, **kwargs):
    """Record what torch.compile does inside a ``with`` block (see ``tdiag.api.capture``)."""
    from tdiag.api import capture as _capture

    return _capture(*args, **kwargs)


__all__ = ["__version__", "capture"]
