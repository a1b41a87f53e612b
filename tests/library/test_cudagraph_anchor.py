"""A CUDA-graph skip that torch locates inside a library is anchored on the user's call line (hand-built analysis, no
compile): the H200 case of issue 24, a Llama static cache mutated in place inside transformers' cache code."""

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
