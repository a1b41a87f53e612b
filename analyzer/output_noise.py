"""Same output, measured: each printed number is judged within its own run-to-run spread, never a fixed rule.

GPU training in bf16 is not bit-reproducible: three unchanged runs of one program print ``acc 0.108``, ``0.108``,
``0.107``. A fixed tolerance either refuses the expert's levers on such a program (its output "changed" by itself) or
lets a real change pass on a program whose output never varies. So the unchanged program's runs are measured and
each printed number's values across those runs are its **band**. The second run is made only when an output (eager's,
a patched run's) first differs from the first run's: an identical output is the same whatever the spread, and most
programs print the same output every run (tdiag/fixing/rounds.py). A patched run prints the same output when:

- it has the same lines, with the same text around the numbers (a line whose text varied run to run by itself is
  not compared, and said so);
- every number that never varied is printed exactly as before (a bit-identical baseline: any change is a change);
- every number that varied lies within its band widened by ``NOISE_FACTOR`` times its own spread on each side (at
  least one unit of its last printed digit);
- timings (a number named like ``elapsed`` or carrying a unit of time: stdout_match.py) are never compared.

**Eager parity.** The same program run with ``TORCH_COMPILE_DISABLE=1`` measures what the program's results are
without torch.compile. Its output is compared with the compiled runs': a number that never varied must match (a float
may move by one unit of its last printed digit and 1e-3 relatively, stdout_match.py's rule, since Inductor
legitimately reorders floating-point sums); one that varied must lie within the 99% prediction interval of the
compiled runs. Beyond that, compiled results differ from eager: an error, since torch reports nothing. Where eager agrees, its runs join the band (they measure the same results' spread); where it
does not, a patched run that prints eager's results is the same output too (the patch fixed the difference).
"""

from __future__ import annotations

from dataclasses import field

from tdiag.analyzer.stdout_match import (
    _NUMBER,
    DEFAULT_TOLERANCE,
    _close,
    _last_digit_unit,
    _names,
    _without_progress,
    match,
)
from tdiag.lean_dataclass import lean_dataclass

# A band is widened by twice its own spread on each side: a third run lands outside the range of two more often than
# not (a third of the time for any continuous noise), outside twice its spread about one time in five, and one in
# twenty after three runs.
NOISE_FACTOR = 2.0
# Student's t, two-sided 99%, by degrees of freedom: eager parity calls a number different only beyond the prediction
# interval of the compiled runs (an error finding needs strong evidence; two runs give little).
T_99 = {1: 63.66, 2: 9.925, 3: 5.841, 4: 4.604, 5: 4.032, 6: 3.707, 7: 3.499, 8: 3.355, 9: 3.250}
MIN_RUNS = 2  # the unchanged program's runs a band needs: one run has no spread


