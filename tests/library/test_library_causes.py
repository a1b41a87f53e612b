"""Causes inside transformers, diffusers and torch_geometric: the finding sits on the user's line, names the library
and function, and its fix is one the user applies from their own code.

Each program under programs/ marks, by hand, the line where an expert expects a known library cause with
`# EXPECT: <catalogue id>` (written from the library's source and torch's graph-break reason, not from tdiag's
output). One real `tdiag run` per program is shared by the module.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from kept_tdiag import tdiag as kept_tdiag
from tdiag_testing import require_installed

# several real runs per test (fix rounds, ranks, cold compiles): scripts/test runs it in the slow step (issue 45)
pytestmark = pytest.mark.slow

require_installed("transformers", "torch_geometric", "diffusers",
                  reason="corpus extra not installed: pip install -e '.[corpus]'")

HERE = Path(__file__).parent
PROGRAMS = HERE / "programs"
ROOT = HERE.parents[1]
LIBRARIES = {"transformers", "diffusers", "torch_geometric", "peft", "lightning", "accelerate", "sentence-transformers",
             "torch", "stdlib"}
# entries found on tests/library_corpus's programs are checked there (tests/library_corpus/test_library_programs.py)
CORPUS = "tests/library_corpus/"


def _env(base):
    env = dict(base)
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    return env


def _expected(program: Path) -> dict[int, str]:
    return {n: m.group(1) for n, line in enumerate(program.read_text().splitlines(), 1)
            if (m := re.search(r"# EXPECT: ([\w-]+)$", line))}


@pytest.fixture(scope="module")
def analyses(tmp_path_factory, session_env):
    """One `tdiag run` per program, in a git project so `tdiag fix` can check its patches. The runs are independent
    processes: two at a time, so this setup (the suite's longest) also uses a core the other worker leaves idle."""
    from tdiag.analyzer import build

    def run(program: Path) -> Path:
        root = tmp_path_factory.mktemp(program.stem)
        shutil.copy(program, root / program.name)
        proc = kept_tdiag(["run", "--no-tui", "-q", "-o", "rec", program.name], root, _env(session_env), timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return root

    programs = sorted(PROGRAMS.glob("*.py"))
    tmp_path_factory.getbasetemp()  # made here: two threads making the worker's base folder at once collide
    with ThreadPoolExecutor(max_workers=2) as pool:
        roots = list(pool.map(run, programs))
    return {program.name: (root, build(str(root / "rec"))) for program, root in zip(programs, roots)}


def test_every_output_shows_each_finding_alike(analyses):
    """Issue 34: GPT-2 called as `cmodel(input_ids=ids, labels=ids)` got `mark_dynamic(input_ids, 1)` and "move it
    out of the compiled code" in the summary, `mark_dynamic(ids, 1)` and `model.loss_type` from lint."""
    from outputs_agree import disagreements

    for name, (root, _) in analyses.items():
        assert not disagreements(root / "rec"), name


def test_catalogue_entries_are_complete():
    from tdiag.analyzer.library_causes import catalogue

    entries = catalogue()
    assert len(entries) >= 10 and len({e.id for e in entries}) == len(entries)
    table = (ROOT / "docs" / "library-causes.md").read_text()
    for e in entries:
        assert e.library in LIBRARIES, e.id
        assert re.search(rf"{e.library} \d+\.\d+", e.seen_on), e.id  # the library version it was seen on
        assert e.codes and e.frames and e.fix and e.cause, e.id
        re.compile(e.reason)
        assert f"`{e.id}`" in table, f"{e.id} missing from docs/library-causes.md"
        for path in re.findall(r"tests/[\w/]+\.py", e.seen_on):  # the program it was found on is in the repository
            assert (ROOT / path).exists(), path
        if e.patch:  # a mechanical fix names a patch kind the suggester knows
            from tdiag.analyzer.suggestions.library_fix import _PATCHES

            assert e.patch in _PATCHES, e.id


def test_every_entry_found_on_a_program_is_matched_at_the_user_line(analyses):
    """Every `# EXPECT: id` line of every program gets a finding there whose fix comes from that entry."""
    from tdiag.analyzer.library_causes import match

    checked = set()
    for name, (_, analysis) in analyses.items():
        expected = _expected(PROGRAMS / name)
        for line, entry_id in expected.items():
            at_line = [f for f in analysis.findings if f.path == name and f.line == line]
            matched = {m[0].id for f in at_line if (m := match(f))}
            assert entry_id in matched, f"{name}:{line} {[(f.code, f.fix) for f in at_line]}"
            checked.add(entry_id)
            finding = next(f for f in at_line if (m := match(f)) and m[0].id == entry_id)
            assert finding.suggestion is not None and finding.library_frame is not None
            lib = finding.library_frame.path.split("/")[1]
            assert f"inside {lib}" in finding.suggestion.why or "inside torch" in finding.suggestion.why
            assert "move it out of the compiled code" not in finding.fix
    # entries seen on another release than the tests install are checked where they were seen: the GPU machine's
    # (issue 24), the model-corpus sweep's (benchmarks/model_corpus.py, transformers 5.17), and another torch's
    # ("on torch 2.15.0": by that release's recorded evidence, tests/suggestions/test_lightning_hook.py)
    import torch
    from tdiag.analyzer.library_causes import catalogue

    installed = ".".join(torch.__version__.split(".")[:2])
    other_torch = {e.id for e in catalogue()
                   if (m := re.search(r"on torch (\d+\.\d+)", e.seen_on)) and m.group(1) != installed}
    # and the causes found on a blind batch, by that batch's own test (tests/blind_batches: the finding at the
    # program's line words the entry's cause)
    elsewhere = {e.id for e in catalogue() if "issue 24" in e.seen_on or CORPUS in e.seen_on
                 or "benchmarks/model_corpus.py" in e.seen_on or "tests/blind_batch_" in e.seen_on} | other_torch
    assert checked == {e.id for e in catalogue()} - elsewhere


def test_no_finding_is_anchored_in_a_library_file(analyses):
    from tdiag.analyzer.library_sites import at_library_sites
    from tdiag.analyzer.paths import is_library_display

    for name, (_, analysis) in analyses.items():
        assert not [(f.code, f.path, f.line) for f in analysis.findings if is_library_display(f.path)], name
        shown = at_library_sites(analysis.findings)  # --show-library-sites: there they are
        assert any(is_library_display(f.path) for f in shown), name


def test_logger_method_fix_never_suggests_reorderable_logging_functions(analyses):
    for _, analysis in analyses.values():
        for f in analysis.findings:
            if f.library_frame is None or f.code not in ("BRK004", "BRK006"):
                continue
            s = f.suggestion
            text = " ".join([f.fix, s.title, s.why, *s.alternatives])
            if "logger" in (f.library_frame.code or "") or "Logger" in text:
                assert "reorderable_logging_functions" not in text.replace("reorderable_logging_functions takes", "")


def test_gpt2_keyword_call_gets_mark_dynamic_on_the_users_variable(analyses):
    _, analysis = analyses["hf_gpt2_train_varlen.py"]
    rcp = next(f for f in analysis.findings if f.code == "RCP001")
    assert rcp.evidence.subject == "kwargs['input_ids']"  # torch's name, inside transformers' wrapper
    assert "+    torch._dynamo.mark_dynamic(ids, 1)\n" in rcp.suggestion.patch
    assert "mark_dynamic(ids, 1)" in rcp.fix
    brk = next(f for f in analysis.findings if f.code == "BRK004")
    assert '+model.loss_type = "ForCausalLM"\n' in brk.suggestion.patch
    assert "transformers `loss_function`" in brk.suggestion.why


def test_a_model_called_inside_the_users_compiled_step_gets_the_loss_type_not_the_logger_switch(analyses):
    """No framework makes the call here: the user's own step calls `model(...)`, so the hand fix (`model.loss_type`
    after the model is built) is the patch; the logger switch is for a Trainer, which reads `loss_type` itself."""
    _, analysis = analyses["hf_gpt2_step_function.py"]
    brk = next(f for f in analysis.findings if f.code == "BRK004")
    assert "+model.loss_type = \"ForCausalLM\"\n" in brk.suggestion.patch
    assert "ignore_logger_methods" not in brk.suggestion.patch


@pytest.mark.skipif(shutil.which("git") is None, reason="tdiag fix --verify needs git")
def test_gpt2_patches_verified(analyses, session_env):
    """`tdiag fix --verify`: mark_dynamic(ids, 1) and model.loss_type together leave one graph, no break, no
    recompile, and the same printed losses (the oracle: torch's counts in the re-runs, and the program's stdout)."""
    root, _ = analyses["hf_gpt2_train_varlen.py"]
    for cmd in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init"]):
        subprocess.run(["git", *cmd], cwd=root, check=True, capture_output=True)
    proc = kept_tdiag(["fix", "rec", "--verify", "--repeat", "1", "--format", "json"],
                      root, _env(session_env), timeout=900)
    data = json.loads(proc.stdout)
    together = data["verification"][0]
    assert together["ok"] and together["stdout_identical"], together
    before, after = together["before"], together["after"]
    assert before["graph_breaks"] >= 3 and before["recompiles"] >= 1
    assert after["graph_breaks"] == 0 and after["recompiles"] == 0 and after["graphs"] == 1
    assert {"RCP001", "BRK004"} <= set(together["gone"])
