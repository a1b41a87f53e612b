"""The corpus: programs under tests/differential/programs, each with one ``# differential:`` line of tags.

    # differential: kind=script|pytest|distributed [inductor] [timeout=SECONDS] [nproc=RANKS]

``nproc`` is how many ranks a distributed program runs on (2 when not given). ``kind`` decides how each mode runs it (modes.py); ``inductor`` programs compile with real Inductor and are in the
full set only (they take tens of seconds on a CPU).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROGRAMS = REPO / "tests" / "differential" / "programs"
TAG_LINE = re.compile(r"^# differential:(.*)$", re.M)
KINDS = ("script", "pytest", "distributed")


@dataclass(frozen=True)
class Program:
    path: Path
    kind: str = "script"
    inductor: bool = False
    timeout: int = 300
    nproc: int = 2  # ranks of a distributed program
    tags: frozenset[str] = field(default_factory=frozenset)

    @property
    def name(self) -> str:
        return self.path.stem


def load(path: Path) -> Program:
    match = TAG_LINE.search(path.read_text(encoding="utf-8"))
    if match is None:
        raise ValueError(f"{path.name}: no '# differential:' line")
    tags = match.group(1).split()
    options = dict(t.split("=", 1) for t in tags if "=" in t)
    flags = frozenset(t for t in tags if "=" not in t)
    kind = options.get("kind", "script")
    if kind not in KINDS:
        raise ValueError(f"{path.name}: kind={kind} is not one of {', '.join(KINDS)}")
    return Program(path, kind, "inductor" in flags, int(options.get("timeout", 300)), int(options.get("nproc", 2)),
                   flags)


def corpus(names: list[str] | None = None, inductor: bool = True) -> list[Program]:
    """Every program (or the named ones, in that order); ``inductor=False`` leaves the Inductor programs out."""
    if names:
        missing = [n for n in names if not (PROGRAMS / f"{n}.py").is_file()]
        if missing:
            raise ValueError(f"no such program: {', '.join(missing)}")
        return [load(PROGRAMS / f"{n}.py") for n in names]
    programs = [load(p) for p in sorted(PROGRAMS.glob("*.py"))]
    return [p for p in programs if inductor or not p.inductor]