@lean_dataclass
class NumberBand:
    """One printed number's values over the unchanged runs."""

    line: int  # 1-based line of the output (progress bars left out)
    name: str  # the word printed before it ("acc", "loss"), else its place on the line
    values: list[str]  # as printed, one per run

    @property
    def lo(self) -> float:
        return min(float(v) for v in self.values)

    @property
    def hi(self) -> float:
        return max(float(v) for v in self.values)

    @property
    def varied(self) -> bool:
        return self.hi > self.lo

    def admits(self, text: str, evidence: str = "same", pooled: float | None = None, noisy: bool = False) -> bool:
        """``evidence="same"``: is ``text`` the same result (a patched run: within the band widened by
        ``NOISE_FACTOR`` times its spread, at least one unit of the last printed digit)? ``"differs"``: is it beyond
        reasonable doubt a different result (eager parity, an error finding: beyond the 99% prediction interval of
        the runs seen, which two or three runs make wide)?
        ``pooled``: the largest relative spread of the numbers printed under the same name (every epoch's "loss"
        is one quantity's noise: two runs of one line under-estimate it, the lines together less so). ``noisy``:
        the program's output varies by itself somewhere, so a number two runs happened to agree on is not exact
        either: at least one unit of its last printed digit (a bit-identical program stays exact)."""
        value = float(text)
        if evidence == "same" and (noisy or pooled):
            spread = max(self.hi - self.lo, (pooled or 0.0) * max(abs(self.lo), abs(self.hi)))
            margin = max(NOISE_FACTOR * spread, max(_last_digit_unit(v) for v in self.values))
            return self.lo - margin <= value <= self.hi + margin
        if not self.varied:
            return value == self.lo
        values = [float(v) for v in self.values]
        if evidence == "differs":
            n = len(values)
            mean = sum(values) / n
            sd = (sum((v - mean) ** 2 for v in values) / (n - 1)) ** 0.5
            half = T_99.get(n - 1, 2.6) * sd * (1 + 1 / n) ** 0.5
            return mean - half <= value <= mean + half
        margin = max(NOISE_FACTOR * (self.hi - self.lo), max(_last_digit_unit(v) for v in self.values))
        return self.lo - margin <= value <= self.hi + margin

    def words(self) -> str:
        lo, hi = sorted(self.values, key=float)[0], sorted(self.values, key=float)[-1]
        return f"{self.name} {lo}..{hi} (line {self.line})"


@lean_dataclass
class LineBand:
    """One printed line over the unchanged runs: its text around the numbers, and each number's band."""

    line: int
    skeleton: str | None  # the text around the numbers; None: it varied run to run by itself
    numbers: list[NumberBand | None]  # None: a timing, never compared


@lean_dataclass
class Band:
    """What the unchanged program prints over ``runs`` runs, line by line."""

    runs: int
    lines: list[LineBand] = field(default_factory=list)

    @property
    def varied(self) -> list[NumberBand]:
        return [n for line in self.lines for n in line.numbers if n is not None and n.varied]

    @property
    def text_varied(self) -> list[int]:
        return [line.line for line in self.lines if line.skeleton is None]


@lean_dataclass
class Judgement:
    """Whether an output is the same as the band's runs, and what differed."""

    same: bool
    differences: list[str] = field(default_factory=list)  # "line 3: acc 0.131 (0.107..0.108 over 3 runs)"
    first_difference: str | None = None  # the first line that differs, as "line N: before -> after"


def band_of(stdouts: list[str]) -> Band | str:
    """The band of ``stdouts`` (the same program's unchanged runs), or why they cannot make one."""
    parsed = [_parse(s) for s in stdouts]
    if len({len(p) for p in parsed}) > 1:
        return "the program prints a different number of lines from run to run"
    band = Band(runs=len(stdouts))
    for rows in zip(*parsed):
        number = rows[0][0]
        skeletons = {skeleton for _, skeleton, _ in rows}
        if len(skeletons) > 1:
            band.lines.append(LineBand(number, None, []))
            continue
        numbers: list[NumberBand | None] = []
        for k, (_, name) in enumerate(rows[0][2]):
            if name is not None:  # a timing: measured, not a result
                numbers.append(None)
                continue
            label = _label(rows[0][1], k) or f"number {k + 1}"
            numbers.append(NumberBand(number, label, [row[2][k][0] for row in rows]))
        band.lines.append(LineBand(number, rows[0][1], numbers))
    return band


