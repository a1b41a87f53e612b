"""Each catalogue entry's test programs (torch's own Dynamo test programs, tests/torch_dynamo_corpus, written by
someone who had not read tdiag's code): run under `tdiag run`, the finding at the line torch's account names carries
the entry's first candidate as its fix line, marked unverified (or, for an "expected" entry, as nothing to fix, info).

The oracle is torch's account of each program from plain runs without tdiag (the corpus's truth/NAME.json, made by
its collect.py: TORCH_TRACE's graph breaks with their GB ids and user lines, TORCH_LOGS=recompiles).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tdiag.analyzer import catalogue

pytestmark = pytest.mark.slow  # one tdiag run per program: scripts/test's bounded second step

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "torch_dynamo_corpus"
EXPECTED = {e["program"]: e for e in json.loads((CORPUS / "expected.json").read_text())}
CASES = [(entry, program) for entry in catalogue.breaks() + catalogue.guards() for program in entry.programs]


def _leading_words(entry) -> str:
    """The candidate's words up to its first field: the part every rendering of it shares."""
    return re.split(r"\{[{%]", entry.first.words, maxsplit=1)[0].strip()


@pytest.fixture(scope="module")
def lint_of(tmp_path_factory, session_env):
    """One `tdiag run` + `tdiag lint --format json` per program, shared by the entries that name it."""
    made: dict[str, list[dict]] = {}

    def get(program: str) -> list[dict]:
        if program not in made:
            root = tmp_path_factory.mktemp(Path(program).stem)
            shutil.copy(REPO / program, root / Path(program).name)
            tdiag = [sys.executable, "-m", "tdiag"]
            run = subprocess.run([*tdiag, "run", "--no-tui", "-q", "-o", "rec", Path(program).name], cwd=root,
                                 env=session_env, capture_output=True, text=True, timeout=300)
            assert (root / "rec" / "events.jsonl").exists(), run.stderr[-2000:]
            lint = subprocess.run([*tdiag, "lint", "rec", "--format", "json"], cwd=root, env=session_env,
                                  capture_output=True, text=True, timeout=300)
            made[program] = json.loads(lint.stdout)
        return made[program]

    return get


def _torch_lines(entry, program: str) -> set[int]:
    """Where torch's own account (a plain run, no tdiag) puts the break of the entry's type (its innermost user
    frame), with the line the corpus's expert names (the user's call of a function whose inside breaks); for a
    recompile, the expert's line."""
    name = Path(program).stem
    truth = json.loads((CORPUS / "truth" / f"{name}.json").read_text())
    if isinstance(entry, catalogue.BreakEntry):
        lines = [b["user_line"] for b in truth["trace_graph_breaks"]
                 if {g.upper() for g in b["gb_ids"]} & set(entry.gb_ids) and b.get("user_line")]
        assert lines, f"torch's account of {name} has no break of {entry.gb_ids}"
        return {lines[0], EXPECTED[name]["user_line"]}
    assert truth["log_recompiles"], f"torch's account of {name} has no recompile"
    return {EXPECTED[name]["user_line"]}


@pytest.mark.parametrize(("entry", "program"), CASES, ids=[f"{e.id}:{Path(p).stem}" for e, p in CASES])
def test_the_finding_at_torchs_line_says_the_entrys_first_candidate(entry, program, lint_of):
    lines = _torch_lines(entry, program)
    findings = [f for f in lint_of(program) if f["location"]["row"] in lines]
    words = _leading_words(entry)
    saying = [f for f in findings if (f["fix"] or {}).get("message", "").startswith(words)]
    assert saying, (entry.id, lines, [(f["code"], (f["fix"] or {}).get("message")) for f in findings])
    fix = saying[0]["fix"]
    if entry.first.kind == "expected" and isinstance(entry, catalogue.GuardEntry):
        assert saying[0]["severity"] == "info" and fix["status"] is None  # nothing to verify: torch's design
    elif not fix["message"].lower().startswith(("expected", "nothing to")):
        assert fix["status"] == "unverified"  # a candidate until `tdiag fix --verify` proves it here
