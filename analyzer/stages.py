"""The analysis pipeline in one table: facts first, then judgement (issue 43).

Each fact stage reads the record once and produces one set of facts: the compiled graphs (with their breaks,
recompilations and frames), the crashes, the kernels, CUDA graphs, distributed training, the measured runtime window,
the comparison with eager. Judges read facts only: the rules, the summary's counts, the cost of each finding, the
finished text and order.

A stage is one entry of ``STAGES``: its name, the function that runs it (``module:function``, imported when the
stage runs, as rules are), the stages whose facts it needs, and what it produces in words. The function takes the
run's ``Facts`` and returns its own fact set (None when it fills its part of the Analysis instead); a later stage
reads it with ``facts.get(name)``. Adding a stage is one function in its own module plus one entry here
(docs/architecture.md shows one).

One fault policy (``run``): a stage that raises leaves its facts missing, is kept in ``RunInfo.analysis_problems``
with its traceback saved (analyzer/faults.py), and every stage that needs its facts is skipped, named on the same
line. Every output says "analysis incomplete: STAGE failed: ..." (analyzer/capture_health.py), and lint and diff
exit 2. What does not depend on the failed stage stands: a stage may also *use* a stage's facts where present
(``uses``) and run without them, as the cost of compile-time findings does without a measured window.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tdiag.lean_dataclass import lean_dataclass

if TYPE_CHECKING:
    from tdiag.analyzer.events import EventLog
    from tdiag.analyzer.model import Analysis
    from tdiag.analyzer.paths import PathMapper


@lean_dataclass(frozen=True)
class Stage:
    """One step of the pipeline: what runs it, the facts it needs, and what it produces."""

    name: str
    call: str  # "module:function", called with the run's Facts; returns the stage's fact set or None
    produces: str  # in words, for the line an output prints when the stage failed and for docs/architecture.md
    needs: tuple[str, ...] = ()  # stages whose facts it reads: skipped when one of them is missing
    uses: tuple[str, ...] = ()  # stages whose facts it reads when present, and runs without
    judge: bool = False  # reads facts only and produces findings, costs or their text


STAGES: tuple[Stage, ...] = (
    # -- facts ------------------------------------------------------------------------------------------------------
    Stage("graphs", "tdiag.analyzer.build:graph_facts", "the compiled graphs, graph breaks, recompilations and frames"),
    Stage("hidden_causes", "tdiag.analyzer.guard_diff:stage", "the recompile causes torch did not log",
          needs=("graphs",)),
    Stage("crashes", "tdiag.analyzer.build:crash_facts", "the exceptions that stopped the program", needs=("graphs",)),
    Stage("kernels", "tdiag.analyzer.kernels:stage", "the kernels of each graph", needs=("graphs",)),
    Stage("cudagraphs", "tdiag.analyzer.cudagraphs:stage", "the CUDA graphs of each graph", needs=("graphs",)),
    Stage("distributed", "tdiag.analyzer.distributed:stage", "DDP's bucket splits", needs=("graphs",)),
    Stage("compile_cache", "tdiag.analyzer.compile_cache:stage", "the compile caches' hits, misses and bypasses",
          needs=("graphs",)),
    Stage("torch_warnings", "tdiag.analyzer.torch_warnings:stage", "torch's warnings, each at the user's line",
          uses=("graphs", "kernels")),
    Stage("runtime", "tdiag.analyzer.runtime:read_window", "the measured runtime window"),
    Stage("vs_eager", "tdiag.analyzer.eager_compare:stage", "the comparison with eager", needs=("runtime",)),
    # -- judgement --------------------------------------------------------------------------------------------------
    Stage("rules", "tdiag.analyzer.rules:judge", "the findings", needs=("graphs",),
          uses=("hidden_causes", "crashes", "compile_cache", "torch_warnings", "runtime", "vs_eager"), judge=True),
    Stage("summary", "tdiag.analyzer.build:summary", "the summary's counts", needs=("graphs",), uses=("rules", "vs_eager"),
          judge=True),
    # after the rules, so that they read the window only through their context (RuleContext.measured_window)
    Stage("cost", "tdiag.analyzer.cost:stage", "the measured cost of each finding", needs=("rules",), uses=("runtime",),
          judge=True),
    Stage("finish", "tdiag.analyzer.finish:stage", "the findings' patches and order", needs=("rules",), judge=True),
)


class Facts:
    """What the stages of one analysis share: the record, the Analysis they fill, each stage's fact set, and which
    stages' facts are missing (and why)."""

    def __init__(self, log: EventLog, analysis: Analysis, paths: PathMapper, patches: bool = True):
        self.log, self.analysis, self.paths = log, analysis, paths
        self.patches = patches  # finish: word patches too (False: the summary at the end of `tdiag run`)
        self.builder: Any = None  # build.py's reader of the Dynamo events, its caches shared by its stages
        self.sets: dict[str, Any] = {}
        self.missing: dict[str, str] = {}  # stage -> the stage whose fault it lacks (itself when it failed)

    def get(self, name: str, default: Any = None) -> Any:
        """The fact set of stage ``name``; ``default`` when it produced none or is missing."""
        value = self.sets.get(name)
        return default if value is None else value

    def has(self, name: str) -> bool:
        return name in self.sets


def stage_named(name: str, stages: tuple[Stage, ...] = STAGES) -> Stage:
    return next(s for s in stages if s.name == name)


def resolve(call: str) -> Callable[[Facts], Any]:
    module, _, function = call.partition(":")
    return getattr(importlib.import_module(module), function)


def run(facts: Facts, stages: tuple[Stage, ...] = STAGES) -> None:
    """Run every stage in table order under the one fault policy."""
    from tdiag.analyzer.faults import record_fault

    for stage in stages:
        lacking = [n for n in stage.needs if n in facts.missing]
        if lacking:
            facts.missing[stage.name] = facts.missing[lacking[0]]
            _note_skipped(facts, stage, facts.missing[lacking[0]])
            continue
        try:
            facts.sets[stage.name] = resolve(stage.call)(facts)
        except Exception as exc:
            facts.missing[stage.name] = stage.name
            record_fault(facts.analysis, "stage", stage.name, exc)


def _note_skipped(facts: Facts, stage: Stage, failed: str) -> None:
    """The skipped stage is named on the failed stage's line: one fault, one line, with all it cost."""
    problem = next((p for p in facts.analysis.run.analysis_problems if (p.part, p.name) == ("stage", failed)), None)
    if problem is not None and stage.name not in problem.skipped:
        problem.skipped.append(stage.name)


def check_table(stages: tuple[Stage, ...] = STAGES) -> None:
    """Every stage names stages declared before it (the table is its own order): raises ValueError otherwise."""
    seen: set[str] = set()
    for stage in stages:
        unknown = [n for n in (*stage.needs, *stage.uses) if n not in seen]
        if unknown:
            raise ValueError(f"stage {stage.name} reads {', '.join(unknown)}, not declared before it")
        if stage.name in seen:
            raise ValueError(f"stage {stage.name} is declared twice")
        seen.add(stage.name)
