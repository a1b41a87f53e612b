"""`tdiag fix` end to end: real programs recorded by `tdiag run`, patched, re-run, compared, applied and undone.

Expectations are an expert's, written by hand: examples/train.py has one branch, one `.item()` and one batch-size
change; with all three fixed, Dynamo compiles the model once (one graph, no breaks, no recompiles) and the printed
loss is bit-identical, because torch.where, a 0-d tensor and a dynamic batch compute the same values.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from ._project import EXAMPLES, PROGRAMS, make_project, record

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="the fix loop's git checks need git")


@pytest.fixture(scope="module")
def train(tmp_path_factory, session_env):
    # one epoch: the fix loop's checks need no more (the four epochs' output is identical too, since the .item()
    # patch keeps the value detached as .item() did)
    return make_project(tmp_path_factory.mktemp("train"), EXAMPLES / "train.py", session_env, "--epochs", "1")


@pytest.fixture(scope="module")
def train_verified(train):
    """`--verify --each --apply` once on the example (five runs: before, all patches, each of three alone)."""
    original = (train.root / "train.py").read_text()
    code, data = train.fix_json("--verify", "--each", "--apply", "--repeat", "1")
    return code, data, original


def test_listing_shows_each_patch_as_a_diff_without_touching_files(train):
    before = (train.root / "train.py").read_bytes()
    proc = train.fix()
    assert proc.returncode == 0, proc.stderr[-2000:]
    for code in ("BRK001", "BRK002", "RCP001"):
        assert f"{code}@train.py:" in proc.stdout
    assert "+        h = torch.where(" in proc.stdout
    assert "+            torch._dynamo.mark_dynamic(x, 0)" in proc.stdout
    assert (train.root / "train.py").read_bytes() == before


def test_verify_all_patches_on_the_example(train_verified, train):
    code, data, _ = train_verified
    assert code == 0, data
    together = data["verification"][0]
    assert together["label"] == "all patches" and together["ok"]
    assert sorted(together["patches"]) == sorted(p["id"] for p in data["patches"] if p["applied_together"])
    before, after = together["before"], together["after"]
    assert before["graph_breaks"] >= 2 and before["recompiles"] >= 1  # the example's own marked problems
    assert after["graphs"] == 1 and after["graph_breaks"] == 0 and after["recompiles"] == 0
    assert after["graphs"] < before["graphs"]
    assert together["stdout_identical"] and before["exit_code"] == after["exit_code"] == 0
    assert {"BRK001", "BRK002", "RCP001"} <= set(together["gone"])


def test_each_patch_is_measured_alone(train_verified):
    _, data, _ = train_verified
    alone = {c["label"]: c for c in data["verification"][1:]}
    by_code = {p["codes"][0]: p["id"] for p in data["patches"]}
    assert set(alone) == {p["id"] for p in data["patches"] if p["applied_together"]}
    # Each patch alone removes its own finding and nothing the others fix.
    assert alone[by_code["BRK001"]]["after"]["findings"].get("BRK001") is None
    assert alone[by_code["BRK001"]]["after"]["findings"].get("BRK002")
    assert alone[by_code["RCP001"]]["after"]["recompiles"] < alone[by_code["RCP001"]]["before"]["recompiles"]
    # Breaks are logged per compile, so fewer recompiles log fewer; both break sites are still there.
    assert {"BRK001", "BRK002"} <= set(alone[by_code["RCP001"]]["after"]["findings"])
    assert all(c["stdout_identical"] for c in alone.values())


def test_apply_writes_the_verified_text_and_undo_restores_it(train_verified, train):
    _, data, original = train_verified
    assert data["applied"]["files"] == ["train.py"]
    patched = (train.root / "train.py").read_text()
    assert "torch.where(" in patched and "mark_dynamic(x, 0)" in patched and ".item()  #" not in patched
    assert "# data-dependent branch: a graph break (BRK001)" in patched  # comments kept
    assert (Path(data["applied"]["backup"]) / "train.py").read_text() == original
    # Applying again is refused: the file no longer matches the record's snapshot.
    again = train.fix("--apply")
    assert again.returncode == 2 and "changed since the capture" in again.stdout
    assert (train.root / "train.py").read_text() == patched
    undone = train.fix("--undo")
    assert undone.returncode == 0, undone.stderr
    assert (train.root / "train.py").read_text() == original
    assert train.git("status", "--porcelain") == ""


def test_verification_is_saved_next_to_the_record(train_verified, train):
    saved = json.loads((train.record / "fix" / "verification.json").read_text())
    assert saved["verification"][0]["after"]["graphs"] == 1


def _lint(project) -> tuple[dict, str]:
    """The record's findings as lint's JSON and its full text, after the saved verification."""
    import subprocess
    import sys

    def lint(*args):
        return subprocess.run([sys.executable, "-m", "tdiag", "lint", str(project.record), *args], cwd=project.root,
                              env=project.env, capture_output=True, text=True, timeout=300).stdout
    return {f"{f['code']}@{f['filename']}:{f['location']['row']}": f for f in json.loads(lint("--format", "json"))}, lint()


def test_a_fix_line_is_verified_once_its_patch_was_kept(train_verified, train):
    """Before `fix --verify` every fix line asks for a change nobody measured: "unverified". After it, each finding
    whose patch a round kept says "verified" with what the round measured, in lint's JSON and its text alike."""
    _, data, _ = train_verified
    kept = {key for p in data["kept"] for key in next(q["findings"] for q in data["patches"] if q["id"] == p["id"])}
    assert {k.split("@")[0] for k in kept} >= {"BRK001", "BRK002", "RCP001"}
    findings, text = _lint(train)
    for key in kept:
        assert findings[key]["fix"]["status"] == "verified", (key, findings[key]["fix"])
        assert "graph breaks" in findings[key]["fix"]["verdict"] or "recompil" in findings[key]["fix"]["verdict"]
    assert "= help (verified by `tdiag fix --verify`: " in text


