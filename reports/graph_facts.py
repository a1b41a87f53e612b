"""Label/value lines about one compiled graph that every graph view shows: CUDA graphs and DDPOptimizer buckets.

Plain text from the Analysis model, shared by the HTML graph section and the TUI graph screen.
"""

from __future__ import annotations

from tdiag.analyzer.distributed import format_bytes
from tdiag.analyzer.model import CompiledGraph


def graph_facts(graph: CompiledGraph) -> list[tuple[str, str]]:
    facts = []
    from tdiag.reports.cache_text import graph_cache_text

    cache = graph_cache_text(graph)  # the FX graph and AOTAutograd cache outcomes, with seconds cost or saved
    if cache:
        facts.append(("Compile cache", cache))
    info = graph.cudagraph
    if info is not None:
        recorded = len(info.recordings)
        text = {"recorded": "ran under CUDA graphs", "skipped": "skipped: ran without CUDA graphs",
                "partial": "partly: recorded, and skipped"}.get(info.status, info.status)
        if recorded:
            sizes = sorted({" ".join(r.inputs[:2]) for r in info.recordings if r.inputs})
            text += f"; {recorded} recording{'s' if recorded != 1 else ''}" + (f" (inputs {', '.join(sizes)})" if sizes else "")
        for skip in info.skips:
            where = f" at {skip.site.path}:{skip.site.line}" if skip.site else ""
            text += f"; {skip.reason}{where} (decided at {skip.at} time)"
        facts.append(("CUDA graphs", text))
    if graph.ddp_buckets:
        buckets = "; ".join(f"{b.name}: {', '.join(b.params) or 'no parameters'} ({format_bytes(b.bytes)})"
                            for b in graph.ddp_buckets)
        facts.append(("DDP buckets", f"{len(graph.ddp_buckets)} subgraphs (expected splits, not breaks): {buckets}"))
    return facts
