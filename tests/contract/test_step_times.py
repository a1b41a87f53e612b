"""scripts/test ends with a table of each step's wall time against its budget (issue 65, scripts/step-times.sh): the
rows say ok, failed, over budget, stopped at budget or skipped, on stderr, and decide no exit status."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _table(calls: str) -> subprocess.CompletedProcess:
    script = f"set -euo pipefail; source scripts/step-times.sh; SECONDS=1800; {calls}; step_table"
    return subprocess.run(["bash", "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60)


def test_each_step_against_its_budget_on_stderr():
    done = _table('step_row "suite" 867 720 0 0; step_row "slow" 1230 1200 124 1; '
                  'step_row "slow again" 893 1200 1 1; step_row "oracle" 63 600 0 1; step_row "oracle" 0 0 skipped 1')
    assert done.returncode == 0 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert lines[0] == "scripts/test: each step's wall time against its budget"
    assert re.fullmatch(r"suite +14m 27s +12m 00s +ok, over budget", lines[2]), done.stderr
    assert re.fullmatch(r"slow +20m 30s +20m 00s +stopped at budget", lines[3])
    assert re.fullmatch(r"slow again +14m 53s +20m 00s +failed \(exit 1\)", lines[4])
    assert re.fullmatch(r"oracle +1m 03s +10m 00s +ok", lines[5])
    assert re.fullmatch(r"oracle +- +- +skipped", lines[6])
    assert re.fullmatch(r"whole run \(installs included\) +30m 0\ds", lines[7])  # SECONDS ticks on while bash runs


def test_scripts_test_reports_its_three_steps_and_keeps_its_exit_status():
    text = (REPO / "scripts" / "test").read_text()
    assert "source scripts/step-times.sh" in text
    assert text.count("step_row ") == 4  # the suite, the slow step, the oracle step run or skipped
    assert 'suite_budget=${TDIAG_SUITE_BUDGET_S:-720}' in text
    assert re.search(r'step_row \'suite \(-m "not slow"\)\' .*"\$suite_budget" "\$status" 0\n', text)
    assert text.rstrip().endswith('step_table\nexit "$status"')
