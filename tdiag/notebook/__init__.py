"""tdiag in Jupyter and IPython: ``%load_ext tdiag``, ``%%tdiag`` and ``%tdiag on|off|report``.

Nothing here is imported by ``import tdiag``: ``tdiag.load_ipython_extension`` imports it when the extension is
loaded, and loading only registers the magic; torch and the capture are imported when a cell is first captured.
"""
