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
    assert subject_name(f) == "transformer.h.0.mlp.c_fc.bias"
    assert classify(Recompile("0/1", 0, "forward", "m.py", 1, [f])) == "RCP004"


def test_grad_mode_flip_is_a_mode_recompile():
    """x-transformers evaluated under torch.no_grad() between training steps: torch names the global grad mode."""
    f = parse_guard_failure("0/0: GLOBAL_STATE changed: grad_mode ")
    assert f.kind == "grad_mode"
    assert classify(Recompile("0/1", 0, "forward", "m.py", 1, [f])) == "RCP003"
