"""The command line of scripts/differential.py: schedule the runs, compare, print the table (and write it)."""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from differential_harness import corpus as corpus_mod
from differential_harness.compare import compare, summary
from differential_harness.execute import Outcome, run
from differential_harness.modes import MODES, PLAIN, PLAIN_TRACED, TDIAG_MODES, Mode

NESTED = {"off": (False,), "on": (True,), "both": (False, True)}


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="differential.py", description=__doc__)
    parser.add_argument("programs", nargs="*", help="program names (default: the whole corpus)")
    parser.add_argument("--modes", default=",".join(TDIAG_MODES), help=f"tdiag modes, comma-separated (default: all: {','.join(TDIAG_MODES)})")
    parser.add_argument("--nested", choices=sorted(NESTED), default="both",
                        help="torch._dynamo.config.nested_graph_breaks for every run (default: both settings)")
    parser.add_argument("--no-inductor", action="store_true", help="leave out the programs that compile with Inductor")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="runs at a time (default 1)")
    parser.add_argument("--work", metavar="DIR", help="keep each run's record, counters and outcome here")
    parser.add_argument("--markdown", metavar="FILE", help="also write the table as Markdown")
    parser.add_argument("--json", metavar="FILE", help="also write every outcome and verdict as JSON")
    parser.add_argument("--timeout", type=int, metavar="SECONDS", help="per run, instead of each program's own")
    parser.add_argument("--collect", action="store_true",
                        help="build the table from the outcomes kept in --work (runs not there: 'not run'); only the "
                             "TORCH_TRACE references that the kept outcomes need are run")
    args = parser.parse_args(argv)
    unknown = [m for m in args.modes.split(",") if m not in MODES or m == "plain"]
    if unknown:
        parser.error(f"unknown mode(s) {', '.join(unknown)}; choose from {', '.join(TDIAG_MODES)}")
    return args


def main(argv: list[str]) -> int:
    args = parse(argv)
    programs = corpus_mod.corpus(args.programs or None, inductor=not args.no_inductor)
    if args.timeout:
        programs = [dataclasses.replace(p, timeout=args.timeout) for p in programs]
    modes = [MODES[m] for m in args.modes.split(",")]
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="differential-"))
    cache = work / "inductor-cache"
    jobs = [(p, m, n) for n in NESTED[args.nested] for p in programs for m in [PLAIN, *modes] if m.applies_to(p)]
    outcomes: dict[tuple[str, str, bool], Outcome] = {}
    if args.collect:
        if not args.work:
            raise SystemExit("--collect needs --work DIR")
        for path in work.glob("*/*/outcome.json"):
            outcome = Outcome(**json.loads(path.read_text(encoding="utf-8")))
            outcomes[(outcome.program, outcome.mode, outcome.nested)] = outcome
        jobs = []

    def one(job):
        program, mode, nested = job
        outcome = run(program, mode, nested, work / ("nested" if nested else "default"), cache)
        print(f"  {program.name:<34} {'nested ' if nested else ''}{mode.name:<14} exit {outcome.exit_code} "
              f"{outcome.seconds:5.1f}s", file=sys.stderr, flush=True)
        return job, outcome

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for (program, mode, nested), outcome in pool.map(one, jobs):
            outcomes[(program.name, mode.name, nested)] = outcome
        # a frames difference: the plain run under TORCH_TRACE is the reference that may explain it (compare.py)
        by_name = {p.name: p for p in programs}
        traced = sorted({(by_name[name], n) for name, m, n in outcomes if m not in (PLAIN.name, PLAIN_TRACED.name)
                         and name in by_name and (name, PLAIN.name, n) in outcomes
                         and (name, PLAIN_TRACED.name, n) not in outcomes
                         and compare(outcomes[(name, PLAIN.name, n)], outcomes[(name, m, n)]).needs_traced},
                        key=lambda j: (j[1], j[0].name))
        for (program, mode, nested), outcome in pool.map(one, [(p, PLAIN_TRACED, n) for p, n in traced]):
            outcomes[(program.name, mode.name, nested)] = outcome
    table = build_table(programs, modes, NESTED[args.nested], outcomes)
    print(render_text(table))
    if args.markdown:
        Path(args.markdown).write_text(render_markdown(table), encoding="utf-8")
    if args.json:
        Path(args.json).write_text(json.dumps(table, indent=1, default=str), encoding="utf-8")
    print(f"runs kept in {work}", file=sys.stderr)
    return 0 if table["identical"] == table["compared"] else 1


