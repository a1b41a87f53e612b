"""`tdiag fix --verify --budget S`: the verification ends within S seconds, between runs, keeping what it verified.

On a GPU one patch set of GPT-2 costs a minute of compiles, and a flow stopped from outside lost every round it had
verified (issue 41: the H100's mlp_train and lightning_train flows, killed at 205 s, reported nothing). The budget is
kept by not starting a run that would end past it, judged by the longest run so far.
"""

from __future__ import annotations

import shutil

import pytest

from tdiag.commands._analysis import load_analysis
from tdiag.fixing import rounds
from tdiag.fixing.budget import Budget, OutOfBudget
from tdiag.fixing.loop import FixOptions, fix

from ._project import PROGRAMS, make_project

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="the fix loop's git checks need git")


class _Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_run_that_would_end_past_the_budget_is_not_started():
    clock = _Clock()
    budget = Budget(100, clock)
    budget.check("the first run")  # nothing measured yet: the first run always starts
    clock.now = 40
    budget.ran(40)
    budget.check("a second run")  # 40 + 40 <= 100
    clock.now = 70
    budget.ran(30)  # the longest stays 40
    with pytest.raises(OutOfBudget, match=r"the 100 s budget \(--budget\) left no time for a third run "
                                          r"\(70 s spent, about 40 s a run\)"):
        budget.check("a third run")


def test_before_a_run_is_measured_the_recorded_run_stands_in_for_it():
    clock = _Clock()
    budget = Budget(100, clock, recorded_run_s=120)  # a UNet whose record run took 120 s
    with pytest.raises(OutOfBudget, match=r"left no time for the first run \(0 s spent, about 120 s a run as recorded\)"):
        budget.check("the first run")
    quick = Budget(100, clock, recorded_run_s=60)
    quick.check("the first run")
    clock.now = 30
    quick.ran(30)  # the re-run, warm, took 30 s: it, not the record, judges from now on
    quick.check("a second run")  # 30 + 30 <= 100 (60 + 60 would not be)
    quick.check("two more runs", runs=2)


def test_a_set_of_several_runs_is_judged_whole_and_no_budget_never_stops():
    clock = _Clock()
    budget = Budget(100, clock)
    clock.now = 30
    budget.ran(30, runs=3)  # three runs in 30 s: 10 s each
    budget.check("four more runs", runs=4)  # 30 + 40 <= 100
    with pytest.raises(OutOfBudget):
        budget.check("eight more runs", runs=8)
    unlimited = Budget(None, clock)
    unlimited.ran(10_000)
    unlimited.check("anything", runs=100)


class _EachRunTakes100s(Budget):
    """A real flow's runs, each counted as 100 s: where the budget cuts does not depend on this machine's speed."""

    def __init__(self, seconds, recorded_run_s=None):
        self.runs = 0
        super().__init__(seconds, lambda: 100.0 * self.runs, recorded_run_s=100.0)

    def ran(self, seconds: float, runs: int = 1) -> None:
        self.runs += runs
        super().ran(100.0 * runs, runs)


# slow: three real `tdiag run`s of a two-round program
@pytest.mark.slow
@needs_git
def test_the_budget_stops_between_rounds_and_the_rounds_verified_before_it_are_applied(tmp_path, session_env,
                                                                                       monkeypatch):
    project = make_project(tmp_path, PROGRAMS / "masked_breaks.py", session_env)
    source = project.root / "masked_breaks.py"
    original = source.read_text()
    monkeypatch.setattr(rounds, "Budget", _EachRunTakes100s)
    for key, value in project.env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(project.root)
    record = str(project.record)
    # before (one run and the eager run: 200 s; the patched outputs are the unchanged run's, so no second run), round 1
    # (300 s), then round 2 would end at 400 s: past 350
    report = fix(record, load_analysis(record), FixOptions(verify=True, apply=True, repeat=1, budget=350))
    verification = report.verification
    first, second = verification.rounds
    assert first.kept and not second.kept
    assert second.why.startswith("not finished: the 350 s budget (--budget) left no time for round 2")
    # the answer names what the cut left untried, and about how long it would take
    (left,) = second.patches
    assert verification.stopped == ("the 350 s budget (--budget) left no time for round 2: all patches (1 patch), "
                                    f"run 1 of 1 (300 s spent, about 100 s a run); untried: {left.id} ({left.title}); "
                                    "about 1 more run(s) of ~100 s (~100 s)")
    # round 1 verified (the program no longer stops at the first branch) and was written, round 2 was not
    assert report.applied is not None and source.read_text() != original
    assert "torch.where" in source.read_text() and "if x.mean() > 0.1:" in source.read_text()


@needs_git
def test_a_budget_too_short_for_the_baseline_verifies_and_applies_nothing(tmp_path, session_env):
    project = make_project(tmp_path, PROGRAMS / "masked_breaks.py", session_env)
    source = project.root / "masked_breaks.py"
    original = source.read_text()
    rc, data = project.fix_json("--verify", "--apply", "--repeat", "2", "--budget", "0.5")
    # the recorded run took longer than half a second: not even the first run starts
    assert data["stopped"].startswith("the 0.5 s budget (--budget) left no time for the program unpatched, run 1 of 1")
    assert "s a run as recorded)" in data["stopped"]
    # nothing verified, and what was planned is named with the runs it would take (its first run, the eager one,
    # round 1's patched run)
    assert "nothing verified; untried: CRS001@masked_breaks.py:9 (Compute `x` with torch.where" in data["stopped"]
    assert "; about 3 more run(s) of ~" in data["stopped"]
    assert data["verification"] == [] and source.read_text() == original
    assert rc == 0
    saved = project.record / "fix" / "verification.json"
    assert saved.exists()


def test_budget_needs_verify_and_a_positive_number(tmp_path, session_env):
    project = make_project(tmp_path, PROGRAMS / "masked_breaks.py", session_env)
    for args, words in ((("--budget", "10"), "use it with --verify"),
                        (("--verify", "--budget", "0"), "positive number of seconds")):
        proc = project.fix(*args)
        assert proc.returncode == 2 and words in proc.stderr
