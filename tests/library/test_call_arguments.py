"""torch's name for a guarded value mapped to the user's expression at the call (libcst only, no torch)."""

from __future__ import annotations

import libcst as cst
import pytest
from tdiag.analyzer.suggestions.helpers.call_arguments import is_reference, parse_subject, user_expression
from tdiag.analyzer.suggestions.helpers.context import NoPatch


def mapped(call: str, subject: str, params=None) -> str:
    node = cst.parse_expression(call)
    return cst.Module([]).code_for_node(user_expression(node, subject, params))


@pytest.mark.parametrize(("call", "subject", "params", "expected"), [
    ("cmodel(input_ids=ids, labels=ids)", "kwargs['input_ids']", None, "ids"),
    ("cmodel(input_ids=ids, labels=ids)", "L['kwargs']['labels']", None, "ids"),
    ("model(**batch)", "kwargs['input_ids']", None, 'batch["input_ids"]'),
    ("model(**batch)", "input_ids", None, 'batch["input_ids"]'),
    ("model(x, y)", "args[1]", None, "y"),
    ("model(x, y)", "L['args'][0]", None, "x"),
    ("step(b)", "L['batch']['ids']", ["batch"], 'b["ids"]'),
    ("step(data=b)", "data.x", ["data"], "b.x"),
    ("step(xs)", "L['inputs'][1]", ["inputs"], "xs[1]"),
    ("step(t)", "L['x']", ["x"], "t"),
])
def test_mapped_to_the_users_expression(call, subject, params, expected):
    assert mapped(call, subject, params) == expected


@pytest.mark.parametrize(("call", "subject"), [
    ("model(*xs)", "args[0]"),
    ("model(x)", "kwargs['input_ids']"),
    ("model(x)", "self.weight"),
    ("model(x)", "___stack0[0]"),
])
def test_not_visible_at_the_call(call, subject):
    with pytest.raises(NoPatch):
        mapped(call, subject, None if subject != "___stack0[0]" else ["x"])


def test_parse_and_reference():
    s = parse_subject("L['kwargs']['batch'][0].ids")
    assert s.root == "kwargs" and len(s.path) == 3
    assert parse_subject("x.size()") is None
    assert is_reference(cst.parse_expression('batch["input_ids"]'))
    assert not is_reference(cst.parse_expression("torch.randn(2)"))