def build_table(programs, modes: list[Mode], nested_settings, outcomes) -> dict:
    rows, compared, identical = [], 0, 0
    for program in programs:
        for nested in nested_settings:
            plain = outcomes.get((program.name, "plain", nested))
            if plain is None:
                continue  # --collect of a run cut short
            cells, details, notes = {}, [], []
            for mode in modes:
                if not mode.applies_to(program):
                    cells[mode.name] = "n/a"
                    continue
                if (program.name, mode.name, nested) not in outcomes:
                    cells[mode.name] = "not run"
                    continue
                verdict = compare(plain, outcomes[(program.name, mode.name, nested)],
                                  outcomes.get((program.name, PLAIN_TRACED.name, nested)))
                compared += 1
                identical += verdict.identical
                cells[mode.name] = ("DIFFERENT" if not verdict.identical else
                                    "identical*" if verdict.explained else "identical")
                details += [f"{mode.name}: {d}" for d in verdict.differences]
                notes += [f"{mode.name}: {d}" for d in verdict.explained]
            rows.append({"program": program.name, "kind": program.kind, "inductor": program.inductor,
                         "nested": nested, "plain": summary(plain), "plain_exit": plain.exit_code,
                         "cells": cells, "differences": details, "explained": notes})
    return {"date": datetime.date.today().isoformat(), "torch": torch_version(), "python": platform.python_version(),
            "modes": [m.name for m in modes], "titles": {m.name: m.title for m in modes}, "rows": rows,
            "compared": compared, "identical": identical}


def torch_version() -> str:
    try:
        return subprocess.run([sys.executable, "-c", "import torch; print(torch.__version__)"], capture_output=True,
                              text=True, timeout=120, env={**os.environ, "PYTHONPATH": ""}).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "?"


EXPLAINED = ("every counter, stdout and the exit code identical; torch's frames total/ok higher only by torch's own "
             "structured-trace logging frames, which Dynamo is handed and skips (the plain run under TORCH_TRACE "
             "sees the same frames; none of tdiag's, none missing)")
LEGEND = ("plain: torch's counters without tdiag, summed over processes: frames compiled / unique graphs / calls "
          "captured / graph breaks / recompiles; exit code. Each mode: 'identical' when every process's counters "
          "(frames total and ok, unique graphs, calls captured, graph breaks by reason, recompiles, resume functions), "
          "stdout and the exit code equal the plain run's.")


def _program_label(row: dict) -> str:
    kind = "" if row["kind"] == "script" else f" ({row['kind']})"
    return row["program"] + kind + (" [inductor]" if row["inductor"] else "") + (" +nested" if row["nested"] else "")


def render_text(table: dict) -> str:
    modes = table["modes"]
    header = ["program", "plain (exit)", *modes]
    body = [[_program_label(r), f"{r['plain']} ({r['plain_exit']})", *(r["cells"][m] for m in modes)] for r in table["rows"]]
    widths = [max(len(str(x)) for x in col) for col in zip(header, *body)]
    lines = ["  ".join(str(x).ljust(w) for x, w in zip(line, widths)).rstrip() for line in [header, *body]]
    lines.append(f"{table['identical']}/{table['compared']} identical (torch {table['torch']}, {table['date']})")
    if any(r["explained"] for r in table["rows"]):
        lines.append("identical*: " + EXPLAINED)
    for row in table["rows"]:
        for d in row["explained"]:
            lines.append(f"explained {_program_label(row)}: {d}")
        for d in row["differences"]:
            lines.append(f"DIFFERENT {_program_label(row)}: {d}")
    return "\n".join(lines)


def render_markdown(table: dict) -> str:
    modes = table["modes"]
    titles = table["titles"]
    lines = [f"| program | plain: frames/graphs/calls/breaks/recompiles (exit) | {' | '.join(titles[m] for m in modes)} |",
             "|" + "---|" * (len(modes) + 2)]
    for r in table["rows"]:
        cells = [{"identical": "✓", "identical*": "✓*", "n/a": "–", "not run": "not run"}.get(r["cells"][m], "**different**")
                 for m in modes]
        lines.append(f"| `{r['program']}`{'' if r['kind'] == 'script' else ' (' + r['kind'] + ')'}"
                     f"{' [inductor]' if r['inductor'] else ''}{' +nested' if r['nested'] else ''} | "
                     f"{r['plain']} ({r['plain_exit']}) | {' | '.join(cells)} |")
    lines.append("")
    lines.append(f"**{table['identical']}/{table['compared']} identical** — torch {table['torch']}, Python "
                 f"{table['python']}, {table['date']}.")
    if any(r["explained"] for r in table["rows"]):
        lines += ["", "✓*: " + EXPLAINED]
    diffs = [f"- `{r['program']}`{' +nested' if r['nested'] else ''}: {d}" for r in table["rows"] for d in r["differences"]]
    if diffs:
        lines += ["", "Differences:", "", *diffs]
    return "\n".join(lines) + "\n"
