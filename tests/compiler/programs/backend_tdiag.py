"""torch.compile(backend="tdiag") outside `tdiag run`: must behave as Inductor, with provenance handles on."""

import logging

import torch

OUTPUT_CODE = []


class OutputCodeCatcher(logging.Handler):
    def emit(self, record):
        metadata = getattr(record, "metadata", None) or {}
        if "inductor_output_code" in metadata:
            OUTPUT_CODE.append(getattr(record, "payload", "") or "")


logging.getLogger("torch.__trace").addHandler(OutputCodeCatcher())


def f(x):
    return torch.relu(x) * 2 + 1


x = torch.randn(8, 16)
compiled = torch.compile(f, backend="tdiag")
assert torch.allclose(compiled(x), f(x))
assert OUTPUT_CODE, "Inductor produced no output code"
assert any("[Provenance debug handles]" in code for code in OUTPUT_CODE), "provenance tracking was not enabled"
print("backend ok")
