"""Regenerate the README's example blocks from real runs: `python scripts/readme_examples.py` (--check compares).

Each example is a command run from the repository's root, as the README shows it; its output (stdout and stderr, in
the order a terminal shows them, at a fixed width) replaces the fenced block that follows its marker line
``<!-- example: NAME (scripts/readme_examples.py) -->``. torch's own log lines (printed under plain python too, with
times, process ids and this machine's paths) are folded into one line saying so. CPU timings vary from run to run,
so ``--check`` (and tests/contract/test_readme_examples.py) compares what is deterministic: the program's output,
the counts, and each finding's site, code, count and message with its timings masked.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
WIDTH = "100"
EXAMPLES = {"run": ["tdiag", "run", "examples/train.py"]}
MARKER = "<!-- example: {name} (scripts/readme_examples.py) -->"
_TORCH_LOG = re.compile(r"^[WIEDC]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ \S+:\d+\]")
_RECORD = re.compile(r"^record: (\S+)", re.M)
_ROW = re.compile(r"^(\S+:\d+(?::\d+)?)\s+([A-Z]{3}\d{3})\s+(\d+)\s+(.*)$")
_TIMING = re.compile(r"≥?\d+(?:\.\d+)?\s?(?:ms/step|ms|s compile|s|%)(?![\w])|\d+\.\d+")


def run_example(name: str) -> str:
    """The example's command run for real; its output as a terminal shows it, torch's log lines folded."""
    command = EXAMPLES[name]
    env = {**os.environ, "COLUMNS": WIDTH, "PYTHONUNBUFFERED": "1"}
    env.pop("GIT_CEILING_DIRECTORIES", None)  # the repository is the root, as for a user in their clone
    proc = subprocess.run([sys.executable, "-m", "tdiag", *command[1:]], cwd=REPO, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=900)
    text = proc.stdout
    record = _RECORD.search(text)
    if record and not Path(record.group(1)).is_absolute() and (REPO / record.group(1)).is_dir():
        shutil.rmtree(REPO / record.group(1))  # the run's record is not part of the repository
    return "$ " + " ".join(command) + "\n" + fold_torch_logs(text)


def fold_torch_logs(text: str) -> str:
    out: list[str] = []
    folded = 0
    for line in text.splitlines():
        if _TORCH_LOG.match(line):
            folded += 1
            continue
        if folded:
            out.append(f"[{folded} lines of torch's own logging, printed under plain python too]")
            folded = 0
        out.append(line)
    if folded:
        out.append(f"[{folded} lines of torch's own logging, printed under plain python too]")
    return "\n".join(out) + "\n"


def deterministic(block: str) -> dict:
    """What two runs of an example agree on: program output, counts, and the findings without their timings.
    Findings ranked by measured time alone (RUN: a share of the step) come and go with the machine's load."""
    lines = block.splitlines()
    rule = next((i for i, line in enumerate(lines) if "tdiag: what torch.compile did" in line), len(lines))
    program = [line for line in lines[1:rule] if line.strip() and not line.startswith("[")]
    counts = next((re.sub(r"\s+\d+(?:\.\d+)?s compiling", "", line).split() for line in lines[rule + 1:rule + 3]
                   if "graphs" in line), [])
    messages = set()
    texts = _finding_texts(lines[rule + 1:])
    for (site, code, n), text in texts.items():
        if not code.startswith("RUN"):
            messages.add((site, code, n, _TIMING.sub("#", text)))
    return {"program": program, "counts": counts, "findings": messages}


def _finding_texts(lines: list[str]) -> dict[tuple[str, str, str], str]:
    """(site, code, n) -> the row's text and its continuation lines, joined (wrapping differs with the cost column)."""
    texts: dict[tuple[str, str, str], str] = {}
    key = None
    for line in lines:
        row = _ROW.match(line)
        if row:
            key = (row.group(1), row.group(2), row.group(3))
            texts[key] = row.group(4)
        elif key is not None and line.startswith(" ") and line.strip():
            texts[key] += " " + line.strip()
        else:
            key = None
    return {k: re.sub(r"\s+", " ", v).strip() for k, v in texts.items()}


def readme_block(name: str, readme: str | None = None) -> str:
    """The fenced block after the example's marker in the README."""
    readme = README.read_text() if readme is None else readme
    marker = MARKER.format(name=name)
    if marker not in readme:
        raise SystemExit(f"README.md has no marker {marker}")
    after = readme.split(marker, 1)[1]
    return after.split("```", 2)[1].lstrip("\n")


def replace_block(readme: str, name: str, text: str) -> str:
    marker = MARKER.format(name=name)
    before, after = readme.split(marker, 1)
    _, _old, rest = after.split("```", 2)
    return f"{before}{marker}\n```\n{text}```{rest}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="compare the README with fresh runs; exit 1 on a change")
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"examples to run (default: all: {', '.join(EXAMPLES)})")
    args = parser.parse_args(argv)
    readme = README.read_text()
    status = 0
    for name in args.names or list(EXAMPLES):
        fresh = run_example(name)
        if args.check:
            shown, now = deterministic(readme_block(name, readme)), deterministic(fresh)
            if shown != now:
                print(f"README example {name!r} differs from a fresh run:\n  README: {shown}\n  now:    {now}")
                status = 1
        else:
            readme = replace_block(readme, name, fresh)
    if not args.check:
        README.write_text(readme)
    return status


if __name__ == "__main__":
    sys.exit(main())
