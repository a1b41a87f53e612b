"""Regenerate sample_analysis.json: a real `tdiag run` of examples/train.py, exported as JSON.

    python tests/data/make_sample.py

Absolute paths of the machine that ran it are rewritten (repo root -> relative, site-packages -> <site-packages>)
so the file can be committed and used as the fixture Analysis for renderer tests (TUI, HTML, lint golden files).
"""

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        subprocess.run(
            [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(run), "examples/train.py"],
            cwd=REPO, check=True,
        )
        out = subprocess.run(
            [sys.executable, "-m", "tdiag", "report", str(run), "--format", "json"],
            cwd=REPO, check=True, capture_output=True, text=True,
        ).stdout
    out = re.sub(r"(?:[A-Za-z]:)?[/\\][^\"'\s]*?[/\\]site-packages[/\\]", "<site-packages>/", out)
    out = out.replace(str(REPO) + "/", "").replace(str(REPO), ".")
    out = re.sub(r"/tmp/[^\"'\s]*", "<tmp>", out)
    data = json.loads(out)
    data["run"]["started"] = 0.0
    data["run"]["duration_s"] = 1.0
    (Path(__file__).parent / "sample_analysis.json").write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
