"""The differential harness behind scripts/differential.py: every corpus program under plain python and under tdiag
in each mode, compared on torch's own Dynamo counters, stdout and exit code (docs/differential.md)."""
