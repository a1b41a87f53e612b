"""Hand-written expectations for the new-shapes corpus (issue 44, item 5): what an expert wants flagged, at which
line, and what a right fix says.

Written before tdiag ran on these programs, from the program text and torch's own TORCH_TRACE of a plain `python`
run (torch 2.13.0 CPU): ``truth`` holds that run's counts (dynamo_graph_break_reason events, recompile_reasons
events, exit code), and each ``why`` quotes torch's reason. Never from tdiag's output.

``fixes``: for a required finding (code, marker), the remedies an expert accepts, each a tuple of words that must
all appear in the finding's fix (headline, suggestion title, patch); a generic template that names none of
them is not a working fix. ``info``: required findings that must be information, not a warning (expected, nothing to
fix). ``patch``: required findings for which a patch exists that verifies (written and checked by hand), so tdiag
should offer one. ``first``: the finding an expert wants first.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from corpus_scoring import Expect


@dataclass
class Shape:
    expect: Expect
    truth: dict  # graph_breaks, recompiles (torch's own events in a plain traced run)
    fixes: dict[tuple[str, str], list[tuple[str, ...]]] = field(default_factory=dict)
    first: tuple[str, str] | None = None
    info: set[tuple[str, str]] = field(default_factory=set)
    patch: set[tuple[str, str]] = field(default_factory=set)


CLEAN = "nothing to flag: one graph, no break, no recompile in torch's trace"

SHAPES: dict[str, Shape] = {
    "torchmetrics_eval.py": Shape(
        Expect(flag=[("CRS008", "EXPECT: the metric's state changes each batch"),
                     ("BRK006", "EXPECT: the metric's state changes each batch")],
               exit_code=1,
               why="tracing MulticlassAccuracy.update: torch.unique in torchmetrics' stat_scores.py:320 has a "
                   "data-dependent output shape (GB0036, 4 times, each frame skipped to eager), then Dynamo dies "
                   "inside lightning_utilities' RequirementCache (importlib.metadata raises PackageNotFoundError for "
                   "torch_xla: InternalTorchDynamoError, exit 1). The crash is first; the fix is to keep "
                   "val_acc.update out of the compiled function (update on the returned preds). The break is in a "
                   "loop of torchmetrics' validation, so torch skips evaluate_batch whole (GB7000 after GB0036, "
                   "torch 2.13 with torchmetrics 1.9): the function runs eagerly, BRK006 at the update line"),
        truth={"graph_breaks": 4, "recompiles": 0, "exit_code": 1},
        fixes={("CRS008", "EXPECT: the metric's state changes each batch"): [("val_acc.update",), ("update", "out")],
               ("BRK006", "EXPECT: the metric's state changes each batch"): [("val_acc.update",), ("update", "out")]},
        first=("CRS008", "EXPECT: the metric's state changes each batch"),
    ),
    "amp_gradscaler.py": Shape(Expect(why=CLEAN + " (autocast around the compiled forward, GradScaler eager)"),
                               truth={"graph_breaks": 0, "recompiles": 0, "exit_code": 0}),
    "checkpoint_sequential.py": Shape(
        Expect(flag=[("BRK005", "EXPECT: checkpointed segments")],
               why="checkpoint_sequential is skipped by Dynamo (GB0007, 'file matches MOD_SKIPLIST (torch/utils)'): "
                   "the whole forward runs eagerly (0 graphs). The torch-native fix is a checkpoint per segment: "
                   "torch.utils.checkpoint.checkpoint(segment, x, use_reentrant=False), which Dynamo traces (checked by "
                   "hand: a loop of checkpoint over self.layers[:2], self.layers[2:] gives 1 graph, 0 breaks in "
                   "torch's trace and the same printed loss)"),
        truth={"graph_breaks": 1, "recompiles": 0, "exit_code": 0},
        fixes={("BRK005", "EXPECT: checkpointed segments"): [("checkpoint(", "use_reentrant=False")]},
        first=("BRK005", "EXPECT: checkpointed segments"),
        patch={("BRK005", "EXPECT: checkpointed segments")},
    ),
    "distributions_vae.py": Shape(
        Expect(flag=[("BRK005", "EXPECT: the KL lookup")],
               why="kl_divergence's registry lookup (_dispatch_kl, torch/distributions/kl.py:127) calls builtin min "
                   "on a generator (GB0059): one break inside torch, reached from the user's kl line. Fix: the "
                   "closed-form Normal-Normal KL with torch ops, or keep kl_divergence out of the compiled region"),
        truth={"graph_breaks": 1, "recompiles": 0, "exit_code": 0},
        fixes={("BRK005", "EXPECT: the KL lookup"): [("kl_divergence", "disable"), ("kl_divergence", "out of"),
                                                      ("_kl_normal_normal",), ("closed form",), ("closed-form",)]},
        first=("BRK005", "EXPECT: the KL lookup"),
    ),
    "rl_epsilon_greedy.py": Shape(
        Expect(flag=[("BRK005", "EXPECT: Python's RNG in the compiled function")],
               allow=[("RCP002", "EXPECT: Python's RNG in the compiled function"),
                      ("RCP006", "EXPECT: Python's RNG in the compiled function")],
               why="random.random() is a C builtin Dynamo skips (GB0007, 'cannot determine source file ... C "
                   "extension or builtin'); the resume function then guards on the drawn float (recompile reason "
                   "'___stack0 == 0.84...'), a consequence of the same line. Fix: draw with torch (torch.rand) inside "
                   "the compiled function, or draw the coin outside and pass it in"),
        truth={"graph_breaks": 1, "recompiles": 1, "exit_code": 0},
        fixes={("BRK005", "EXPECT: Python's RNG in the compiled function"): [("torch.rand",),
                                                                            ("random.random", "out")]},
        first=("BRK005", "EXPECT: Python's RNG in the compiled function"),
    ),
    "ema_helper.py": Shape(
        Expect(flag=[("RCP002", "EXPECT: the decay changes every step")],
               allow=[("RCP002", "e.mul_(decay).add_(p, alpha=1 - decay)")],
               why="the warm-up decay is a new Python float every step: torch recompiles on 'decay == 0.1' (one "
                   "recompile, then automatic dynamic). Fix: pass the decay as a tensor (checked by hand: "
                   "ema_update(torch.tensor(decay)) gives 0 recompiles in torch's trace and the same printed sum)"),
        truth={"graph_breaks": 0, "recompiles": 1, "exit_code": 0},
        fixes={("RCP002", "EXPECT: the decay changes every step"): [("tensor",)]},
        first=("RCP002", "EXPECT: the decay changes every step"),
        patch={("RCP002", "EXPECT: the decay changes every step")},
    ),
    "vit_droppath.py": Shape(Expect(why=CLEAN + " (timm-style block with LayerScale and DropPath, trained)"),
                             truth={"graph_breaks": 0, "recompiles": 0, "exit_code": 0}),
    "einops_attention.py": Shape(
        Expect(flag=[("RCP001", "EXPECT: the sequence length changes")],
               why="the sequence length goes 8 -> 12 -> 16: torch recompiles once (\"tensor 'x' size mismatch at "
                   "index 1. expected 8, actual 12\"), then the length is dynamic. einops' rearrange traces cleanly. "
                   "Fix: mark the length dynamic up front (mark_dynamic on dim 1, or dynamic=True)"),
        truth={"graph_breaks": 0, "recompiles": 1, "exit_code": 0},
        fixes={("RCP001", "EXPECT: the sequence length changes"): [("mark_dynamic",), ("dynamic=True",)]},
        first=("RCP001", "EXPECT: the sequence length changes"),
    ),
    "tensor_random_crop.py": Shape(
        Expect(flag=[("BRK002", "EXPECT: the crop offset read as a Python int"),
                     ("BRK002", "j = torch.randint(0, w - size + 1, size=(1,)).item()"),
                     ("BRK001", "if torch.rand(1) < p:")],
               allow=[("RCP002", "j = torch.randint(0, w - size + 1, size=(1,)).item()"),
                      ("RCP002", "return img[..., i:i + size, j:j + size]"),
                      ("RCP006", "j = torch.randint(0, w - size + 1, size=(1,)).item()"),
                      ("RCP006", "return img[..., i:i + size, j:j + size]")],
               why="two Tensor.item() breaks (GB0124, lines 12 and 13, twice each) and a data-dependent branch on "
                   "torch.rand(1) < p (GB0170, twice); the resume functions guard on the drawn ints ('___stack0 == "
                   "6', 'i == 6'): consequences of the .item() lines. Fix: draw the augmentation's parameters "
                   "outside the compiled region (torchvision does it eagerly) or disable compile for the draw; the "
                   "flip as torch.where"),
        truth={"graph_breaks": 6, "recompiles": 2, "exit_code": 0},
        fixes={("BRK002", "EXPECT: the crop offset read as a Python int"): [("disable",), ("out of",),
                                                                           ("capture_scalar_outputs",)],
               ("BRK002", "j = torch.randint(0, w - size + 1, size=(1,)).item()"): [("disable",), ("out of",),
                                                                                   ("capture_scalar_outputs",)],
               ("BRK001", "if torch.rand(1) < p:"): [("torch.where",), ("torch.cond",)]},
        first=("BRK002", "EXPECT: the crop offset read as a Python int"),
    ),
    "mel_spectrogram.py": Shape(Expect(why=CLEAN + " (torch.stft with a complex result traces)"),
                                truth={"graph_breaks": 0, "recompiles": 0, "exit_code": 0}),
    "autograd_function.py": Shape(Expect(why=CLEAN + " (the autograd.Function is traced whole)"),
                                  truth={"graph_breaks": 0, "recompiles": 0, "exit_code": 0}),
    "func_per_sample_grads.py": Shape(Expect(why=CLEAN + " (vmap(grad(...)) traced)"),
                                      truth={"graph_breaks": 0, "recompiles": 0, "exit_code": 0}),
    "custom_op_backward.py": Shape(
        Expect(flag=[("BRK006", "EXPECT: the backward reads offsets")],
               why="the backward registered for the custom op reads its offsets into Python (`ctx.offs.tolist()`): "
                   "AOTAutograd traces it with fake tensors and fails ('Backend compiler `aot_eager` failed with "
                   "aten._local_scalar_dense.default', GB0219, 2 break events), so torch runs the model's forward "
                   "eagerly (its frame failed). Checked by hand: torch._dynamo.config.capture_scalar_outputs = True "
                   "gives 0 breaks in torch's trace and the same printed loss and gradient; passing the offsets as a "
                   "Python list argument of the op is the other remedy"),
        truth={"graph_breaks": 2, "recompiles": 0, "exit_code": 0},
        fixes={("BRK006", "EXPECT: the backward reads offsets"): [("capture_scalar_outputs",), ("list", "offs")]},
        first=("BRK006", "EXPECT: the backward reads offsets"),
        patch={("BRK006", "EXPECT: the backward reads offsets")},
    ),
    "train_eval_no_grad.py": Shape(
        Expect(flag=[("RCP003", "EXPECT: evaluation under no_grad")],
               why="validation under no_grad recompiles once ('GLOBAL_STATE changed: grad_mode'): expected, each mode "
                   "keeps its graph; information, nothing to fix"),
        truth={"graph_breaks": 0, "recompiles": 1, "exit_code": 0},
        fixes={("RCP003", "EXPECT: evaluation under no_grad"): [("expected",), ("nothing to fix",)]},
        info={("RCP003", "EXPECT: evaluation under no_grad")},
        first=("RCP003", "EXPECT: evaluation under no_grad"),
    ),
}
