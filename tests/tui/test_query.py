"""The Findings filter, answered from precomputed indexes, against a plain scan of the Analysis it was built from."""

from __future__ import annotations

import gc
import itertools

from fixtures import analysis_factory
from tdiag.analyzer.model import SEVERITY_RANK
from tdiag.tui import make_app
from tdiag.tui.idle_gc import NO_AUTOMATIC_FULL
from tdiag.tui.index import AnalysisIndex
from tdiag.tui.query import SORT_KEYS, FindingQuery

SCAN_SORT_KEY = {
    "code": lambda f: (f.code, f.path, f.line),
    "severity": lambda f: (SEVERITY_RANK.get(f.severity, 99), f.code),
    "site": lambda f: (f.path, f.line, f.column or 0),
    "occurrences": lambda f: (-f.occurrences, f.code),
    "cost": lambda f: (_cost_tier(f), -(f.cost.total_s if _cost_tier(f) < 2 else 0.0), SEVERITY_RANK.get(f.severity, 9),
                       -f.impact, f.path, f.line, f.code),
}


def _cost_tier(f) -> int:
    """Measured seconds first, compile seconds next, no cost last (issue 11's ranking)."""
    if f.cost is None or f.cost.total_s <= 0:
        return 2
    return {"measured": 0, "compile": 1}.get(f.cost.basis, 2)


def scan(analysis, query: FindingQuery) -> list[int]:
    needle = query.text.lower().strip()
    kept = [
        i for i, f in enumerate(analysis.findings)
        if (query.family is None or f.family == query.family)
        and (query.severity is None or f.severity == query.severity)
        and (query.rank is None or f.ranks.get(query.rank, 0) > 0)
        and (not needle or needle in " ".join((f.code, f.name, f.severity, f.message, f.path, str(f.line),
                                                f.function or "")).lower())
    ]
    if query.sort != "impact":
        kept.sort(key=lambda i: SCAN_SORT_KEY[query.sort](analysis.findings[i]))
    return kept[::-1] if query.descending else kept


def test_indexed_filter_matches_a_plain_scan_for_every_combination():
    analysis = analysis_factory.multi_rank_analysis()
    index = AnalysisIndex(analysis)
    families = [None, *index.families, "NOPE"]
    severities = [None, *index.severities]
    ranks = [None, *index.ranks]
    texts = ["", "recompile", "TRAIN.PY", "zzz"]
    for family, severity, rank, text, sort, descending in itertools.product(
            families, severities, ranks, texts, SORT_KEYS, (False, True)):
        query = FindingQuery(text=text, family=family, severity=severity, rank=rank, sort=sort, descending=descending)
        assert query.apply(index) == scan(analysis, query), query


async def test_full_collections_wait_for_idle_while_the_app_runs(sample):
    before = gc.get_threshold()
    app = make_app(sample)
    async with app.run_test() as pilot:
        assert gc.get_threshold()[2] == NO_AUTOMATIC_FULL
        await pilot.press("2")
    assert gc.get_threshold() == before
