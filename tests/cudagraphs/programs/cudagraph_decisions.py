"""CUDA-graph decisions on a CPU-only torch, made through torch's own code paths.

This torch has no CUDA, so Inductor never reaches its CUDA-graph wrapper. The backend below stands in for that
wrapper and makes the same calls torch 2.13 makes there, with torch's own message builders, loggers and callbacks:

- at compile time, a graph that uses a CPU tensor: ``check_multiple_devices_or_any_cpu_nodes`` builds the reason
  (torch/_inductor/cudagraph_utils.py) and ``log_cudagraph_skip_and_bump_counter`` logs it and sets
  ``cudagraph_skip_reason`` in the compile's metrics (output_code.py, CompiledFxGraph.__init__, "if cudagraphs:");
- at run time, one recording per distinct size of the graph's int inputs (``deferred_cudagraphify`` in
  cudagraph_trees.py logs "Recording cudagraph tree for symint key ..." at INFO), each inside a
  ``CUDAGRAPH_RECORDING`` compile bracket (``CUDAGraphTreeManager.record_function``). The input sizes tdiag reads
  from its wrapper of ``record_function`` itself need a real CUDA graph tree: tests/cudagraphs/test_runtime_decisions.py
  and benchmarks/gpu_cudagraphs.py cover them.
"""

import torch
from torch._dynamo.callback import CallbackTrigger, callback_handler
from torch._guards import CompileContext
from torch._inductor import cudagraph_trees, cudagraph_utils


def reduce_overhead_on_cpu(gm, example_inputs):
    compile_id = str(CompileContext.current_compile_id())
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    cpu_state = [n for n in placeholders if "self" in n.name]  # the module's CPU tensor (a CUDA graph cannot hold it)
    if cpu_state:
        reason = cudagraph_utils.check_multiple_devices_or_any_cpu_nodes({torch.device("cpu"): cpu_state[0]})
        cudagraph_utils.log_cudagraph_skip_and_bump_counter(reason)
        return gm.forward
    recorded = set()

    def run(*inputs):
        int_key = tuple(i for i in inputs if isinstance(i, int)) or None
        if int_key not in recorded:
            recorded.add(int_key)
            if int_key is not None:
                cudagraph_trees.log.info("[%s] Recording cudagraph tree for symint key %s", compile_id, int_key)
            with callback_handler.install_callbacks(CallbackTrigger.CUDAGRAPH_RECORDING, compile_id):
                out = gm.forward(*inputs)  # a recording runs the graph once
            return out
        return gm.forward(*inputs)

    return run


class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.ones(64)  # a plain attribute, not a buffer: stays on the CPU when the model moves

    def forward(self, x):
        return torch.relu(x * self.scale)  # SCALE LINE


def predict(x, w):
    return torch.tanh(x @ w)


scaled = torch.compile(Scaled(), backend=reduce_overhead_on_cpu)
compiled_predict = torch.compile(predict, backend=reduce_overhead_on_cpu)
w = torch.randn(64, 64)
print("scaled", float(scaled(torch.randn(8, 64)).sum() >= 0))
for batch in (8, 16, 24):
    out = compiled_predict(torch.randn(batch, 64), w)  # CALL LINE
print("predict", tuple(out.shape))