def judge(band: Band, stdout: str, tolerance: float = 0.0, evidence: str = "same") -> Judgement:
    """Is ``stdout`` the same output as the band's runs? ``tolerance`` > 0 also admits a float within one unit of its
    last printed digit and that relative difference of any value the band saw (eager parity's floor). ``evidence``:
    NumberBand.admits's."""
    rows = _parse(stdout)
    noisy, pooled = bool(band.varied), pooled_spreads(band)
    if len(rows) != len(band.lines):
        return Judgement(False, [f"{len(rows)} lines printed, {len(band.lines)} before"],
                         f"{len(rows)} lines printed, {len(band.lines)} before")
    out = Judgement(True)
    for line, (number, skeleton, numbers) in zip(band.lines, rows):
        if line.skeleton is None:
            continue  # its text varied run to run by itself
        if skeleton != line.skeleton:
            out.same = False
            out.differences.append(f"line {number}: the text changed")
        else:
            for expected, (text, _) in zip(line.numbers, numbers):
                if expected is None or expected.admits(text, evidence, pooled.get(expected.name), noisy):
                    continue
                if tolerance > 0 and any(_close(v, text, tolerance) for v in expected.values):
                    continue
                out.same = False
                spread = (f"{expected.lo:g}..{expected.hi:g} over {band.runs} runs" if expected.varied
                          else f"{expected.values[0]} in each of {band.runs} runs")
                out.differences.append(f"line {number}: {expected.name} {text} ({spread})")
        if not out.same and out.first_difference is None:
            out.first_difference = out.differences[-1]
    return out


def pooled_spreads(band: Band) -> dict[str, float]:
    """Per printed name, the largest relative spread of the numbers of that name that varied (each epoch's "loss"
    line is one more sample of the same quantity's noise)."""
    out: dict[str, float] = {}
    for n in band.varied:
        scale = max(abs(n.lo), abs(n.hi))
        if scale > 0 and not n.name.startswith("number "):  # a name the program printed, not a place on the line
            out[n.name] = max(out.get(n.name, 0.0), (n.hi - n.lo) / scale)
    return out


def noise_words(band: Band | str) -> str:
    """What varied by itself, in words: the verdict says what it was compared within."""
    if isinstance(band, str):
        return f"{band}: compared with the first run"
    varied, text = band.varied, band.text_varied
    if band.runs == 1:
        return ("one unchanged run: an output identical to it is the same; the first output that differs has the "
                "program's own run-to-run spread measured first (a second unchanged run)")
    if not varied and not text:
        return f"the output is identical over {band.runs} unchanged runs: any change in a result is a change"
    parts = []
    if varied:
        shown = ", ".join(n.words() for n in varied[:4]) + (" ..." if len(varied) > 4 else "")
        parts.append(f"{len(varied)} number(s) vary run to run by themselves over {band.runs} runs: {shown}; "
                     f"compared within that (widened by {NOISE_FACTOR:g}x its spread)")
    if text:
        parts.append("line(s) " + ", ".join(map(str, text[:6])) + " vary in their text: not compared")
    return "; ".join(parts)


def _parse(text: str) -> list[tuple[int, str, list[tuple[str, str | None]]]]:
    """(line number, the text around its numbers, [(number as printed, its timing name or None)]) per line."""
    lines, _ = _without_progress(text)
    return [(n, _NUMBER.sub("#", line), list(zip(_NUMBER.findall(line), _names(line)))) for n, line in lines]


def _label(skeleton: str, k: int) -> str | None:
    """The word printed right before the k-th number of a line (``acc`` in ``acc #``), where there is one."""
    head = skeleton.split("#")[k] if k < skeleton.count("#") else ""
    words = [w for w in head.replace("=", " ").replace(":", " ").replace(",", " ").split() if w.strip("'\"()[]")]
    return words[-1].strip("'\"()[]") if words else None


PARITY_TOLERANCE = DEFAULT_TOLERANCE  # Inductor reorders float sums: the last printed digit may move


@lean_dataclass
class EagerParity:
    """The program's output with torch.compile disabled against its compiled runs' band."""

    verdict: str  # "same as eager", "differs from eager", "not measured"
    detail: str
    first_difference: str | None = None  # "line 1: compiled `changed 0`, eager `changed 67`"
    eager_runs: int = 0

    @property
    def differs(self) -> bool:
        return self.verdict == "differs from eager"


