"""## What it does
Where torch warned that the compiled code's float32 matrix multiplications leave the GPU's tensor cores unused
(Inductor's "TensorFloat32 tensor cores ... available but not enabled", which torch prints only on an Ampere or later
GPU), and no compiled graph computes in bfloat16 or float16 already, names the user's call of that compiled code
and offers the mixed-precision recipe: the call, and the loss computed after it, under
`torch.autocast("cuda", dtype=torch.bfloat16)`.

## Why is this bad?
A matmul-bound float32 step runs at the GPU's float32 rate. Every GPU that prints this warning also has bfloat16
tensor cores, several times faster again than TF32 (WRN001's setting), and bfloat16 keeps float32's range, so no
loss scaling is needed. It is what an expert does first for speed on such a GPU.

## Example
```python
model = torch.compile(model)
for ids, labels in loader:
    logits, loss = model(ids, labels)     # float32 matmuls
    loss.backward()
```

## Use instead
```python
for ids, labels in loader:
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits, loss = model(ids, labels)  # matmuls in bfloat16, reductions and the weights in float32
    loss.backward()                         # the backward outside autocast, as torch's AMP recipe says
```
A precision trade-off: printed losses move in their second or third digit. `tdiag fix --verify` measures it by the
step time and keeps it only when the step is faster and the output stays within `--output-tolerance`.
"""

from tdiag.analyzer.eager_parity import low_precision_inductor_graphs
from tdiag.analyzer.evidence import TorchWarningEvidence
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._breaks import ranks_of
from tdiag.analyzer.paths import is_library_display

RULE = Rule("WRN002", "float32-matmuls", "info",
            "torch warned that float32 matmuls leave tensor cores unused: bfloat16 autocast is the larger lever",
            suggester="autocast")
# the torch_warnings.json entry whose warning is the evidence: torch prints it only where float32 matmuls were compiled
# for a GPU with TF32 (and so bfloat16) tensor cores
ENTRY = "tf32-not-enabled"


def check(ctx):
    warned = [w for w in ctx.torch_warnings if w.entry is not None and w.entry.id == ENTRY and w.compile_id]
    if not warned or low_precision_inductor_graphs(ctx.analysis):
        return []  # no float32 matmul torch named, or the program already computes in a low precision somewhere
    frames = {(f.rank, v): f for f in ctx.analysis.frames for v in f.variants}
    by_site = {}
    for w in warned:
        frame = frames.get((w.rank, w.compile_id))
        site = frame.call_site if frame is not None else None
        if site is None or is_library_display(site.path):
            continue  # the compiled code is entered from a library (a Trainer): no line of the user's to wrap
        by_site.setdefault((site.path, site.line), (site, frame, []))[2].append(w)
    findings = []
    for site, frame, items in by_site.values():
        first = items[0]
        findings.append(RULE.finding(
            message=(f"the compiled {frame.code_name} computes its matrix multiplications in float32 on a GPU with "
                     f"bfloat16 tensor cores ({first.attributed})"),
            fix=('run this call under torch.autocast("cuda", dtype=torch.bfloat16), with the loss where it follows, the '
                 "backward outside it, where bfloat16's precision is enough for the model"),
            path=site.path, line=site.line, function=site.function, occurrences=len(items),
            compile_ids=sorted({w.compile_id for w in items}), ranks=ranks_of(items),
            evidence=TorchWarningEvidence(torch_message=first.message, category=first.category, module=first.module,
                                          torch_location=None, entry=ENTRY),
        ))
    return findings
