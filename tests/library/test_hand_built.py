"""Library causes on hand-built analyses (no compile): a CUDA-graph skip that torch locates inside a library is
anchored on the user's call line (the H200 case of issue 24, a Llama static cache mutated in place inside
transformers' cache code); a logger method in a library that the catalogue does not know gets that logger's
ignore_logger_methods patch."""

from __future__ import annotations

from tdiag.analyzer.model import Analysis, CompiledGraph, CudaGraphInfo, CudaGraphSkip, FrameInfo, Site
from tdiag.analyzer.rules import run_rules
from tdiag.analyzer.suggestions import attach_suggestions

CACHE = "<site-packages>/transformers/cache_utils.py"


def test_skip_at_a_library_line_is_on_the_users_call_line_with_the_library_line_as_evidence():
    skip = CudaGraphSkip(kind="mutated_input", reason="mutated inputs (2 instances)", site=Site(CACHE, 412, function="update"),
                         code="self.keys.index_copy_(2, cache_position, key_states)")
    graph = CompiledGraph(compile_id="0/0", path="<site-packages>/transformers/models/llama/modeling_llama.py",
                          line=380, code_name="forward", frame_id=0, frame_compile_id=0, cudagraph=CudaGraphInfo(status="skipped", skips=[skip]))
    frame = FrameInfo(frame_id=0, code_name="forward", path=graph.path, line=380,
                      call_site=Site("generate.py", 14, function="<module>"))
    analysis = Analysis(graphs=[graph], frames=[frame])
    findings = [f for f in run_rules(analysis, None) if f.code == "CGR001"]
    attach_suggestions(findings, analysis)
    (f,) = findings
    assert (f.path, f.line) == ("generate.py", 14)
    assert (f.library_frame.path, f.library_frame.line) == (CACHE, 412)
    # the fix is the user's (let generate build a static cache), not "clone the input" inside transformers
    assert "cache_implementation" in f.fix and "clone" not in f.fix
    assert "transformers" in f.suggestion.why


def test_logger_method_in_a_library_without_an_entry_gets_that_loggers_ignore_patch():
    """Hand-built from the GPT-2 break's own fields, with a warning the catalogue does not know: the fix is the
    logger's method in ignore_logger_methods (checked to remove the break on torch 2.13: 0 breaks), never
    reorderable_logging_functions, and it names the library function."""
    from tdiag.analyzer.model import Frame, GraphBreak

    source = "import torch\n\ncmodel = torch.compile(model)\nout = cmodel(input_ids=ids)\n"
    lib = Frame("<site-packages>/transformers/modeling_utils.py", 4778, "loss_function", "logger.warning_once(", False)
    b = GraphBreak(compile_id="0/0", reason="logging.Logger method not supported for non-export cases",
                   site=Site("train.py", 4, function="<module>"), gb_id="GB0291", library_frame=lib,
                   context="method: <Logger transformers.modeling_utils (WARNING)>.warning_once, args: "
                           "[ConstantVariable(str: 'something new')], kwargs: {}",
                   user_stack=[Frame("train.py", 4, "<module>", "out = cmodel(input_ids=ids)"), lib])
    analysis = Analysis(breaks=[b], sources={"train.py": source})
    findings = run_rules(analysis, None)
    attach_suggestions(findings, analysis)
    (f,) = [f for f in findings if f.code == "BRK004"]
    s = f.suggestion
    assert '+torch._dynamo.config.ignore_logger_methods.add(logging.getLogger("transformers.modeling_utils").warning_once)' \
        in s.patch and "+import logging" in s.patch
    assert "transformers `loss_function`" in s.title
    assert "reorderable_logging_functions.add" not in " ".join([f.fix, s.title, *s.alternatives])


def test_optimizers_own_graph_break_is_info_by_design_and_ranked_after_a_fixable_break():
    """Hand-built from the break torch/optim/optimizer.py's _use_grad makes on purpose (GB0025, reached from the
    user's `opt.step()` in a compiled step): info, by design, "nothing to fix", never the untraceable-call advice; a
    fixable break in the same file ranks first and both count."""
    from tdiag.analyzer.model import Frame, GraphBreak

    source = "import torch\n\n@torch.compile\ndef step():\n    opt.step()\n    print(x)\n"
    lib = Frame("<site-packages>/torch/optim/optimizer.py", 79, "_use_grad", "torch._dynamo.graph_break()", False)
    design = GraphBreak(compile_id="0/0", reason="Call to `torch._dynamo.graph_break()`", gb_id="GB0025",
                        site=Site("train.py", 5, function="step"), library_frame=lib,
                        user_stack=[Frame("train.py", 5, "step", "opt.step()"), lib])
    printed = GraphBreak(compile_id="1/0", reason="builtin print", gb_id="GB0001", site=Site("train.py", 6, function="step"),
                         user_stack=[Frame("train.py", 6, "step", "print(x)")])
    analysis = Analysis(breaks=[design, printed], sources={"train.py": source})
    findings = run_rules(analysis, None)
    attach_suggestions(findings, analysis)
    (f,) = [f for f in findings if f.line == 5]
    assert f.severity == "info" and f.by_design and f.fix.startswith("by design in torch") and "nothing to fix" in f.fix
    assert "allow_in_graph" not in f.fix and "custom_op" not in f.fix
    assert "torch-optimizer-deliberate-break" in f.suggestion.why
    from tdiag.analyzer.ranking import rank_key

    ranked = sorted(findings, key=rank_key)
    assert [g.line for g in ranked] == [6, 5]


def test_frame_skip_title_names_the_skipped_library_frame_not_the_users_function():
    """Issue 32: the HTML title read "Remove the break that made Dynamo skip main" for a skip of peft's forward,
    `main` being the user's uncompiled function that holds the call."""
    from tdiag.analyzer.model import Frame, GraphBreak

    source = "def main():\n    out = cmodel(input_ids=ids)\n"
    peft = Frame("<site-packages>/peft/peft_model.py", 1006, "PeftModel.forward", "with self._enable_peft_forward_hooks(", False)
    b = GraphBreak(compile_id="0/0", reason="Data-dependent branching", gb_id="GB0170", code_name="forward",
                   site=Site("train.py", 2, function="main"), frame_skipped=True, library_frame=peft,
                   user_stack=[Frame("train.py", 2, "main", "out = cmodel(input_ids=ids)"), peft])
    analysis = Analysis(breaks=[b], sources={"train.py": source})
    findings = run_rules(analysis, None)
    attach_suggestions(findings, analysis)
    (f,) = [f for f in findings if f.code == "BRK006"]
    assert "skip PeftModel.forward (peft <site-packages>/peft/peft_model.py:1006)" in f.suggestion.title
    assert "skip main" not in f.suggestion.title
