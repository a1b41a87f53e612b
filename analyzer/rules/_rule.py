"""What a rule is: its identity and words (``Rule``), and what its family decides by default (title, gutter mark,
cost model). A rule module declares ``RULE = Rule(...)``; the package docstring (rules/__init__.py) says how."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tdiag.lean_dataclass import lean_dataclass

if TYPE_CHECKING:
    from tdiag.analyzer.model import Finding

FAMILIES = {
    "CRS": "program stopped",  # ranked before every other family in every output
    "BRK": "graph breaks",
    "RCP": "recompilations and guards",
    "DYN": "dynamic shapes",
    "LOW": "lowering and fusion",
    "CMP": "compile cost",
    "DIV": "divergence across ranks",
    "CGR": "CUDA graphs",
    "DST": "distributed training",
    "RUN": "measured runtime",
    "CCH": "compile caches",
    "WRN": "torch's warnings",
}
# How a family's line is marked in the TUI's gutter (default: "finding").
FAMILY_MARKS = {"BRK": "break", "RCP": "recompile", "DYN": "recompile", "DIV": "recompile"}
# How a family's findings are costed (analyzer/cost.py's models; default: no cost). A rule overrides it with cost=.
FAMILY_COSTS = {"BRK": "break", "RCP": "compile", "DYN": "compile", "CMP": "compile", "LOW": "kernels",
                "RUN": "evidence", "CCH": "compile"}
# Families whose findings exist only because a measured share crossed a threshold (RUN001: time outside compiled
# code, RUN002: GPU idle). Between two runs their appearing or going is a timing delta: `tdiag diff` lists them as new
# or fixed but never counts them as regressions, as it never counts a slower window (analyzer/diff.py).
TIMING_FAMILIES = frozenset({"RUN"})
# The families whose findings are graph breaks (a library cause's fix is applied from the user's line,
# analyzer/finish.py) and recompilations (a compile cost's caveat, analyzer/cost.py): named here, read there, so that
# finding codes and families are declared only in rules/.
BREAK_FAMILIES = frozenset({"BRK"})
RECOMPILE_FAMILIES = frozenset({"RCP"})
# The families whose findings speak of the speed of compiled code that ran (its kernels, its caches): on a program
# a torch error stopped, no compiled step ever completed, so they are moot beside the crash (blind batch 7: seven
# "replace aten.embedding" fallback notes and a cold-cache note on a program whose first backward crashed). A rule
# of another family says it of itself (Rule.moot_when_stopped: compile-time shares, not a failed compile).
MOOT_WHEN_STOPPED = frozenset({"LOW", "CCH"})
# The families whose findings say the compiled program computes something else than eager: their errors rank right
# after what stopped the program, before any cost (blind batch 8: "1.9x slower" outranked "the results differ")
WRONG_RESULT_FAMILIES = frozenset({"EGR"})
COST_MODELS = ("break", "compile", "kernels", "evidence", "eager_other", "samples")
SEVERITIES = ("error", "warning", "info")
CLAIMS = ("breaks", "recompiles", "crashes")


@lean_dataclass(frozen=True)
class Rule:
    """A rule's identity and words: code, name, severity, summary, docs; claims, priority, cost model, rank."""

    code: str
    name: str
    severity: str  # the level every finding of the rule has (SARIF's default level, ``tdiag rule``)
    summary: str
    doc: str = ""
    suggester: str | None = None  # a patch kind of suggestions/kinds.py, imported on first use
    claims: str | None = None  # "breaks" / "recompiles" / "crashes": competes for those events (matches/message/fix)
    priority: int = 50  # among rules claiming the same events, the lowest number that matches owns the event
    message: str = ""  # claiming rules: the finding's message, a template over the event's words (see below)
    fix: str = ""  # claiming rules: the one-line fix, a template likewise
    cost: str | None = None  # how its findings are costed, one of COST_MODELS (None: the family's, FAMILY_COSTS)
    # its findings (at severity error) say compilation stopped for a whole function (analyzer/ranking.py ranks them
    # before every finding about a part of a compiled one): no evidence type says that across families
    stops_compilation: bool = False
    # its findings are about the whole measured step, not one cause at one line (RUN001's eager share): they rank after
    # the run's graph breaks and recompilations unless measured larger (analyzer/ranking.py, ``place_whole_step``)
    whole_step: bool = False
    # its findings are moot on a program a torch error stopped (as MOOT_WHEN_STOPPED's families': analyzer/ranking.py)
    moot_when_stopped: bool = False

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"{self.code}: severity {self.severity!r} is not one of {SEVERITIES}")
        if self.claims is not None and self.claims not in CLAIMS:
            raise ValueError(f"{self.code}: claims {self.claims!r} is not one of {CLAIMS}")
        if self.cost is not None and self.cost not in COST_MODELS:
            raise ValueError(f"{self.code}: cost {self.cost!r} is not one of {COST_MODELS}")

    @property
    def family(self) -> str:
        return self.code.rstrip("0123456789")

    @property
    def mark(self) -> str:
        return FAMILY_MARKS.get(self.family, "finding")

    @property
    def cost_model(self) -> str | None:
        return self.cost or FAMILY_COSTS.get(self.family)

    def finding(self, **fields: Any) -> Finding:
        """The one constructor of a rule's Finding: code, name and severity are the rule's."""
        from tdiag.analyzer.model import Finding

        return Finding(code=self.code, name=self.name, severity=self.severity, **fields)
