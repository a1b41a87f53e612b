"""What "better" and "worse" mean between two runs of the same program: one definition for `tdiag diff` and `tdiag fix`.

Counts are exact, so any change in one of ``JUDGED_COUNTS`` is a verdict: one more graph to launch, compile to pay
for, or graph that failed to compile and ran eagerly (an eager fallback) is worse; one fewer is better. Graphs from
none are better: the program ran wholly eagerly before (Dynamo skipped its frame), and now compiles. Step times are
noisy: they are judged only from ``MIN_RUNS_TO_JUDGE`` measured runs a side, and one side is slower (faster) only when
its whole range lies beyond the other's by more than ``TIME_TOLERANCE`` of it, or, where the runs are tight, by at
least ``MIN_TIGHT_GAIN`` and ``TIGHT_GAP_SPREADS`` times their own spread (a GPU's runs). One run a side, which is what `tdiag
diff` holds, is shown but never judged. From ``MIN_RUNS_TO_TRIM`` runs a side, each side's slowest run is left out
before the ranges are compared: a busy machine only ever adds time to a run (the reason Python's ``timeit`` reports
the minimum), so one disturbed run must not hide a difference every other run shows. A verdict that the ranges leave
open while the medians, or the fastest runs, lie beyond the margin is a close call (``TimeVerdict.close_call``): more
runs may settle it.
Pure: no torch, no rendering.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tdiag.lean_dataclass import lean_dataclass

# Counts whose growth is worse and whose drop is better (RunSummary attribute names).
JUDGED_COUNTS = ("graphs", "graph_breaks", "recompiles", "eager_fallbacks")
TIME_TOLERANCE = 0.10  # a range must clear the other by this share of it: ranges that nearly touch are noise
MIN_RUNS_TO_JUDGE = 2  # a timing verdict needs a spread: one run of each side is shown, never judged
MIN_RUNS_TO_TRIM = 3  # from this many runs a side, each side's slowest is left out (two must remain for a spread)
# one run a side is judged "faster" where asked (``decisive``) only when the after side is this many times faster:
# one disturbed run of a fix flow on a shared GPU has measured up to 1.46x its twin (the MLP's CUDA graphs on an
# H100, 1.389 and 2.035 ms, two flows on the machine); alone, 1.07-1.22x. CUDA graphs on a launch-bound step pay
# 1.7-2.4x (mlp_train 1.82 -> 1.07 ms, GPT-2 5.24 -> 2.21 ms): a lever that large needs no second run to show.
DECISIVE_FACTOR = 1.5
# below TIME_TOLERANCE, ranges apart still decide where the runs themselves are tight: the gap must then be at least
# this share of the before side and ``TIGHT_GAP_SPREADS`` times either side's own spread (the fused AdamW of
# big_bert_cls on an H100: 24.688-24.750 ms against 22.643-22.686 ms, 8% faster with a spread of 0.3%, was "within
# the spread"; a CPU's runs spread 5-20%, where the margin stays what decides)
MIN_TIGHT_GAIN = 0.03
TIGHT_GAP_SPREADS = 3


@lean_dataclass(frozen=True)
class CountChange:
    name: str  # one of JUDGED_COUNTS
    before: float
    after: float

    @property
    def starts_compiling(self) -> bool:
        """Graphs from none: the program ran wholly eagerly before (a skipped frame), and now compiles."""
        return self.name == "graphs" and self.before == 0 and self.after > 0

    @property
    def worse(self) -> bool:
        return self.after > self.before and not self.starts_compiling

    @property
    def better(self) -> bool:
        return self.after < self.before or self.starts_compiling

    def words(self) -> str:
        """"more graph breaks: 2 -> 3" / "fewer graphs: 9 -> 1" / "compiles now: graphs 0 -> 1"."""
        what = self.name.replace("_", " ")
        if self.starts_compiling:
            return f"compiles now: {what} {_n(self.before)} -> {_n(self.after)}"
        return f"{'more' if self.worse else 'fewer'} {what}: {_n(self.before)} -> {_n(self.after)}"


def count_changes(before: Mapping[str, float], after: Mapping[str, float]) -> list[CountChange]:
    """The judged counts that changed, in ``JUDGED_COUNTS`` order (a count missing on either side is not judged)."""
    return [
        CountChange(name, before[name], after[name])
        for name in JUDGED_COUNTS
        if name in before and name in after and before[name] != after[name]
    ]


def counts_of(summary: object) -> dict[str, float]:
    """The judged counts of a RunSummary (or anything with those attributes)."""
    return {name: getattr(summary, name) for name in JUDGED_COUNTS}


@lean_dataclass(frozen=True)
class TimeVerdict:
    """How two sides' step times compare: ``change`` is "faster", "slower" or None (no verdict), ``how`` says why."""

    change: str | None
    how: str
    close_call: bool = False  # no verdict, but the medians lie apart beyond the margin: more runs may settle it
    # the (fastest, slowest) seconds per step each side was judged on: its slowest run left out from MIN_RUNS_TO_TRIM
    before_range: tuple[float, float] | None = None
    after_range: tuple[float, float] | None = None

    @property
    def judged(self) -> bool:
        return self.change is not None


