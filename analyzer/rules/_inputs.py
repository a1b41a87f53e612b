"""Which families of rules can find anything in an analysis: the input every rule of a family reads."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tdiag.analyzer.rules._context import RuleContext

# What every rule of a family reads. Where the analysis lacks it none of them can find anything, and their modules
# are not even imported (a short run's summary needs ~20 of the ~34; issue 26). A family whose rules may find
# something without such an input stays out of this table (DST: DST002 is about nothing having compiled).
# tests/contract/test_rule_inputs.py runs every rule of these families on real records that lack the input.
FAMILY_INPUTS: dict[str, Callable[[RuleContext], bool]] = {
    "CRS": lambda ctx: bool(ctx.analysis.crashes),  # every CRS rule claims the exception that stopped the program
    "CGR": lambda ctx: any(g.cudagraph for g in ctx.analysis.graphs),
    "LOW": lambda ctx: any(g.kernels for g in ctx.analysis.graphs),
    "DIV": lambda ctx: len(ctx.analysis.run.ranks) > 1,
    "RUN": lambda ctx: ctx.measured_window is not None,
    "WRN": lambda ctx: bool(ctx.torch_warnings),  # torch's warnings of the run (analyzer/torch_warnings.py)
    # a cache outcome or a switch that turned a cache off (analyzer/compile_cache.py)
    "CCH": lambda ctx: ctx.analysis.summary.compile_cache is not None and (
        ctx.analysis.summary.compile_cache.recorded or bool(ctx.analysis.summary.compile_cache.disabled)),
}
