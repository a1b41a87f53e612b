"""Typed facts read from what torch reports (issue 44): a skipped call's name, file and torch's skip reason; a guard's
subject as the user names it. The texts are torch 2.13's own, from TORCH_LOGS=graph_breaks,recompiles of
tests/shapes/programs (see that module's docstring)."""

from tdiag.analyzer.model import GuardFailure
from tdiag.analyzer.rules._recompiles import guard_fix, subject_name
from tdiag.analyzer.skipped_call import skipped_call
from tdiag.analyzer.torch_text import parse_guard_failure

SKIPPED = "Attempted to call function marked as skipped"


def test_skip_list_function():
    call = skipped_call(
        SKIPPED,
        "Dynamo developers have intentionally marked that the function `checkpoint_sequential` in file "
        "`/venv/lib/python3.11/site-packages/torch/utils/checkpoint.py` should not be traced.",
        "module: torch.utils.checkpoint, qualname: checkpoint_sequential, skip reason: file matches MOD_SKIPLIST "
        "(/venv/lib/python3.11/site-packages/torch/utils)")
    assert call.name == "torch.utils.checkpoint.checkpoint_sequential"
    assert call.file == "torch/utils/checkpoint.py" and call.kind == "skipfiles" and "MOD_SKIPLIST" in call.reason


def test_c_function():
    call = skipped_call(SKIPPED, "Dynamo does not know how to trace the builtin `<unknown module>.Random.random.`",
                        "module: <unknown module>, qualname: Random.random, skip reason: cannot determine source file "
                        "for  (likely a C extension or builtin)")
    assert call.name == "random.random" and call.file is None and call.kind == "c-function"
    assert skipped_call("Data-dependent branching", "", "") is None


def test_guard_subjects_as_the_user_names_them():
    metric = parse_guard_failure(
        "0/0: G['val_metric']._update_count == 0                            # self._update_count += 1  # "
        "torchmetrics/metric.py:546 in wrapped_func (HINT: torch.compile considers integer attributes of the nn.Module "
        "to be static. If you are observing recompilation, you might want to make this integer dynamic using "
        "torch._dynamo.config.allow_unspec_int_on_nn_module = True, or convert this integer into a tensor.)")
    assert metric.expected == "0" and metric.source == "self._update_count += 1" and "nn.Module" in metric.hint
    assert subject_name(metric) == "val_metric._update_count"
    metric.path = "<site-packages>/torchmetrics/metric.py"
    fix = guard_fix(None, metric)
    assert "torchmetrics" in fix and "val_metric" in fix and "as a tensor" not in fix and "G['" not in fix
    ema = parse_guard_failure("0/1: (1.0 + ((-1)*decay)) == 0.75  # (fx/passes/_tensorify_python_scalars.py:429 in "
                              "_tensorify_impl)")
    assert ema.subject == "decay" and ema.expected == "0.75" and ema.text == "(1.0 + ((-1)*decay)) == 0.75"
    state = "len(G['opt'].state[list(dict.keys(G['opt'].state))[0]])"
    opt = GuardFailure("0/0", f"{state} == 0", "length", subject=state)
    assert subject_name(opt).startswith("opt.state")
    assert guard_fix(None, opt).startswith("nothing to fix")


def test_a_local_carried_into_the_resume_function_is_the_breaks_consequence():
    """tensor_random_crop (corpus miss): `i = int(t.item())` breaks at line 12; the resume function that starts
    there recompiles on `i == 6`. That recompile is the break's, not a scalar argument to pass as a tensor."""
    from tdiag.analyzer.model import Recompile
    from tdiag.analyzer.rules._breaks import carried_across_break

    local = parse_guard_failure("0/0: i == 6")
    assert carried_across_break(Recompile("1/1", 1, "random_crop", "crop.py", 12, [local]), {("crop.py", 12)})
    assert not carried_across_break(Recompile("0/1", 0, "random_crop", "crop.py", 9, [local]), {("crop.py", 12)})
