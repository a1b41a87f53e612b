"""A patched run whose printed numbers changed only because its random numbers did.

Inductor draws random numbers (dropout masks, ``torch.rand``) with its own generator, not eager's: a patch that moves
a dropout into a compiled graph (a graph break removed) changes the masks, so a training run prints other losses with
the program itself unchanged. The output judgement (output_noise.py) rightly calls that a change: the program's
own runs agree to the last digit. Before a patch is refused for it, the patched copy runs once more with Inductor's
random ops falling back to eager's (tracer/random_parity.py): when that run prints the program's own output, the
patch changed only the random stream, and the refusal is taken back, said so in the verdict.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tdiag.analyzer.model import Analysis
from tdiag.analyzer.output_noise import OutputBaseline
from tdiag.fixing.compare import Comparison
from tdiag.fixing.verify import RunResult
from tdiag.tracer.random_parity import ENV

OUTPUT_CHANGED = "the program's output (stdout) changed"
# what draws random numbers in a Dynamo graph's code
_RANDOM_OPS = re.compile(r"\b(?:dropout|native_dropout|alpha_dropout|feature_alpha_dropout|bernoulli|rand|randn|"
                         r"randint|rand_like|randn_like|randint_like|randperm|normal|uniform|multinomial|"
                         r"exponential|geometric|poisson)\b")


def draws_random(analysis: Analysis) -> bool:
    """A compiled graph of this run draws random numbers."""
    for graph in analysis.graphs:
        code = analysis.code.get(graph.graph_code_ref) if graph.graph_code_ref else None
        if code and _RANDOM_OPS.search(code):
            return True
    return False


def only_numbers_changed(c: Comparison) -> bool:
    """The one problem is the output, and only printed numbers differ (the same lines, the same text around them)."""
    return (len(c.problems) == 1 and c.problems[0].startswith(OUTPUT_CHANGED) and bool(c.output_number_differences)
            and not any("text changed" in d or "lines printed" in d for d in c.output_number_differences))


def recheck(c: Comparison, patched: list[tuple[Analysis, RunResult]], output: OutputBaseline | None,
            rerun: Callable[[dict[str, str]], list[tuple[Analysis, RunResult]]], tolerance: float) -> str | None:
    """Take back ``c``'s output refusal when the patched copy, re-run with eager's random ops, prints the program's
    own output (``rerun(env)`` runs the patched copy once more); the words that say so (``take_back`` applies them
    again to a later comparison of the same runs), else None."""
    if output is None or not only_numbers_changed(c) or not draws_random(patched[0][0]):
        return None
    again = rerun({ENV: "1"})
    verdict, how = output.judge(again[0][1].stdout, tolerance)
    if not verdict.same:
        c.output_judged += ("; re-run with eager's random ops (torch._inductor.config.fallback_random = True), it "
                            f"still differs: {(verdict.differences or ['the output'])[0]}")
        return None
    words = (f"the same output once Inductor draws its random numbers as eager does (one more run with "
             f"torch._inductor.config.fallback_random = True; {how}): the patch changed only the random stream "
             f"(dropout masks), first seen as {c.output_number_differences[0]}")
    take_back(c, words)
    return words


def take_back(c: Comparison, words: str | None) -> None:
    """``c`` without its output problem, judged in ``words`` (a no-op without them)."""
    if words and only_numbers_changed(c):
        c.problems = []
        c.output_judged = words
