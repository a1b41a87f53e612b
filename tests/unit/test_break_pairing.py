"""Break-hook events are paired with torch's break artifacts by what they say (line, code name, type), not only by
the order they arrived in."""

from __future__ import annotations

from tdiag.analyzer.build import pick_hook
from tdiag.analyzer.torch_text import ParsedBreak, ParsedFrame


def hook(line, code_name, gb_type):
    return {"filename": "/p/train.py", "line": line, "code_name": code_name, "gb_type": gb_type}


def artifact(line, function, reason):
    return ParsedBreak(path="/p/train.py", line=line, reason=reason,
                       user_stack=[ParsedFrame("/p/train.py", 3, "<module>"), ParsedFrame("/p/train.py", line, function)])


def test_hooks_arriving_in_the_other_order_are_paired_by_what_they_say():
    queue = [hook(20, "step", "Unsupported Tensor.item() call"), hook(12, "step", "Data-dependent branching")]
    first = pick_hook(queue, artifact(12, "step", "Data-dependent branching"))
    assert first["line"] == 12
    assert pick_hook(queue, artifact(20, "step", "Unsupported Tensor.item() call"))["line"] == 20
    assert queue == [] and pick_hook(queue, artifact(20, "step", "x")) is None


def test_the_code_name_and_the_type_decide_when_the_line_cannot():
    # an inlined call: the hook sees the CALL in the outer frame, on a line the artifact's stack also has
    queue = [hook(3, "helper", "Data-dependent branching"), hook(3, "step", "Tensor.item")]
    assert pick_hook(queue, artifact(9, "step", "Tensor.item"))["code_name"] == "step"


def test_nothing_to_tell_them_apart_keeps_arrival_order():
    queue = [hook(50, "a", "x"), hook(51, "b", "y")]
    assert pick_hook(queue, ParsedBreak(reason="z"))["line"] == 50