def test_a_fix_line_is_refused_when_its_patch_changed_the_exit_code(exit_changed):
    project, _, _, data = exit_changed
    [patch] = [p for p in data["patches"] if p["applied_together"]]
    findings, _ = _lint(project)
    [key] = patch["findings"][:1]
    assert findings[key]["fix"]["status"] == "refused" and "exit code" in findings[key]["fix"]["verdict"]


def test_select_and_ignore_pick_rule_codes(train):
    _, data = train.fix_json("--select", "BRK")
    assert {c for p in data["patches"] for c in p["codes"]} <= {"BRK001", "BRK002"} and data["patches"]
    _, data = train.fix_json("--ignore", "BRK,DYN")
    assert {c for p in data["patches"] for c in p["codes"]} == {"RCP001"}


@pytest.fixture(scope="module")
def exit_changed(tmp_path_factory, session_env):
    """`--verify --apply --repeat 2` once on a program whose only patch changes its exit code (3 -> 0)."""
    project = make_project(tmp_path_factory.mktemp("exit"), PROGRAMS / "exit_on_break.py", session_env)
    original = (project.root / "exit_on_break.py").read_text()
    code, data = project.fix_json("--verify", "--apply", "--repeat", "2")
    return project, original, code, data


def test_a_patch_that_changes_the_exit_code_is_dropped_and_not_applied(exit_changed):
    project, original, code, data = exit_changed
    assert code == 1
    result = data["verification"][0]
    assert not result["ok"] and result["kept"] is False
    assert data["applied"] is None and "not applied" in data["not_applied"]
    assert (project.root / "exit_on_break.py").read_text() == original


def test_a_patch_that_changes_the_exit_code_is_reported_after_one_run(exit_changed):
    _, _, code, data = exit_changed
    assert code == 1
    result = data["verification"][0]
    assert result["before"]["exit_code"] == 3 and result["after"]["exit_code"] == 0
    assert any("exit code" in p for p in result["problems"])
    # the exit code is read from the first run: a second could not take the refusal back, so the patched side runs once
    # (the unchanged program ran once, and a second time only where the patched output differed from its first run's:
    # the output's own spread needs two runs)
    assert result["before"]["runs"] == (1 if result["stdout_identical"] else 2) and result["after"]["runs"] == 1


