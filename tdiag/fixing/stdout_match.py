"""Is the patched program's output the same? Exactly, or within a stated tolerance on the numbers it prints.

A patch may legitimately move the last printed digit of a float (a 0-d float32 tensor instead of a Python double,
a reassociated sum). Such output counts as the same only when every difference is a number that differs by at most
one unit of its last printed digit and by at most ``tolerance`` relatively; every other character must match. The
differing numbers are listed, so the user sees what the tolerance allowed.
"""

from __future__ import annotations

import re
from dataclasses import field

from tdiag.lean_dataclass import lean_dataclass

DEFAULT_TOLERANCE = 1e-3
_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


@lean_dataclass
class OutputMatch:
    identical: bool
    within_tolerance: bool  # not identical, but only numbers differ, each within the tolerance
    tolerance: float
    number_differences: list[str] = field(default_factory=list)  # "1.1065 -> 1.1066 (line 3)"

    @property
    def same(self) -> bool:
        return self.identical or self.within_tolerance


def match(before: str, after: str, tolerance: float = DEFAULT_TOLERANCE) -> OutputMatch:
    if before == after:
        return OutputMatch(True, False, tolerance)
    result = OutputMatch(False, False, tolerance)
    if tolerance <= 0:
        return result
    b_lines, a_lines = before.splitlines(), after.splitlines()
    if len(b_lines) != len(a_lines):
        return result
    for n, (b, a) in enumerate(zip(b_lines, a_lines), 1):
        if b == a:
            continue
        if _NUMBER.sub("#", b) != _NUMBER.sub("#", a):
            return result  # text around the numbers differs
        for x, y in zip(_NUMBER.findall(b), _NUMBER.findall(a)):
            if x == y:
                continue
            if not _close(x, y, tolerance):
                return result
            result.number_differences.append(f"{x} -> {y} (line {n})")
    result.within_tolerance = bool(result.number_differences)
    return result


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
