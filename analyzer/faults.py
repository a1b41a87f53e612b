"""tdiag's own faults during an analysis: a rule or a suggester that raised.

Each costs only what it touches (that rule's findings, that suggester's patches) and is kept in
``RunInfo.analysis_problems`` with its traceback saved as an internal error's is, so that every output says
"analysis incomplete" (capture_health words it) instead of an all-clear.
"""

from __future__ import annotations

from tdiag.analyzer.model import Analysis, AnalysisProblem

from tdiag.errors import save_traceback


def record_fault(analysis: Analysis, part: str, name: str, exc: BaseException) -> None:
    """Keep that ``part`` ("rule", "suggester") ``name`` raised ``exc``: once per part, counted, first traceback saved."""
    problems = analysis.run.analysis_problems
    known = next((p for p in problems if (p.part, p.name) == (part, name)), None)
    if known is not None:
        known.count += 1
        return
    _text, path, _where = save_traceback(f"tdiag analysis: {part} {name} failed", exc)
    problems.append(AnalysisProblem(part=part, name=name, exception=type(exc).__name__, message=_one_line(str(exc)),
                                    traceback_file=path))


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
