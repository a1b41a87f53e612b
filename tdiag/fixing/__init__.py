"""``tdiag fix``: the loop from a record's patches to a measured result (docs/fix-flow.md).

``loop`` puts the steps in order. ``plan`` picks the patches (selection, duplicates, overlaps) and merges them per
file; ``rounds`` verifies them in rounds, each a ``round.Round`` (patches tried, attempts, kept or refused and why):
``verify`` re-runs the recorded command under ``tdiag run`` on scratch copies and ``compare`` turns two runs into a
before/after verdict (by analyzer/verdict.py, shared with ``tdiag diff``); ``apply`` writes the kept patches after
``safety`` refuses edits that would lose the user's work (stale or uncommitted files, paths outside the project
root), and ``undo`` keeps a backup and a manifest for ``tdiag fix --undo``; ``report`` holds the result, ``render``
prints it, ``saved`` keeps it with the record; ``progress`` shows the re-runs and says what Ctrl-C interrupted.
Nothing is imported here: loading a record imports ``saved`` alone.
"""
