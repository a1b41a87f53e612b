"""``tdiag mcp``: a stdio Model Context Protocol server over the same Analysis every other output reads.

``server`` is the only module that imports the ``mcp`` SDK (installed by ``pip install 'tdiag[mcp]'``); the others
are plain functions an agent's tool calls reach through it: ``workspace`` keeps every path inside the directory the
server started in, ``queries`` reads records (findings, rules, diffs, reports), ``programs`` runs a program under
``tdiag run`` in a subprocess, and ``fixes`` is the one adapter onto ``tdiag.fixing``.
"""
