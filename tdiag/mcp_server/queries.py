"""What the tools read from records: findings in the analysis JSON's shape with their source lines, rules, diffs,
the HTML report. Plain functions over the one Analysis (``tdiag/commands/_analysis.py`` loads it, as for every
command); results are JSON-ready dicts."""

from __future__ import annotations

import dataclasses
import json
import threading
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tdiag.errors import TdiagError

SOURCE_CONTEXT = 3  # lines each side of a finding's line
TOP_IN_SUMMARY = 5


class Analyses:
    """Analyses by record, rebuilt when the record's files (or its saved verification) change; one build at a time:
    tool calls run in worker threads and an analysis is CPU-bound anyway."""

    def __init__(self, size: int = 8):
        self.size, self.cache, self.lock = size, {}, threading.Lock()

    def get(self, record: Path):
        from tdiag.commands._analysis import load_analysis

        key = (str(record), _stamp(record))
        with self.lock:
            if key not in self.cache:
                if len(self.cache) >= self.size:
                    self.cache.pop(next(iter(self.cache)))
                self.cache[key] = load_analysis(str(record))
            return self.cache[key]


def _stamp(record: Path) -> tuple:
    folder = record if record.is_dir() else record.parent
    files = sorted(folder.glob("events*.jsonl")) + [folder / "fix" / "verification.json"]
    return tuple((f.name, f.stat().st_mtime_ns, f.stat().st_size) for f in files if f.exists())


def jsonable(value: Any) -> Any:
    """Dataclasses, paths and int-keyed dicts as the JSON every other output writes."""
    if dataclasses.is_dataclass(value):
        value = dataclasses.asdict(value)
    return json.loads(json.dumps(value, default=str))


def findings(analysis, record: str, select: list[str] | None, ignore: list[str] | None, limit: int,
             evidence: bool) -> dict[str, Any]:
    """The selected findings in the analysis's order (by measured cost where measured), each in the analysis JSON's
    finding shape plus its source lines; ``select``/``ignore`` as `tdiag lint` takes them."""
    from tdiag.commands._selection import code_selection

    selection = code_selection(select, ignore)
    chosen = [f for f in analysis.findings if selection.includes(f.code)]
    return {
        "record": record,
        "total": len(analysis.findings),
        "selected": len(chosen),
        "findings": [finding(analysis, record, f, evidence) for f in chosen[:limit]],
        **health(analysis),
    }


def finding(analysis, record: str, f, evidence: bool = False) -> dict[str, Any]:
    data = jsonable(f)
    if not evidence:
        data.pop("evidence", None)  # what the rule saw (stacks, guards): large; evidence=true keeps it
    data["source"] = source_lines(analysis, f.path, f.line)
    data["source_uri"] = source_uri(record, f.path, f.line)
    return data


def source_lines(analysis, path: str, line: int, context: int = SOURCE_CONTEXT) -> dict[str, Any] | None:
    """The recorded snapshot's lines around ``line`` (the text the run saw, not today's file)."""
    text = analysis.sources.get(path)
    if text is None:
        return None
    lines = text.splitlines()
    first = max(1, line - context)
    shown = lines[first - 1:line + context]
    return {"path": path, "line": line, "first_line": first,
            "text": "".join(f"{n:>5}{'>' if n == line else ' '} {s}\n" for n, s in enumerate(shown, first))}


def source_uri(record: str, path: str, line: int) -> str:
    return f"tdiag://source/{quote(record)}?path={quote(path, safe='')}&line={line}"


def analysis_uri(record: str) -> str:
    return f"tdiag://analysis/{quote(record)}"


def health(analysis) -> dict[str, Any]:
    """What the capture or the analysis could not see: never read an empty list as an all-clear when this is set."""
    from tdiag.analyzer.capture_health import incomplete_lines

    return {"incomplete": incomplete_lines(analysis.run), "torch_notice": analysis.run.torch_notice}


def summary(analysis, record: str) -> dict[str, Any]:
    """A run's counts, how it ended and its costliest findings: what `tdiag run` prints, as data."""
    s = analysis.summary
    top = []
    for f in analysis.findings[:TOP_IN_SUMMARY]:
        top.append({"code": f.code, "where": f"{f.path}:{f.line}", "message": f.message, "fix": f.fix, "fix_status": f.fix_status,
                    "cost": jsonable(f.cost) if f.cost else None, "has_patch": bool(f.suggestion and
                                                                                    f.suggestion.patch)})
    runtime = s.runtime
    return {
        "record": record,
        "analysis_uri": analysis_uri(record),
        "counts": {"graphs": s.graphs, "graph_breaks": s.graph_breaks, "break_sites": s.break_sites,
                   "recompiles": s.recompiles, "eager_fallbacks": s.eager_fallbacks,
                   "compile_time_s": round(s.compile_time_s, 3), "findings": len(analysis.findings)},
        "findings_by_severity": dict(s.findings_by_severity),
        "crash": None if s.crash is None else {"headline": s.crash.headline, "site": jsonable(s.crash.site)},
        "runtime": None if runtime is None else {"status": runtime.status, "reason": runtime.reason,
                                                 "steps": runtime.steps, "window_s": runtime.window_s},
        "top_findings": top,
        "exit_code": analysis.run.exit_code,
        **health(analysis),
    }


def rule(code: str) -> str:
    from tdiag.commands.rule import rule_text

    return rule_text(code)


def diff(base, new, base_name: str, new_name: str, fail_on: str) -> dict[str, Any]:
    from tdiag.analyzer.diff import diff as compare

    result = compare(base, new)
    return {"base": base_name, "new": new_name, **result.to_dict(fail_on),
            "regressions": result.regressions(fail_on),
            "incomplete": {"base": health(base)["incomplete"], "new": health(new)["incomplete"]}}


def html_report(analysis, record: str, output: Path) -> None:
    from tdiag.reports.registry import ReportOptions, get_reporter, write_report

    if output.suffix.lower() not in (".html", ".htm"):
        raise TdiagError(f"the HTML report's file should end in .html: {output.name}")
    output.parent.mkdir(parents=True, exist_ok=True)
    write_report(get_reporter("html"), analysis, str(output), ReportOptions(record=record))


def analysis_json(analysis) -> str:
    return json.dumps(analysis.to_dict(include_code=False), indent=1, default=str)
