"""Every option of every command has help, and metavars are written one way (upper case: RECORD, FILE, N)."""

from __future__ import annotations

import argparse

from tdiag.cli import build_parser

# `tdiag fix` is the fix flow's (tdiag/commands/fix.py): its `-f` help and RECORD metavar land with that work
OTHERS = {"fix"}


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {name: p for name, p in sub.choices.items() if name not in OTHERS}


def test_every_option_has_help():
    missing = [(name, a.option_strings or a.dest) for name, p in _commands().items() for a in p._actions
               if not a.help]
    assert missing == []


def test_metavars_are_upper_case():
    mixed = []
    for name, p in _commands().items():
        for a in p._actions:
            shown = a.metavar if a.option_strings else (a.metavar or a.dest)
            if isinstance(shown, str) and shown != shown.upper():
                mixed.append((name, a.option_strings or a.dest, shown))
    assert mixed == []


def test_record_arguments_read_record():
    for name in ("report", "lint", "tui"):
        usage = _commands()[name].format_usage()
        assert "RECORD" in usage and "record" not in usage.replace("RECORD", ""), (name, usage)
