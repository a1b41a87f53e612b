"""Is the patched program's output the same? Exactly, or within a stated tolerance on the numbers it prints, with
the program's own measurements set apart from its results.

A patch may legitimately move the last printed digit of a float (a reassociated sum, a fused kernel). Such output counts as the same only when every difference is a number that differs by at most
one unit of its last printed digit and by at most ``tolerance`` relatively; every other character must match. The
differing numbers are listed, so the user sees what the tolerance allowed.

A program that prints its own timings (transformers' Trainer: ``'train_runtime': '25.92',
'train_samples_per_second': '4.937'``; a progress bar's ``4.12it/s``) prints different numbers on every run, and a
patch that makes it faster changes them on purpose. Those numbers are measurements, not results: a number named like a
timing (runtime, elapsed, time, duration, latency, throughput, ``*_per_second``) or carrying a unit of time or rate
(``0.52s``, ``12ms``, ``3.1it/s``, ``800 samples/s``) is not compared, and a progress bar's lines are left out
whole; everything else on those lines (the loss beside the runtime) is compared as usual. The lines treated as
timings are listed with the result, so the user sees what was not compared.
"""

from __future__ import annotations

import re
from dataclasses import field

from tdiag.lean_dataclass import lean_dataclass

DEFAULT_TOLERANCE = 1e-3
_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")

# The words of a value's name that make it a measurement of time or speed (the name split at _ - . space and case).
TIMING_WORDS = frozenset({
    "runtime", "elapsed", "time", "times", "duration", "latency", "throughput", "seconds", "secs", "sec", "ms",
    "fps", "took", "wall", "walltime", "speed", "timing", "timings",
})
# A unit right after the number: seconds and their fractions, minutes, or anything per second (it/s, samples/s).
_TIME_UNIT = re.compile(r"\s?(?:ms|us|µs|ns|s|sec|secs|seconds|min|mins|minutes|[A-Za-z]+/s|s/[A-Za-z]+)(?![A-Za-z])")
# The name right before a number: `'train_runtime': '`, `elapsed=`, `time `, `"step_time_ms": `
_NAME_BEFORE = re.compile(r"([A-Za-z][A-Za-z0-9_./-]*)['\"]?\s*[:=]?\s*['\"(]?\s*$")
# A progress bar (tqdm, rich, Lightning): `50%|█████ | 5/10 [00:01<00:01, 4.12it/s]`
_PROGRESS = re.compile(r"\d+%\s*\||\|\s*\d+/\d+\s*\[|\d+/\d+\s*\[\d+:\d+|\[\d+:\d+<|[\d.]+\s*(?:it/s|s/it)\]")


@lean_dataclass
class OutputMatch:
    """Whether two outputs are the same, exactly or within the fixed tolerance, and which numbers differed."""

    identical: bool
    within_tolerance: bool  # not identical, but only numbers differ, each within the tolerance or a timing
    tolerance: float
    number_differences: list[str] = field(default_factory=list)  # "1.1065 -> 1.1066 (line 3)", timings first
    timing_lines: list[str] = field(default_factory=list)  # "line 5: train_runtime 25.92 -> 11.80" (not compared)

    @property
    def same(self) -> bool:
        return self.identical or self.within_tolerance


def match(before: str, after: str, tolerance: float = DEFAULT_TOLERANCE) -> OutputMatch:
    if before == after:
        return OutputMatch(True, False, tolerance)
    result = OutputMatch(False, False, tolerance)
    if tolerance <= 0:
        return result  # 0: exact, timings included
    b_lines, b_bars = _without_progress(before)
    a_lines, a_bars = _without_progress(after)
    if len(b_lines) != len(a_lines):
        return result
    compared = []
    for (n, b), (_, a) in zip(b_lines, a_lines):
        if b == a:
            continue
        if _NUMBER.sub("#", b) != _NUMBER.sub("#", a):
            return result  # text around the numbers differs
        timings = []
        for x, y, name in zip(_NUMBER.findall(b), _NUMBER.findall(a), _names(b)):
            if x == y:
                continue
            if name is not None:
                timings.append(f"{name} {x} -> {y}")
                continue
            if not _close(x, y, tolerance):
                return result
            compared.append(f"{x} -> {y} (line {n})")
        if timings:
            result.timing_lines.append(f"line {n}: " + ", ".join(timings))
    bars = max(b_bars, a_bars)
    if bars:
        result.timing_lines.append(f"{bars} progress-bar line(s) left out")
    result.number_differences = [f"treated as timings, not compared: {t}" for t in result.timing_lines] + compared
    result.within_tolerance = bool(result.number_differences)
    return result


def _without_progress(text: str) -> tuple[list[tuple[int, str]], int]:
    """(line number, line) of the output, a progress bar's lines (and their carriage-return redraws) left out, and
    how many were."""
    kept, dropped = [], 0
    for n, line in enumerate(text.split("\n"), 1):
        parts = [p for p in line.split("\r") if p]
        rest = [p for p in parts if not _PROGRESS.search(p)]
        dropped += len(parts) - len(rest)
        if rest or not parts:
            kept.append((n, rest[-1] if rest else line))
    if kept and kept[-1][1] == "":
        kept.pop()  # the newline ending the output
    return kept, dropped


def _names(line: str) -> list[str | None]:
    """For each number on the line, what makes it a timing (its name or its unit), or None for a result."""
    names: list[str | None] = []
    for m in _NUMBER.finditer(line):
        before = _NAME_BEFORE.search(line[max(0, m.start() - 60):m.start()])
        unit = _TIME_UNIT.match(line, m.end())
        if before and is_timing_name(before.group(1)):
            names.append(before.group(1))
        elif unit:
            names.append(f"({unit.group(0).strip()})")
        else:
            names.append(None)
    return names


def is_timing_name(name: str) -> bool:
    """``train_runtime``, ``train_samples_per_second``, ``elapsed``, ``stepTime``, ``it/s``: a measurement."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", name)
    words = {w for w in re.split(r"[^A-Za-z]+", spaced.lower()) if w}
    if words & TIMING_WORDS:
        return True
    per_second = "per" in words and words & {"second", "sec", "s"}
    return bool(per_second) or bool(re.search(r"[A-Za-z]/s$", name))


def _close(x: str, y: str, tolerance: float) -> bool:
    if not any(c in x + y for c in ".eE"):
        return False  # integers (counts, indices, shapes) must match exactly
    a, b = float(x), float(y)
    unit = max(_last_digit_unit(x), _last_digit_unit(y))
    return abs(a - b) <= unit * 1.000001 and abs(a - b) <= tolerance * max(abs(a), abs(b))


def _last_digit_unit(text: str) -> float:
    """One unit of the last printed digit: 1e-4 for ``1.1065``, 1e-5 for ``2.5e-3`` printed as ``2.5000e-03``."""
    mantissa, _, exponent = text.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (-decimals + (int(exponent) if exponent else 0))