@lean_dataclass
class OutputBaseline:
    """The unchanged program's outputs, compiled and eager: what every patched run's output is judged against."""

    first: str  # the first compiled run's stdout (the fallback when the runs cannot make a band)
    band: Band | str  # the compiled runs' band (eager's runs joined when they agree), or why there is none
    eager_band: Band | str | None
    parity: EagerParity
    compiled_stdouts: list[str] = field(default_factory=list)

    @property
    def words(self) -> str:
        return noise_words(self.band)

    def judge(self, stdout: str, tolerance: float = 0.0) -> tuple[Judgement, str]:
        """(the judgement, how it was made in words). ``tolerance`` > 0: the user's own allowance on floats
        (``--output-tolerance``), on top of the band."""
        if stdout in self.compiled_stdouts:
            return Judgement(True), "identical to an unchanged run"
        if isinstance(self.band, str):
            m = match(self.first, stdout, tolerance or DEFAULT_TOLERANCE)
            return Judgement(m.same, m.number_differences), noise_words(self.band)
        verdict = judge(self.band, stdout, tolerance)
        if verdict.same or not self.parity.differs or not isinstance(self.eager_band, Band):
            return verdict, self.words
        as_eager = judge(self.eager_band, stdout, PARITY_TOLERANCE)
        if as_eager.same:
            return as_eager, "prints the results the program prints without torch.compile (it differed before)"
        return verdict, self.words


def measure_baseline(compiled: list[str], eager: list[str], compiled_exit: int, eager_exit: int | None,
                     not_measured: str | None = None) -> OutputBaseline:
    """``compiled``: the unchanged program's stdouts; ``eager``: the same under TORCH_COMPILE_DISABLE=1 (may be
    empty: ``not_measured`` says why)."""
    band = band_of(compiled)
    eager_band = band_of(eager) if eager else None
    parity = eager_parity(compiled, eager, compiled_exit, eager_exit, not_measured)
    if parity.verdict == "same as eager" and eager:
        joined = band_of(compiled + eager)
        if isinstance(joined, Band):
            band = joined
    return OutputBaseline(compiled[0], band, eager_band, parity, list(compiled))


def eager_parity(compiled: list[str], eager: list[str], compiled_exit: int | None, eager_exit: int | None,
                 not_measured: str | None = None) -> EagerParity:
    """Compiled results against eager's: the side with more runs makes the band (its own spread), each run of the
    other side is judged against it as evidence of a difference (NumberBand.admits's "differs")."""
    if not eager or not compiled:
        return EagerParity("not measured", not_measured or "the program was not run with torch.compile disabled")
    n = len(eager)
    if eager_exit != compiled_exit:
        why = ("the compiled run stopped where eager runs to its end: the stop is torch.compile's" if eager_exit == 0
               else "e.g. fullgraph=True refuses to run disabled")
        return EagerParity("not measured", f"the program exits {eager_exit} with torch.compile disabled (compiled: "
                           f"{compiled_exit}): {why}", eager_runs=n)
    reference, others = (eager, compiled) if len(eager) > len(compiled) else (compiled, eager)
    band = band_of(reference)
    if isinstance(band, str):
        return EagerParity("not measured", f"{band}: no band to compare with", eager_runs=n)
    for stdout in others:
        verdict = judge(band, stdout, PARITY_TOLERANCE, evidence="differs")
        if not verdict.same:
            return EagerParity("differs from eager", "compiled results differ from eager beyond the program's own "
                               "run-to-run spread: " + "; ".join(verdict.differences[:4]),
                               _first_line_apart(compiled[0], eager[0]), n)
    return EagerParity("same as eager", f"the output with torch.compile disabled ({n} run(s)) is within the "
                       f"compiled runs' own spread", eager_runs=n)


def _first_line_apart(compiled: str, eager: str) -> str | None:
    for (n, c), (_, e) in zip(_without_progress(compiled)[0], _without_progress(eager)[0]):
        if c != e:
            return f"line {n}: compiled `{c.strip()}`, eager `{e.strip()}`"
    return None