@pytest.fixture
def branchy(tmp_path, session_env):
    return make_project(tmp_path, PROGRAMS / "branchy.py", session_env)


def test_stale_file_is_refused(branchy):
    path = branchy.root / "branchy.py"
    edited = path.read_text().replace("y = y + 1", "y = y + 2")
    path.write_text(edited)
    proc = branchy.fix("--apply")
    assert proc.returncode == 2 and "changed since the capture" in proc.stdout
    assert path.read_text() == edited
    assert not (branchy.record / "fix").exists() or not list((branchy.record / "fix").glob("undo-*.json"))


def test_uncommitted_file_is_refused_unless_forced(branchy):
    # Recorded with an uncommitted edit: the snapshot matches the file, but git does not have it.
    path = branchy.root / "branchy.py"
    path.write_text(path.read_text().replace("torch.manual_seed(0)", "torch.manual_seed(1)"))
    project = record(branchy.root, branchy.record.with_name("record-dirty"), branchy.env, "branchy.py")
    uncommitted = path.read_text()
    proc = project.fix("--apply")
    assert proc.returncode == 2 and "uncommitted" in proc.stdout
    assert path.read_text() == uncommitted
    forced = project.fix("--apply", "--force")
    assert forced.returncode == 0, forced.stdout + forced.stderr
    assert "torch.where(" in path.read_text() and "manual_seed(1)" in path.read_text()


def test_undo_keeps_edits_made_after_the_fix(branchy):
    path = branchy.root / "branchy.py"
    original = path.read_text()
    assert branchy.fix("--apply").returncode == 0
    path.write_text(path.read_text() + "# my own edit\n")
    proc = branchy.fix("--undo")
    assert proc.returncode == 2 and "changed after" in proc.stderr
    assert path.read_text().endswith("# my own edit\n")
    assert branchy.fix("--undo", "--force").returncode == 0
    assert path.read_text() == original


def test_html_report_shows_the_verification(train_verified, train, tmp_path):
    import subprocess
    import sys
    from html.parser import HTMLParser

    _, data, _ = train_verified
    out = tmp_path / "report.html"
    proc = subprocess.run([sys.executable, "-m", "tdiag", "report", str(train.record), "-o", str(out)],
                          env=train.env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]

    class Rows(HTMLParser):
        """The cells of the first table in the #verification section."""

        def __init__(self):
            super().__init__()
            self.inside = self.in_table = False
            self.rows, self.cell = [], None

        def handle_starttag(self, tag, attrs):
            if tag == "section":
                self.inside = dict(attrs).get("id") == "verification"
            elif self.inside and tag == "table" and not self.rows:
                self.in_table = True
            elif self.in_table and tag == "tr":
                self.rows.append([])
            elif self.in_table and tag in ("td", "th"):
                self.cell = ""

        def handle_endtag(self, tag):
            if tag == "table":
                self.in_table = False
            elif self.in_table and tag in ("td", "th") and self.cell is not None:
                self.rows[-1].append(self.cell.strip())
                self.cell = None

        def handle_data(self, text):
            if self.cell is not None:
                self.cell += text

    parser = Rows()
    parser.feed(out.read_text())
    table = {row[0]: row[1:] for row in parser.rows if row}
    together = data["verification"][0]
    assert table["graphs"] == [str(together["before"]["graphs"]), "1"]
    assert table["recompiles"] == [str(together["before"]["recompiles"]), "0"]
    assert table["stdout identical"] == ["", "yes"]
    # and what the round kept, and why: the three patches together paid (fewer graphs)
    kept = ", ".join(sorted(p["id"] for p in data["patches"] if p["applied_together"]))
    outcome = re.search(r'<p class="round-outcome">Round 1 keeps (.*?): together they verified and paid: ([^<]*)</p>',
                        out.read_text())
    assert outcome and ", ".join(sorted(outcome.group(1).split(", "))) == kept and "fewer graphs" in outcome.group(2)
