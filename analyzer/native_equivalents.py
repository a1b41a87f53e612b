"""torch-native equivalents of functions Dynamo skips: what to call instead so the work stays in the graph.

Keyed by the skipped function's dotted name as ``SkippedCall.name`` gives it. Only equivalents that do the same
thing belong here; the note says what changes (the random stream: torch's generator, seeded by torch.manual_seed).
"""

from __future__ import annotations

from tdiag.lean_dataclass import lean_dataclass


@lean_dataclass
class Equivalent:
    instead: str  # what to write instead, as code
    note: str  # what differs
    # "module:function" (finding, ctx) -> unified diff writing the equivalent into the user's file (NoPatch when the
    # source does not allow it); None: the equivalent is advice only
    patch: str | None = None


_TORCH_RNG = "draws from torch's generator (seed it with torch.manual_seed), so the numbers differ from Python's"
EQUIVALENTS = {
    "random.random": Equivalent("torch.rand(())", _TORCH_RNG + "; a branch on it then needs torch.where"),
    "random.uniform": Equivalent("torch.empty(()).uniform_(a, b)", _TORCH_RNG),
    "random.randint": Equivalent("torch.randint(a, b + 1, ())", _TORCH_RNG),
    "random.gauss": Equivalent("torch.randn(()) * sigma + mu", _TORCH_RNG),
    "random.normalvariate": Equivalent("torch.randn(()) * sigma + mu", _TORCH_RNG),
    "random.choice": Equivalent("seq[torch.randint(len(seq), ()).item()]", _TORCH_RNG),
    "random.shuffle": Equivalent("[seq[i] for i in torch.randperm(len(seq)).tolist()]", _TORCH_RNG),
    "numpy.random.rand": Equivalent("torch.rand(...)", _TORCH_RNG),
    "numpy.random.randn": Equivalent("torch.randn(...)", _TORCH_RNG),
    "torch.utils.checkpoint.checkpoint_sequential": Equivalent(
        "for segment in segments: x = torch.utils.checkpoint.checkpoint(segment, x, use_reentrant=False)",
        "checkpoint each segment (a torch.nn.Sequential of consecutive layers) yourself: Dynamo traces "
        "torch.utils.checkpoint.checkpoint(..., use_reentrant=False) into the graph, checkpoint_sequential it skips; "
        "the recomputation is the same",
        patch="tdiag.analyzer.suggestions.helpers.checkpoint_segments:build"),
}


def equivalent(name: str) -> Equivalent | None:
    return EQUIVALENTS.get(name)
