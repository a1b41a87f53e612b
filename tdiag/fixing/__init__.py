"""``tdiag fix``: the loop from a record's patches to a measured result.

``plan`` picks the patches (selection, duplicates, overlaps) and merges them per file; ``safety`` refuses edits that
would lose the user's work (stale or uncommitted files, paths outside the project root); ``undo`` keeps a backup and
a manifest for ``tdiag fix --undo``; ``verify`` re-runs the recorded command under ``tdiag run`` on scratch copies
and ``compare`` turns two runs into a before/after verdict; ``render`` prints it (console or JSON).
"""
