"""The general causes blind batch 9's first score found (tests/blind_batch_9/SCORE.md) in its recompiles, on its own
programs, written by someone who had not read tdiag's code; torch's own account of a plain run (truth/) is the
oracle: a guard on a dict's key order (`list(dict.keys(feats))[2] == 'video'`) and a guard on a value of a global dict
the program changes every call (`dict.__getitem__(G['OP_COUNTS'], ...) == 48`) are said in the user's terms, with
their fix, and a finding counts recompiles as torch does (one per recompile, however many of its guards failed)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from kept_tdiag import tdiag as kept_tdiag
from tdiag.analyzer import build

BATCH = Path(__file__).resolve().parents[1] / "blind_batch_9"
# torch's guard text, never shown to the user: Dynamo's helpers and scopes
GUARD_TEXT = re.compile(r"dict\.keys\(|dict\.__getitem__|___|\b[GL]\[")


def _record(program: str, tmp_path: Path, env: dict) -> Path:
    shutil.copy(BATCH / "programs" / f"{program}.py", tmp_path / f"{program}.py")
    proc = kept_tdiag(["run", "--no-tui", "-q", "-o", "rec", f"{program}.py"], tmp_path, env, timeout=600)
    truth = BATCH / "truth" / program
    assert proc.returncode == int((truth / "exit_status.txt").read_text()), proc.stderr
    # the program's own output (its first line: the op counter's counts count Dynamo's own lookups, which vary)
    assert proc.stdout.splitlines()[:1] == (truth / "stdout.txt").read_text().splitlines()[:1]
    return tmp_path / "rec"


def _torch_recompiles(program: str) -> int:
    """torch's count of recompiles (TORCH_LOGS=recompiles in truth/), less the attempt refused at the recompile limit
    (logged as a recompile, compiled nothing: its counter says "recompile limit exceeded")."""
    truth = BATCH / "truth" / program
    logged = len(re.findall(r"\[__recompiles\] Recompiling function", (truth / "torch_logs.txt").read_text()))
    counters = json.loads((truth / "counters.json").read_text())["counters"]
    refused = sum(n for reason, n in counters.get("unimplemented", {}).items() if "recompile limit" in reason.lower())
    return logged - refused


def _words(findings) -> list[str]:
    out = []
    for f in findings:
        out += [f.message, f.fix or ""]
        if f.suggestion is not None:
            out += [f.suggestion.why or "", f.suggestion.fix or "", *f.suggestion.alternatives]
    return out


@pytest.mark.slow
def test_a_dict_whose_key_order_varies_is_one_cause_said_as_its_key_order(tmp_path, session_env):
    """forward iterates `feats.items()`; collate builds `feats` in each record's key order, so torch guards on
    `list(dict.keys(feats))[i] == '<modality>'` and recompiles 5 times. tdiag said "Python value
    list(dict.keys(feats))[2] changed ... a string: raise recompile_limit", counted 11. The cause is the key order of
    `feats`; the fix builds it in one canonical order (the batch's checked fix) or sorts it inside forward."""
    program = "multimodal_dict_order"
    findings = build(_record(program, tmp_path, session_env)).findings
    (rcp,) = [f for f in findings if f.family == "RCP"]
    assert "key order of `feats`" in rcp.message, rcp.message
    assert "canonical order" in rcp.fix and "sorted(feats.items())" in rcp.fix, rcp.fix
    assert "recompile_limit" not in rcp.fix  # raising the limit was the wrong fix
    assert rcp.occurrences == _torch_recompiles(program) == 5
    assert not [w for w in _words(findings) if GUARD_TEXT.search(w)]


@pytest.mark.slow
def test_a_global_dict_the_compiled_code_reads_and_the_program_changes_is_named(tmp_path, session_env):
    """`OP_COUNTS[...] += 1` in a __torch_function__ the compiled forward traces: torch guards on the global Counter's
    values and recompiles every call until the limit (7 recompiles, then eager). tdiag said "pass
    dict.__getitem__(OP_COUNTS, list(dict.keys(OP_COUNTS))[1]) as a tensor" and counted 88; the requires_grad
    guards that failed with it were a finding of their own. The cause is the global dict the program changes: one
    finding that names `OP_COUNTS`, the statement that changes it, and keeps that bookkeeping out of compiled code."""
    program = "op_counter_subclass"
    findings = build(_record(program, tmp_path, session_env)).findings
    (rcp,) = [f for f in findings if f.family == "RCP" and f.code != "RCP005"]
    assert "global dict `OP_COUNTS`" in rcp.message and "changes" in rcp.message, rcp.message
    assert "OP_COUNTS[" in rcp.fix and "op_counter_subclass.py:14" in rcp.fix, rcp.fix  # the user's own statement
    assert "out of the compiled code" in rcp.fix and "uncompiled model" in rcp.fix, rcp.fix
    assert rcp.occurrences == _torch_recompiles(program) == 7
    (limit,) = [f for f in findings if f.code == "RCP005"]
    assert "after 7 recompilations" in limit.message and "OP_COUNTS" in limit.message, limit.message
    assert "OP_COUNTS" in limit.fix and "stable across calls" not in limit.fix, limit.fix
    assert not [w for w in _words(findings) if GUARD_TEXT.search(w)]


@pytest.mark.parametrize("text, subject, expected, said", [
    ("list(dict.keys(feats))[2] == 'video'", "list(dict.keys(feats))[2]", "'video'", "key order of `feats`"),
    ("list(dict.keys(L['self'].heads))[0] == 'cls'", "list(dict.keys(L['self'].heads))[0]", "'cls'",
     "key order of `self.heads`"),
    ("dict.__getitem__(G['OP_COUNTS'], list(dict.keys(G['OP_COUNTS']))[1]) == 48",
     "dict.__getitem__(G['OP_COUNTS'], list(dict.keys(G['OP_COUNTS']))[1])", "48", "a value of the global dict `STATS`"),
    ("G['STATS']['steps'] == 3", "G['STATS']['steps']", "3", "the value at key 'steps' of the global dict `STATS`"),
])
def test_guards_on_a_dicts_keys_or_a_global_dicts_values_are_said_in_the_users_terms(text, subject, expected, said):
    """The guard kinds themselves, whatever the dict is called (no torch run)."""
    from tdiag.analyzer.model import GuardFailure
    from tdiag.analyzer.rules._recompiles import change_words, subject_name

    said = said.replace("STATS", "OP_COUNTS") if "OP_COUNTS" in subject else said
    f = GuardFailure(entry="0/0", text=text, kind="value", subject=subject, expected=expected)
    assert said in change_words(f)
    assert not GUARD_TEXT.search(change_words(f)) and not GUARD_TEXT.search(subject_name(f))


def test_a_global_scalar_or_a_local_dict_entry_is_not_a_global_dict():
    from tdiag.analyzer.model import GuardFailure
    from tdiag.analyzer.rules._recompiles import change_words

    for subject in ("SCALE", "G['SCALE']", "L['cfg']['mode']", "list(dict.keys(self.state))[0]"):
        f = GuardFailure(entry="0/0", text=f"{subject} == 1", kind="value", subject=subject, expected="<object>")
        assert change_words(f) is None, subject
