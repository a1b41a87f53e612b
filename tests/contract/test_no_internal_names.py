"""No output shows a Dynamo-internal name or a guard expression the user does not hold (issue 62, item 2): every
output format (tests/internal_names.py) over every stored record and fixture Analysis, over the real runs this
module's neighbours already make, and over a real program whose recompiles torch guards through names only Dynamo
has (tests/programs/lr_schedule_step.py). The corpora's modules (tests/corpus, tests/new_shapes,
tests/library_corpus, tests/shapes) check the same on their own real runs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from internal_names import internal_names
from tdiag_testing import run_tdiag

TESTS = Path(__file__).resolve().parents[1]


# -- the translation, one kind of name at a time: texts as torch 2.13 logged them (the real program below) and as
# issue 62 quotes them from unseen programs; the expected words written by hand
@pytest.mark.parametrize("torch_text,frame,words", [
    # a local and a global of the user's: their names
    ("L['x'].size()[0] == 4", None, "x.size()[0] == 4"),
    ("G['lr'] == 0.1", None, "lr == 0.1"),
    ("L['self'].calls == 3", None, "self.calls == 3"),
    ("L['self']._modules['rope']._buffers['cos'].size()[0] == 16", None, "self.rope.cos.size()[0] == 16"),
    ("self.param_groups[0]['lr'] == 0.1                        # for group in self.param_groups:  # optim/sgd.py:118 "
     "in step", "step", "self.param_groups[0]['lr'] == 0.1"),
    # a value Dynamo computed and carried across a graph break: said, not quoted
    ("___stack2 == 0.4547148048877716                          # scale = 1.0 / (1.0 + loss.item())  # "
     "tests/programs/lr_schedule_step.py:17 in torch_dynamo_resume_in_train_step_at_17", None,
     "the value carried across the graph break == 0.4547148048877716"),
    ("L['___stack0'].size()[0] -> dynamic", None, "dim 0 of the value carried across the graph break -> dynamic"),
    # an object Dynamo reached through no name of the user's: where it lives
    ("len(<self>.state[list(dict.keys(<self>.state))[0]]) != 0", "SGD.step",
     "len(the SGD object.state[list(dict.keys(the SGD object.state))[0]]) != 0"),
    ("<unknown source> == 3", "SGD.step", "an object inside SGD.step == 3"),
    # torch's aside on a symbol it has no source for, and Dynamo's own helpers
    ("x.stride()[0] == 8  (unknown source x.stride()[0], please file a bug)", None, "x.stride()[0] == 8"),
    ("___check_obj_id(L['model'], 140230)", None, "model is the very object it was compiled for"),
    ("not ___dict_contains('mask', L['batch'])", None, "'mask' not in batch"),
    ("___check_global_state() against {\"grad_mode\": 1}", None, "torch's global state is as compiled"),
    ("___check_torch_function_mode_stack()", None, "Dynamo's check torch function mode stack()"),
    ("G['__import_torch_dot_nn_dot_functional'].gelu", None, "torch.nn.functional.gelu"),
])
def test_each_kind_of_dynamo_name_is_put_as_the_user_holds_it_or_said_in_words(torch_text, frame, words):
    from tdiag.analyzer.guard_words import DYNAMO_INTERNAL, held_by_user, user_words

    assert user_words(torch_text, frame) == words
    assert not DYNAMO_INTERNAL.search(words)
    assert held_by_user(torch_text) == (re.search(r"___stack|<self>|<unknown|unknown source", torch_text) is None)


def _fixture_analyses():
    from fixtures import analysis_factory as factory
    from tdiag.analyzer.model import Analysis

    yield "tests/data/sample_analysis.json", Analysis.from_dict(
        json.loads((TESTS / "data" / "sample_analysis.json").read_text(encoding="utf-8")))
    for name in ("sample_analysis", "measured_analysis", "empty_analysis", "multi_rank_analysis",
                 "broken_record_analysis", "two_ranks_one_compile_id", "hostile_analysis"):
        yield f"analysis_factory.{name}", getattr(factory, name)()


@pytest.mark.parametrize("name,analysis", list(_fixture_analyses()), ids=lambda v: v if isinstance(v, str) else "")
def test_no_output_of_a_fixture_analysis_shows_dynamo_names(name, analysis):
    """The hand-built analyses' findings carry words their authors wrote in torch's style (``L['x'] dim 0``), never
    finished by build: they pass the boundary every built finding passes (analyzer/finish.py), and then no output,
    including what renderers show of torch's records themselves (guards, automatic-dynamic decisions), may show a
    Dynamo name."""
    from tdiag.analyzer.finish import in_user_names

    for f in analysis.findings:
        in_user_names(f)
    assert internal_names(analysis) == []


@pytest.mark.parametrize("record", sorted(str(p.parent.relative_to(TESTS)) for p in TESTS.glob("**/records/*/events.jsonl")))
def test_no_output_of_a_stored_record_shows_dynamo_names(record):
    from tdiag.analyzer import build
    from tdiag.commands._analysis import load_analysis

    run_dir = TESTS / record
    assert internal_names(load_analysis(str(run_dir)), run_dir, build(run_dir, suggestions=False)) == []


@pytest.mark.parametrize("program", ["batch_size_change.py", "data_dependent_if.py", "item_call.py", "print_call.py",
                                     "third_party_call.py", "recompile_limit.py", "scalar_arg_change.py",
                                     "nested_break.py", "raises.py"])
def test_no_output_of_the_shared_real_runs_shows_dynamo_names(recorded, program):
    """The runs tests/contract/test_outputs_agree.py makes (shared per session), with the summary as printed."""
    from tdiag.commands._analysis import load_analysis

    run_dir, proc = recorded(program)
    assert internal_names(load_analysis(str(run_dir)), run_dir, proc.stderr) == []


def test_a_recompile_guarded_through_dynamo_names_is_said_as_the_user_holds_it(recorded, session_env, tmp_path):
    """SGD's lr changed by the scheduler each step, and a float from `.item()` carried across a break: torch's own
    trace of a plain run (the oracle) guards them as `self.param_groups[0]['lr']` and `___stack2`; the real
    `tdiag run` names the lr as the user's code reaches it and no output quotes a name the user does not have."""
    from oracle import account
    from tdiag.commands._analysis import load_analysis

    program = TESTS / "programs" / "lr_schedule_step.py"
    torch_says = account(program, session_env, tmp_path / "trace")
    assert torch_says.returncode == 0, torch_says.stderr[-3000:]
    assert any("param_groups[0]['lr']" in r for r in torch_says.recompile_reasons), torch_says.recompile_reasons
    assert any("___stack" in r for r in torch_says.recompile_reasons), torch_says.recompile_reasons

    run_dir, proc = recorded("lr_schedule_step.py")
    assert proc.returncode == 0, proc.stderr[-3000:]
    lint = run_tdiag(["lint", str(run_dir), "--format", "json"], session_env)
    records = json.loads(lint.stdout)
    rcp = [r for r in records if r["code"].startswith("RCP") and "SGD.step" in r["message"]]
    assert rcp, [(r["code"], r["message"]) for r in records]
    assert "param_groups[0]['lr']" in rcp[0]["message"] and "param_groups[0]['lr']" in rcp[0]["fix"]["message"]
    summary = proc.stderr + proc.stdout  # the end-of-run summary as the user saw it
    assert "param_groups[0]['lr']" in summary
    from tdiag.analyzer.guard_words import DYNAMO_INTERNAL

    assert not DYNAMO_INTERNAL.search(lint.stdout), lint.stdout
    assert internal_names(load_analysis(str(run_dir)), run_dir, _summary_only(summary)) == []


def _summary_only(output: str) -> str:
    """The summary `tdiag run` printed, without the program's own output and torch's log lines before it."""
    return output[output.index("tdiag: what torch.compile did"):]
