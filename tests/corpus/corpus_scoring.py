"""The precision corpus: real third-party model code under ``tdiag run``, scored against hand-written expectations.

Shared by the test (``test_corpus.py``) and the benchmark (``benchmarks/bench_precision.py``). A finding is the pair
(rule code, user line). Expected findings not reported are misses; reported findings that are neither expected nor
allowed are false positives; a finding anchored outside the user's files (``<site-packages>/...``, ``<string>``) is
a false positive whatever its code, because lint, SARIF and annotations would name a file the user does not own.
"""

from __future__ import annotations

import os
import subprocess
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

CORPUS = Path(__file__).parent
PROGRAMS = CORPUS / "programs"
FAMILIES = ("BRK", "RCP", "DYN", "LOW", "CMP", "CRS")
# Compile-time hotspots depend on the machine's speed, not on the program: never required, never wrong (if anchored
# on a user line).
ALWAYS_ALLOWED = {"CMP002"}


@dataclass(frozen=True)
class Key:
    code: str
    path: str
    line: int

    @property
    def family(self) -> str:
        return self.code.rstrip("0123456789")

    def __str__(self) -> str:
        return f"{self.code} {self.path}:{self.line}"


@dataclass
class Expect:
    """What an expert wants flagged in one program. ``flag``/``allow``: (code, marker) where marker is a substring of
    the program's line (so no line number is written by hand); ``why``: the expert's reading, shown on failure.
    ``exit_code``: the plain program's (and so tdiag's); ``releases``: torch "X.Y" -> the expectation on that release,
    where torch itself behaves differently there (a bug of that release that stops the program)."""

    flag: list[tuple[str, str]] = field(default_factory=list)
    allow: list[tuple[str, str]] = field(default_factory=list)
    why: str = ""
    inductor: bool = False
    exit_code: int = 0
    releases: dict[str, Expect] = field(default_factory=dict)

    def on(self, torch_version: str) -> Expect:
        """The expectation for the torch that runs (``2.14.1+cu130`` -> the entry for 2.14, else this one)."""
        minor = ".".join(torch_version.split("+")[0].split(".")[:2])
        return self.releases.get(minor, self)


@dataclass
class Score:
    program: str
    expected: set[Key]
    reported: set[Key]
    allowed: set[Key]
    messages: dict[Key, str]

    @property
    def hits(self) -> set[Key]:
        return self.expected & self.reported

    @property
    def misses(self) -> set[Key]:
        return self.expected - self.reported

    @property
    def false_positives(self) -> set[Key]:
        return {k for k in self.reported - self.expected if k not in self.allowed or not user_path(k.path)}

    def diff(self, why: str) -> str:
        lines = [f"{self.program}: expert reading: {why}"]
        lines += [f"  MISSING   {k}" for k in sorted(self.misses, key=str)]
        lines += [f"  UNEXPECTED {k}  ({self.messages.get(k, '')})" for k in sorted(self.false_positives, key=str)]
        lines += [f"  ok        {k}" for k in sorted(self.hits, key=str)]
        return "\n".join(lines)


def user_path(path: str) -> bool:
    return not path.startswith("<") and not path.startswith("/")


def line_of(program: str, marker: str) -> int:
    lines = (PROGRAMS / program).read_text().splitlines()
    found = [i for i, text in enumerate(lines, 1) if marker in text]
    assert len(found) == 1, f"{program}: marker {marker!r} matches lines {found}"
    return found[0]


def keys(program: str, pairs: list[tuple[str, str]]) -> set[Key]:
    return {Key(code, program, line_of(program, marker)) for code, marker in pairs}


def env(base: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in (base or os.environ).items() if not k.startswith(("TORCH_LOGS", "TORCH_TRACE", "TORCHDYNAMO"))}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HF_DATASETS_OFFLINE="1", PYTHONUNBUFFERED="1",
               TOKENIZERS_PARALLELISM="false")
    return env


def run(program: str, out: Path, environ: dict[str, str]) -> subprocess.CompletedProcess:
    """``tdiag run`` in the programs folder, as a user would run it from their project."""
    from kept_tdiag import tdiag

    return tdiag(["run", "--no-tui", "-q", "-o", str(out), program], PROGRAMS, environ, timeout=1500)


def score(program: str, run_dir: Path, expect: Expect):
    from tdiag.analyzer import build

    analysis = build(run_dir)
    reported = {Key(f.code, f.path, f.line) for f in analysis.findings if f.family in FAMILIES}
    messages = {Key(f.code, f.path, f.line): f.message for f in analysis.findings}
    allowed = keys(program, expect.allow) | {k for k in reported if k.code in ALWAYS_ALLOWED}
    return Score(program, keys(program, expect.flag), reported, allowed, messages), analysis


def per_family(scores: list[Score]) -> dict[str, dict[str, float | int]]:
    """Precision and recall per rule family over the corpus (None where the family had nothing to count)."""
    tally: dict[str, dict[str, int]] = defaultdict(lambda: {"tp": 0, "fp": 0, "fn": 0})
    for s in scores:
        for k in s.hits:
            tally[k.family]["tp"] += 1
        for k in s.false_positives:
            tally[k.family]["fp"] += 1
        for k in s.misses:
            tally[k.family]["fn"] += 1
    out = {}
    for family in sorted(set(FAMILIES) | set(tally)):
        t = tally[family]
        flagged, expected = t["tp"] + t["fp"], t["tp"] + t["fn"]
        out[family] = {**t, "precision": t["tp"] / flagged if flagged else None,
                       "recall": t["tp"] / expected if expected else None}
    return out
