"""torch 2.14.1's own crash, from a record made under it (tests/crash/records/item_format-2.14.1, paths made
relative; this suite's torch runs the program without the crash). Under plain 2.14.1 the program exits 1 with
InternalTorchDynamoError: ValueError: Unknown format code 'f' for object of type 'str', and under `tdiag run -q` with
the same exit code, stdout and stderr (checked when the record was made). It is torch's bug, not CRS099's "fix
what torch names"."""

from __future__ import annotations

from pathlib import Path

from tdiag.analyzer import build

RECORD = Path(__file__).parent / "records" / "item_format-2.14.1"


def test_torch_2_14_1s_format_crash_is_named_a_torch_bug():
    analysis = build(RECORD)
    assert analysis.run.torch_version.startswith("2.14.1") and analysis.run.exit_code == 1
    crash = analysis.summary.crash
    assert crash.exception == "torch._dynamo.exc.InternalTorchDynamoError" and crash.kind == "torch_internal"
    first = analysis.findings[0]
    assert (first.code, first.path, first.line) == ("CRS008", "item_format.py", 12)
    assert first.message.startswith("the program stopped: torch.compile failed inside torch 2.14 (a torch bug, not "
                                    "your code): ValueError: Unknown format code 'f' for object of type 'str'")
    assert [f.code for f in analysis.findings if f.family == "CRS"] == ["CRS008"]
    # the line is in the compiled function itself: it moves into a new disabled helper, the rest stays compiled
    assert first.suggestion.patch and "+    _eager_print(step, val)" in first.suggestion.patch.splitlines()
    assert "report it to PyTorch (github.com/pytorch/pytorch/issues): torch 2.14.1" in first.suggestion.alternatives[-1]
