"""Guard-failure texts as torch 2.13 writes them for real third-party models (transformers keyword inputs, a
parameter cast to bfloat16), parsed into the kind the RCP rules classify on."""

from __future__ import annotations

from tdiag.analyzer.model import Recompile
from tdiag.analyzer.rules._recompiles import classify, subject_name
from tdiag.analyzer.torch_text import parse_guard_failure


def test_keyword_input_with_quotes_in_its_name_is_a_size_change():
    f = parse_guard_failure("0/0: tensor 'kwargs['input_ids']' size mismatch at index 1. expected 16, actual 24")
    assert (f.kind, f.subject, f.dim, f.expected, f.actual) == ("size", "kwargs['input_ids']", 1, "16", "24")
    assert subject_name(f) == "input_ids"
    assert classify(Recompile("0/1", 0, "forward", "m.py", 1, [f])) == "RCP001"


def test_parameter_dtype_change_with_torchs_advice_after_it_is_a_dtype_change():
    f = parse_guard_failure(
        "0/0: tensor 'self._modules['transformer']._modules['h']._modules['0']._modules['mlp']._modules['c_fc']"
        "._parameters['bias']' dtype mismatch. expected Float, actual BFloat16. Guard failed on a parameter, consider "
        "using torch._dynamo.config.force_parameter_static_shapes = False to allow dynamism on parameters."
    )
    assert (f.kind, f.expected, f.actual) == ("dtype", "Float", "BFloat16")
    assert subject_name(f) == "transformer.h[0].mlp.c_fc.bias"  # a ModuleList child as the user indexes it
    assert classify(Recompile("0/1", 0, "forward", "m.py", 1, [f])) == "RCP004"


def test_grad_mode_flip_is_a_mode_recompile():
    """x-transformers evaluated under torch.no_grad() between training steps: torch names the global grad mode."""
    f = parse_guard_failure("0/0: GLOBAL_STATE changed: grad_mode ")
    assert f.kind == "grad_mode"
    assert classify(Recompile("0/1", 0, "forward", "m.py", 1, [f])) == "RCP003"


def test_a_length_guard_on_a_global_list_names_the_list():
    """torch 2.13's text for a list the compiled step appends to (`timings.append(...)` inside it)."""
    f = parse_guard_failure("0/1: len(G['timings']) == 1")
    assert subject_name(f) == "len(timings)"


def test_guard_texts_shown_to_the_user_drop_torchs_comment_and_module_internals():
    """Texts as torch 2.13 logged them for a rotary-embedding cache (tests/suggestions/step_shapes/rotary_cache.py):
    the guard, then torch's comment on where it came from; a module's buffers reached through `_modules`/`__dict__`."""
    from tdiag.analyzer.guard_words import user_words
    from tdiag.analyzer.rules._recompiles import _plain_decision

    logged = ("2 <= x.size()[1] <= 16  # return F.linear(input, self.weight, self.bias)  # nn/modules/linear.py:134 "
              "in forward (user code shown is first use of this value--the guard itself is not due user code)")
    assert user_words(logged) == "2 <= x.size()[1] <= 16"
    assert user_words("self._modules['rope'].max_seq_len_cached == 16           # if seq_len > "
                      "self.max_seq_len_cached:  # rotary_cache.py:22 in forward") == "self.rope.max_seq_len_cached == 16"
    assert _plain_decision("self._modules['rope'].__dict__['_buffers']['cos_cached'].size()[0] -> dynamic") == \
        "rope.cos_cached.size()[0] -> dynamic"
    assert _plain_decision("L['x'].size()[1] -> dynamic") == "x.size()[1] -> dynamic"


def test_a_zero_one_specialised_size_guard_reads_its_subject_not_its_bound():
    """torch 2.13's guard on a size carried across a break (blind batch 8's mask-filtered detections, its truth/
    log): the bound first (`2 <= ...`), then torch's comment with a parenthetical note that holds parentheses of its
    own. The subject is the size, the comment is stripped, and torch's advice is kept as its hint."""
    from pathlib import Path

    log = (Path(__file__).resolve().parents[1] / "blind_batch_8" / "truth" / "detector_score_filter"
           / "torch_logs.txt").read_text()
    text = next(line[line.index("2 <= "):] for line in log.splitlines() if "0/1 specialization" in line)
    f = parse_guard_failure("1/0: " + text.strip().strip('"'))
    assert (f.kind, f.subject, f.expected) == ("size", "___stack0.size()[0]", "2")
    assert f.text == "2 <= ___stack0.size()[0]" and f.line == 41
    assert "mark_unbacked(tensor, dim)" in f.hint
