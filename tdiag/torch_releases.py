"""The torch releases tdiag was tested on, and the one line every output prints for a torch outside them.

tdiag reads torch's private hooks and the texts of its trace events, which a release may change; the package
bounds torch from below only (never making pip replace a user's torch), so a newer torch runs, and says so.
The capture writes ``TESTED`` into the record's header (``torch_tested``): the analysis judges a record against the
matrix of the tdiag that captured it, without importing torch. Standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# the releases the oracle tests pass on (docs/torch-versions.md, scripts/torch-matrix); the first is the lower bound
# in pyproject.toml
TESTED: tuple[str, ...] = ("2.9.1", "2.11.0", "2.13.0", "2.14.1", "2.15.0")

_RELEASE = re.compile(r"(\d+)\.(\d+)")


def minor(version: str) -> tuple[int, int] | None:
    """``"2.14.1+cu128"`` -> ``(2, 14)``; None for a text that names no release."""
    match = _RELEASE.match(version.strip())
    return (int(match.group(1)), int(match.group(2))) if match else None


def untested_notice(torch_version: str | None, tested: Sequence[str] | None = None) -> str | None:
    """One line when ``torch_version`` is outside the tested matrix (newer than its newest minor release, or older
    than its oldest), else None. A patch release of a tested minor one counts as tested; a nightly of the next
    minor release does not. Nothing is refused: the line says which torch, what was tested, how to report a
    difference."""
    tested = [v for v in (tested or TESTED) if isinstance(v, str) and minor(v)]
    ran = minor(torch_version or "")
    if ran is None or not tested:
        return None
    releases = sorted(tested, key=minor)
    newest, oldest = minor(releases[-1]), minor(releases[0])
    if oldest <= ran <= newest:
        return None
    relation = "newer" if ran > newest else "older"
    return (f"torch {torch_version} is {relation} than the releases tdiag was tested on ({', '.join(releases)}): "
            "the results may differ from torch's own accounting; if a count or site differs from a TORCH_TRACE "
            "of the same run, report it to tdiag with this record")
