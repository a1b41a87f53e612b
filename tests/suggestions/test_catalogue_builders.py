"""The catalogue's generic builders (return_operand, call_rewrite, hoist_with) on torch's own test programs
(tests/torch_dynamo_corpus) and on a second program of each shape written differently (catalogue_builders/): the
patch is built from the catalogue entry of the break torch reports, the patched program runs with the same stdout,
and torch's own counters in a plain run (``torch._dynamo.utils.counters``, no tdiag) show the break before and no
break after.

The counters: ``graph_break`` for a break Dynamo resumed after, ``unimplemented`` for one that made it run the
whole frame eagerly (a context manager it cannot enter, a value it cannot rebuild at the return).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tdiag.analyzer.evidence import BreakEvidence
from tdiag.analyzer.model import Analysis, Finding
from tdiag.analyzer.suggestions import apply_patch, catalogue_candidates
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext

HERE = Path(__file__).parent
CORPUS = HERE.parent / "torch_dynamo_corpus" / "programs"
SHAPES = HERE / "catalogue_builders"

# program, the break's line, torch's GB id, torch's words for it (the catalogue reads them), the builder expected
CASES = [
    (CORPUS / "gb_tensor_repr.py", 9, "GB0569", "repr() on tensor", "return_operand"),
    (CORPUS / "gb_tolist_float.py", 8, "GB0109", "Tensor.tolist() with non-integer tensor", "return_operand"),
    (SHAPES / "tolist_count.py", 7, "GB0109", "Tensor.tolist() with non-integer tensor", "return_operand"),
    (CORPUS / "gb_return_bound_method.py", 18, "GB0092", "Reconstruction failure", "return_operand"),
    (SHAPES / "bound_method_assigned.py", 15, "GB0092", "Reconstruction failure", "return_operand"),
    (CORPUS / "gb_intermediate_hook.py", 11, "GB0067", "HOP: Unsafe side effect", "return_operand"),
    (SHAPES / "hook_pair.py", 13, "GB0067", "HOP: Unsafe side effect", "return_operand"),
    (CORPUS / "gb_lstsq_no_meta.py", 12, "GB0037", "Dynamic shape operator (no meta kernel)", "call_rewrite"),
    (SHAPES / "lstsq_alias.py", 8, "GB0037", "Dynamic shape operator (no meta kernel)", "call_rewrite"),
    (CORPUS / "gb_sort_tensor_keys.py", 10, "GB0207", "sort with non-constant keys", "call_rewrite"),
    (SHAPES / "sorted_reverse.py", 6, "GB0207", "sort with non-constant keys", "call_rewrite"),
    (CORPUS / "gb_deepcopy.py", 10, "GB4198", "copy.deepcopy()", "call_rewrite"),
    (SHAPES / "deepcopy_list.py", 8, "GB4198", "copy.deepcopy()", "call_rewrite"),
    (CORPUS / "gb_torch_equal.py", 10, "GB0033", "Data dependent operator", "call_rewrite"),
    (SHAPES / "equal_signs.py", 6, "GB0033", "Data dependent operator", "call_rewrite"),
    (CORPUS / "gb_context_manager_from_outside.py", 12, "GB0142", "Unsupported context manager", "hoist_with"),
    (SHAPES / "global_lock.py", 11, "GB0142", "Unsupported context manager", "hoist_with"),
]

COUNT = """
import json, runpy, sys
from torch._dynamo.utils import counters
runpy.run_path(sys.argv[1], run_name="__main__")
sys.stdout.flush()
print(json.dumps({k: sum(counters[k].values()) for k in ("graph_break", "unimplemented")}), file=sys.stderr)
"""


def _plain_run(program: Path) -> tuple[str, dict[str, int]]:
    """stdout and torch's break counters of a plain run (no tdiag), from the program's folder."""
    proc = subprocess.run([sys.executable, "-c", COUNT, program.name], cwd=program.parent, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout, json.loads(proc.stderr.strip().splitlines()[-1])


def _patch(program: Path, line: int, gb_id: str, reason: str):
    text = program.read_text()
    ctx = SuggestionContext(Analysis(sources={program.name: text}))
    finding = Finding(code="BRK099", name="x", severity="warning", message="m", fix="f", path=program.name,
                      line=line, gb_id=gb_id, evidence=BreakEvidence(reason=reason))
    return catalogue_candidates.suggest(finding, ctx), text


@pytest.mark.parametrize(("program", "line", "gb_id", "reason", "builder"), CASES,
                         ids=[f"{c[0].stem}" for c in CASES])
def test_the_catalogue_patch_removes_the_break_and_keeps_the_output(program, line, gb_id, reason, builder, tmp_path):
    suggestion, text = _patch(program, line, gb_id, reason)
    assert suggestion.patch, suggestion.title
    patched = tmp_path / program.name
    patched.write_text(apply_patch(text, suggestion.patch))
    assert patched.read_text() != text

    before_out, before = _plain_run(program)
    after_out, after = _plain_run(patched)
    assert before["graph_break"] + before["unimplemented"] >= 1, before  # the break the patch is for
    assert after_out == before_out
    assert after == {"graph_break": 0, "unimplemented": 0}, patched.read_text()


def test_the_builders_are_named_by_the_entries_they_serve():
    from tdiag.analyzer import catalogue

    for program, line, gb_id, reason, builder in CASES:
        entry = catalogue.for_break(gb_id, f"{program.read_text().splitlines()[line - 1].strip()}\n{reason}")
        assert entry is not None and builder in {c.builder for c in entry.candidates}, (gb_id, entry)


@pytest.mark.parametrize(("text", "line", "gb_id", "reason", "why"), [
    # the operand is assigned again before the return: returning it would return another value
    ("import torch\n\n@torch.compile\ndef f(x):\n    s = repr(x)\n    x = x + 1\n    return x, s\n\na, b = f(torch.ones(1))\n",
     5, "GB0569", "repr() on tensor", "assigned again"),
    # the caller uses the result other than by unpacking it into names
    ("import torch\n\n@torch.compile\ndef f(x):\n    s = repr(x)\n    return s\n\nprint(f(torch.ones(1)))\n",
     5, "GB0569", "repr() on tensor", "keep the result"),
    # sorted with a key: not the shape the catalogue's rewrite replaces
    ("import torch\n\n@torch.compile\ndef f(xs):\n    return torch.stack(sorted(xs, key=abs))\n\nf([torch.ones(())])\n",
     5, "GB0207", "sort with non-constant keys", "does not have the shape"),
    # torch.where would run a branch's call with an effect that the `if` ran only when taken
    ("import torch\n\n@torch.compile\ndef f(x, y):\n    if torch.equal(x, y):\n        return x + 1\n"
     "    return log(x)\n\nf(torch.ones(1), torch.ones(1))\n", 5, "GB0033", "Data dependent operator", "differently"),
    # the lock is read again inside the function
    ("import torch\n\n@torch.compile\ndef f(x, lock):\n    with lock:\n        x = x + 1\n    print(lock)\n    return x\n\n"
     "y = f(torch.ones(1), None)\n", 5, "GB0142", "Unsupported context manager", "besides being entered"),
])
def test_a_builder_refuses_where_the_rewrite_would_change_the_program(text, line, gb_id, reason, why):
    ctx = SuggestionContext(Analysis(sources={"p.py": text}))
    finding = Finding(code="BRK099", name="x", severity="warning", message="m", fix="f", path="p.py", line=line,
                      gb_id=gb_id, evidence=BreakEvidence(reason=reason))
    with pytest.raises(NoPatch, match=why):
        catalogue_candidates.suggest(finding, ctx)