def judge_times(before_s: Sequence[float], after_s: Sequence[float], what: str = "steps",
                decisive: bool = False) -> TimeVerdict:
    """Seconds per step of each measured run of each side; a verdict only beyond both ranges (see the module).
    ``decisive``: with fewer runs a side than a verdict needs, one that is ``DECISIVE_FACTOR`` times faster is one
    (`tdiag fix --verify`'s first run of a set; `tdiag diff` never asks)."""
    if not (before_s and after_s):
        return TimeVerdict(None, "not judged: a side has no measured time")
    if decisive and min(len(before_s), len(after_s)) < MIN_RUNS_TO_JUDGE \
            and max(after_s) * DECISIVE_FACTOR <= min(before_s):
        b_lo, a_hi = min(before_s), max(after_s)
        runs = "one run" if len(after_s) == 1 else f"{len(after_s)} runs"
        return TimeVerdict("faster", f"faster by {b_lo / a_hi:.1f}x on {runs}, beyond the {DECISIVE_FACTOR}x one "
                           f"disturbed run has measured (before {_ms(b_lo)} ms at best, after {_ms(a_hi)} ms)",
                           before_range=(b_lo, max(before_s)), after_range=(min(after_s), a_hi))
    if min(len(before_s), len(after_s)) < MIN_RUNS_TO_JUDGE:
        return TimeVerdict(None, f"not judged: {len(before_s)} and {len(after_s)} measured run(s); a verdict needs "
                                 f"{MIN_RUNS_TO_JUDGE} a side (--repeat)")
    trimmed = min(len(before_s), len(after_s)) >= MIN_RUNS_TO_TRIM
    before, after = (_without_slowest(before_s), _without_slowest(after_s)) if trimmed else (before_s, after_s)
    b_lo, b_hi, a_lo, a_hi = min(before), max(before), min(after), max(after)
    spread = (f"before {_ms(b_lo)}-{_ms(b_hi)} ms over {len(before_s)} runs, "
              f"after {_ms(a_lo)}-{_ms(a_hi)} ms over {len(after_s)}"
              + (", each side's slowest run left out" if trimmed else ""))
    ranges = {"before_range": (b_lo, b_hi), "after_range": (a_lo, a_hi)}
    # with two runs a side, two ranges apart happen by chance one time in three: the gap between them must also
    # exceed either side's own spread (blind batch 6 on a loaded machine: 1.19-4.08 ms against 4.76-14.58 ms)
    widest = max(b_hi - b_lo, a_hi - a_lo) if not trimmed else 0.0
    if _tightly_apart(before_s, after_s, b_hi, a_lo):
        return TimeVerdict("slower", f"slower beyond {TIGHT_GAP_SPREADS}x the runs' own spread ({spread})", **ranges)
    if _tightly_apart(after_s, before_s, a_hi, b_lo):
        return TimeVerdict("faster", f"faster beyond {TIGHT_GAP_SPREADS}x the runs' own spread ({spread})", **ranges)
    if a_lo > b_hi * (1 + TIME_TOLERANCE):
        if a_lo - b_hi <= widest:
            return TimeVerdict(None, f"slower, but by less than the runs' own spread: no verdict on time ({spread})",
                               True, **ranges)
        return TimeVerdict("slower", f"slower beyond the spread ({spread})", **ranges)
    if a_hi * (1 + TIME_TOLERANCE) < b_lo:
        if b_lo - a_hi <= widest:
            return TimeVerdict(None, f"faster, but by less than the runs' own spread: no verdict on time ({spread})",
                               True, **ranges)
        return TimeVerdict("faster", f"faster beyond the spread ({spread})", **ranges)
    b_mid, a_mid = _median(before_s), _median(after_s)
    words = f"within the spread: no verdict on time ({spread})"
    if _apart(b_mid, a_mid):
        words += f"; the medians {_ms(b_mid)} and {_ms(a_mid)} ms lie further apart than the margin"
    elif _apart(b_lo, a_lo):
        # two runs a side are never trimmed: one disturbed run of two moves the median halfway to it, while the
        # fastest runs (what each side does undisturbed) still lie apart (the MLP's CUDA graphs on the H100:
        # 1.389 and 2.035 ms against 1.819-1.850 ms, two fix flows sharing the GPU)
        words += f"; the fastest runs {_ms(b_lo)} and {_ms(a_lo)} ms lie further apart than the margin"
    close = _apart(b_mid, a_mid) or _apart(b_lo, a_lo)
    return TimeVerdict(None, words, close, **ranges)


def _tightly_apart(low_side: Sequence[float], high_side: Sequence[float], low_hi: float, high_lo: float) -> bool:
    """The slower side's fastest run ``high_lo`` lies above the faster side's slowest ``low_hi`` by less than the
    margin but by at least ``MIN_TIGHT_GAIN`` and ``TIGHT_GAP_SPREADS`` times the widest spread of all runs (none
    left out): a gap runs this tight cannot close by chance, whatever the margin says."""
    gap = high_lo - low_hi
    spreads = max(max(low_side) - min(low_side), max(high_side) - min(high_side))
    return (high_lo <= low_hi * (1 + TIME_TOLERANCE) and gap >= MIN_TIGHT_GAIN * low_hi
            and gap > TIGHT_GAP_SPREADS * spreads)


def first_run_slower(before_s: Sequence[float], after_first_s: float) -> bool:
    """The after side's one run lies beyond the margin above the before side's fastest: a verdict the counts reached
    on one run a side is then left to ``MIN_RUNS_TO_JUDGE`` runs a side (tdiag/fixing/rounds.py)."""
    return bool(before_s) and after_first_s > min(before_s) * (1 + TIME_TOLERANCE)


def _apart(one: float, other: float) -> bool:
    return max(one, other) > min(one, other) * (1 + TIME_TOLERANCE)


def _without_slowest(seconds: Sequence[float]) -> list[float]:
    ordered = sorted(seconds)
    return ordered[:-1]


def _median(seconds: Sequence[float]) -> float:
    ordered, mid = sorted(seconds), len(seconds) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f}"


def _n(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.3f}"
