"""Fix headlines for CUDA-graph skips, by the kind analyzer/cudagraphs.py gave torch's reason."""

from __future__ import annotations

FIXES = {
    "mutated_input": "clone the input before mutating it (x = x.clone()), or keep the state in a registered buffer of the "
    "module, so the graph mutates only memory CUDA graphs own",
    "cpu_device": "move this tensor to the GPU once, outside the step (register it as a buffer, or .to('cuda') before the "
    "call): a CPU tensor in the graph disables CUDA graphs for all of it",
    "multiple_devices": "keep every tensor of the compiled function on one GPU",
    "incompatible_op": "move the op out of the compiled function, or replace it (e.g. keep .item() values as tensors)",
    "dynamic_graph": "pad inputs to a few fixed sizes, or unset torch._inductor.config.triton.cudagraph_skip_dynamic_graphs",
    "non_tensor_input": "pass tensors (or Python ints Dynamo can specialize) only",
    "control_flow": "compute both branches with torch.where, or set torch._inductor.config.graph_partition = True",
    "data_dependent_op": "avoid boolean-mask indexing in place (index_put_ with a bool mask); use torch.where",
    "rerecord_limit": "stop input addresses/shapes changing between calls: pass the same tensors (copy into a static "
    "buffer), or pad shapes to a few fixed sizes",
}
DEFAULT = "see torch's reason; CUDA graphs need static CUDA-only graphs with no input mutation"


def fix_for(kind: str) -> str:
    return FIXES.get(kind, DEFAULT)
