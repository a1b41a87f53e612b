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


TDIAG = [sys.executable, "-m", "tdiag"]


@pytest.fixture(scope="module")
def recorded_program(tmp_path_factory, session_env):
    """One `tdiag run` per program, in a git repository of its own (`tdiag fix` patches only committed files),
    shared by the entries that name it and by the builder tests."""
    made: dict[str, Path] = {}

    def get(program: str) -> Path:
        if program not in made:
            root = tmp_path_factory.mktemp(Path(program).stem)
            shutil.copy(REPO / program, root / Path(program).name)
            for git in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "i"]):
                subprocess.run(["git", *git], cwd=root, check=True, capture_output=True)
            run = subprocess.run([*TDIAG, "run", "--no-tui", "-q", "-o", "rec", Path(program).name], cwd=root,
                                 env=session_env, capture_output=True, text=True, timeout=300)
            assert (root / "rec" / "events.jsonl").exists(), run.stderr[-2000:]
            made[program] = root
        return made[program]

    return get


def _lint(root: Path, env: dict[str, str]) -> list[dict]:
    lint = subprocess.run([*TDIAG, "lint", "rec", "--format", "json"], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300)
    return json.loads(lint.stdout)


@pytest.fixture(scope="module")
def lint_of(recorded_program, session_env):
    """`tdiag lint --format json` of each program's run, before any `tdiag fix --verify` (which changes a fix
    line's standing)."""
    made: dict[str, list[dict]] = {}

    def get(program: str) -> list[dict]:
        if program not in made:
            made[program] = _lint(recorded_program(program), session_env)
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


# The candidates the catalogue writes as patches (`builder`), on the corpus programs of their entries, and the
# recompile rules' patches (dynamic=False dropped at the limit, a global passed as an argument), with the break
# torch no longer reports or the recompiles torch's account may still show: `tdiag fix --verify` keeps the patch, the finding says verified, and
# torch's own account of the patched program (a plain run, no tdiag) no longer shows the cause, with the same stdout.
BUILT = {
    "gb_requires_grad_in_compiled": "GB0225",  # hoist_to_caller: the requires_grad leaf made by the caller
    "gb_randn_generator": "GB0055",  # hoist_to_caller: the draw from the Generator made by the caller
    "gb_class_in_compiled": "GB8977",  # hoist_definition: the class at module level
    "gb_dict_items_input": "GB0811",  # pass_container: the dict passed in, its .items() made inside
    "gb_tensor_repr": "GB0569",  # return_operand: the tensor returned, repr() after the call
    "gb_tolist_float": "GB0109",  # return_operand: the tensor returned, .tolist() and the rounding after the call
    "gb_return_bound_method": "GB0092",  # return_operand: the object returned, the method taken after the call
    "gb_intermediate_hook": "GB0067",  # return_operand: the intermediate returned, its hook registered after
    "gb_lstsq_no_meta": "GB0037",  # call_rewrite: lstsq's solution as pinv(a) @ b
    "gb_sort_tensor_keys": "GB0207",  # call_rewrite: sorted() of tensors as one torch.sort
    "gb_deepcopy": "GB4198",  # call_rewrite: copy.deepcopy as the tensors cloned (the stdlib cause's own line)
    "gb_torch_equal": "GB0033",  # call_rewrite: if torch.equal ... as torch.where((x == y).all(), ...)
    "gb_context_manager_from_outside": "GB0142",  # hoist_with: the lock entered around the call
    "gb_print_builtin": "GB0059",  # reorderable_logging_functions.add(print)
    "gb_warnings_warn": "GB0007",  # reorderable_logging_functions.add(warnings.warn)
    "guard_int_value_limit": 1,  # dynamic=False dropped: one recompile (the int made symbolic), no limit
    "guard_global_value": 0,  # global_arg: the global passed as a tensor argument, no recompile
}


def _compiled_calls(path: Path) -> set[int]:
    """The lines that call a function the program decorates with torch.compile."""
    import ast

    tree = ast.parse(path.read_text())
    compiled = {f.name for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)
                and any("compile" in ast.unparse(d) for d in f.decorator_list)}
    return {c.lineno for c in ast.walk(tree) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
            and c.func.id in compiled}


@pytest.mark.parametrize("name", sorted(BUILT))
def test_a_built_candidate_is_verified_and_torch_confirms_it(name, recorded_program, lint_of, session_env, tmp_path):
    from oracle import account

    program = f"tests/torch_dynamo_corpus/programs/{name}.py"
    root = recorded_program(program)
    # `fix --apply` changes the shared run's file and standing: the lint the first-candidate test reads (unverified)
    # is taken before it, whichever of the two tests runs first
    lint_of(program)
    line = EXPECTED[name]["user_line"]
    # --no-parity: eager parity is torch's plain account below (the truth's stdout equals eager's)
    fix = subprocess.run([*TDIAG, "fix", "rec", "--verify", "--apply", "--repeat", "1", "--no-parity", "--format",
                          "json"],
                         cwd=root, env=session_env, capture_output=True, text=True, timeout=600)
    data = json.loads(fix.stdout)
    assert data["applied"] and data["applied"]["files"] == [f"{name}.py"], (data.get("refused"), fix.stderr[-2000:])
    standing = [(f["location"]["row"], f["fix"]["status"]) for f in _lint(root, session_env) if f.get("fix")]
    # the expert's line, or the call of the compiled function that recompiled (docs/blind-batches.md: "or the call
    # site")
    assert {(row, "verified") for row in {line, *_compiled_calls(REPO / program)}} & set(standing), standing

    truth = json.loads((CORPUS / "truth" / f"{name}.json").read_text())
    patched = account(root / f"{name}.py", session_env, tmp_path / "trace")
    assert patched.returncode == 0 and patched.stdout == truth["plain"]["stdout"], patched.stderr[-2000:]
    if isinstance(BUILT[name], str):
        assert not [b for b in patched.breaks if b["gb_id"].upper() == BUILT[name]], patched.breaks
    else:  # before: one compile per value (3, or 7 up to the limit); after: at most BUILT[name]
        assert len(truth["log_recompiles"]) >= 3 and len(patched.recompile_reasons) <= BUILT[name], \
            patched.recompile_reasons
