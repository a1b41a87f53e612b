"""tdiag: graph-break, recompilation and kernel diagnostics for torch.compile."""

__version__ = "0.1.0"


def capture(*args, **kwargs):
    """Record what torch.compile does inside a ``with`` block (see ``tdiag.api.capture``)."""
    from tdiag.api import capture as _capture

    return _capture(*args, **kwargs)


def load_ipython_extension(ipython):
    """``%load_ext tdiag``: registers ``%tdiag``/``%%tdiag`` (tdiag/notebook/magics.py); nothing is captured yet."""
    from tdiag.notebook.magics import load

    load(ipython)


def unload_ipython_extension(ipython):
    from tdiag.notebook.magics import unload

    unload(ipython)


__all__ = ["__version__", "capture"]
