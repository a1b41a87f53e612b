"""The read-after-call patch kind (BRK002's `.item()` and BRK004's print at the end of a compiled function): the
exact text it writes, that both findings get the one patch, the candidates after it, and each refusal's reason.

Builders alone (libcst over a source snapshot, no torch); through `tdiag fix --verify` on a real program in
tests/fix/test_new_patches.py (loss_log.py). Expected texts are the hand fix of the ceiling programs' gpt2_train.
"""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest
from tdiag.analyzer.model import Analysis, Finding
from tdiag.analyzer.suggestions import apply_patch, logging_call, scalar_item
from tdiag.analyzer.suggestions.helpers import read_after_call
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree

STEP = textwrap.dedent("""\
    import torch


    def main():
        model = torch.nn.Linear(4, 1)

        def train_step(ids):
            loss = model(ids).sum()
            val = loss.item()
            print(f"loss {val:.4f}")
            return loss

        step = torch.compile(train_step)
        for i in range(3):
            loss = step(torch.randn(2, 4))
            loss.backward()
""")

MOVED = textwrap.dedent("""\
    import torch


    def main():
        model = torch.nn.Linear(4, 1)

        def train_step(ids):
            loss = model(ids).sum()
            return loss

        step = torch.compile(train_step)
        for i in range(3):
            loss = step(torch.randn(2, 4))
            val = loss.item()
            print(f"loss {val:.4f}")
            loss.backward()
""")


def _ctx(text: str) -> SuggestionContext:
    return SuggestionContext(Analysis(sources={"train.py": text}))


def _finding(code: str, line: int, column: int | None = None) -> Finding:
    return Finding(code=code, name="x", severity="warning", message="m", fix="f", path="train.py", line=line,
                   column=column, function="train_step")


def _build(text: str, line: int):
    tree = SourceTree.parse("train.py", text)
    return read_after_call.build(tree, tree.statement_at(cst.SimpleStatementLine, line))


def test_the_item_and_the_print_move_after_the_call_as_the_hand_fix_writes_them():
    suggestion = scalar_item.suggest(_finding("BRK002", 9), _ctx(STEP))
    assert suggestion.title == "Read `loss` after the call: move lines 9-10 of `train_step` after its call (line 15)"
    assert apply_patch(STEP, suggestion.patch) == MOVED
    # the scalar captured in the graph is the next candidate, tried when the move does not verify and pay
    assert [c.title for c in suggestion.candidates] == ["Set torch._dynamo.config.capture_scalar_outputs = True"]


def test_the_print_finding_gets_the_same_patch_so_the_plan_merges_them():
    item = scalar_item.suggest(_finding("BRK002", 9), _ctx(STEP))
    printed = logging_call.suggest(_finding("BRK004", 10), _ctx(STEP))
    assert printed.patch == item.patch
    assert [c.title for c in printed.candidates] == [
        "Let Dynamo replay `print(...)` after the graph (reorderable_logging_functions)"]


def test_the_callers_name_for_the_result_replaces_the_functions():
    text = STEP.replace("        loss = step(torch.randn(2, 4))\n        loss.backward()",
                        "        out = step(torch.randn(2, 4))\n        out.backward()")
    new = apply_patch(text, _build(text, 9).patch)
    assert "        out = step(torch.randn(2, 4))\n        val = out.item()\n" in new
    assert '        print(f"loss {val:.4f}")\n        out.backward()' in new


def test_a_kept_list_and_a_branch_of_prints_move_whole():
    # Lightning-style bookkeeping in a plain compiled step: the loss kept in a list, printed every other step
    text = STEP.replace('        val = loss.item()\n        print(f"loss {val:.4f}")\n',
                        '        losses.append(loss.item())\n        if len(losses) % 2 == 0:\n'
                        '            print(f"loss {losses[-1]:.4f}")\n').replace("import torch\n", "import torch\n\nlosses = []\n")
    suggestion = _build(text, 13)  # the print inside the branch: the whole `if` moves
    new = apply_patch(text, suggestion.patch)
    assert suggestion.title == "Read `loss` after the call: move lines 11-13 of `train_step` after its call (line 18)"
    assert new.endswith('    for i in range(3):\n'
                        '        loss = step(torch.randn(2, 4))\n'
                        '        losses.append(loss.item())\n'
                        '        if len(losses) % 2 == 0:\n'
                        '            print(f"loss {losses[-1]:.4f}")\n'
                        '        loss.backward()\n')
    assert "        loss = model(ids).sum()\n        return loss\n" in new


def test_a_decorated_function_is_found_by_its_own_name():
    text = textwrap.dedent("""\
        import torch


        @torch.compile
        def step(x):
            y = x.sum()
            print("sum", y.item())
            return y


        total = step(torch.ones(3))
    """)
    new = apply_patch(text, _build(text, 7).patch)
    assert new.endswith('total = step(torch.ones(3))\nprint("sum", total.item())\n')
    assert "    y = x.sum()\n    return y\n" in new


@pytest.mark.parametrize("change, line, reason", [
    # the print reads the function's argument, which the caller does not have by that name
    (("print(f\"loss {val:.4f}\")", "print(f\"loss {val:.4f} {ids.shape}\")"), 10, "read `ids`"),
    # the call's result is not kept in a name: the moved lines would have nothing to read
    (("loss = step(torch.randn(2, 4))\n        loss.backward()", "step(torch.randn(2, 4)).backward()"), 9,
     "does not keep the result in a name"),
    # the name the moved lines assign is the caller's already
    (("for i in range(3):", "val = 0\n    for i in range(3):"), 9, "`val` is already used"),
    # the branch holding the read also does device work, which must stay compiled
    (("val = loss.item()\n        print(f\"loss {val:.4f}\")",
      "if True:\n            print(loss.item())\n            model.zero_grad()"), 10,
     "calls `model.zero_grad`, which is not a print or logging call"),
    # device work after the read: moving it would take it out of the compiled function
    (("print(f\"loss {val:.4f}\")", "loss = loss * 2"), 9, "reassigns `loss`"),
    # the function does not end with `return <name>`
    (("return loss", "return loss * 2"), 9, "does not end with `return <name>`"),
])
def test_refusals_name_what_the_move_would_change(change, line, reason):
    text = STEP.replace(*change)
    assert text != STEP
    with pytest.raises(NoPatch, match=reason):
        _build(text, line)


def test_an_uncompiled_call_of_the_same_function_is_refused():
    text = STEP.replace("    step = torch.compile(train_step)\n",
                        "    train_step(torch.randn(2, 4))\n    step = torch.compile(train_step)\n")
    with pytest.raises(NoPatch, match="also called uncompiled"):
        _build(text, 9)


def test_a_refused_move_leaves_capture_scalar_outputs_first():
    text = STEP.replace("print(f\"loss {val:.4f}\")", "print(f\"loss {val:.4f} {ids.shape}\")")
    suggestion = scalar_item.suggest(_finding("BRK002", 9), _ctx(text))
    assert suggestion.title == "Set torch._dynamo.config.capture_scalar_outputs = True"
    assert suggestion.candidates == []


RETURNED = textwrap.dedent("""\
    import torch


    def main():
        model = torch.nn.Linear(4, 2)

        def train_step(x, labels):
            out = model(x)
            correct = (out.argmax(-1) == labels).sum().item()
            return out.sum(), correct

        step = torch.compile(train_step)
        right = 0
        for i in range(3):
            loss, correct = step(torch.randn(8, 4), torch.randint(0, 2, (8,)))
            loss.backward()
            right += correct
""")


def test_a_returned_count_stays_a_tensor_and_the_caller_reads_it_after_the_call():
    """bert_train's shape: the hand fix returns the count as a tensor and reads it with .item() after the call."""
    suggestion = scalar_item.suggest(_finding("BRK002", 9), _ctx(RETURNED))
    assert suggestion.title == "Return the tensor and call .item() after the call (line 15)"
    new = apply_patch(RETURNED, suggestion.patch)
    assert "        correct = (out.argmax(-1) == labels).sum()\n        return out.sum(), correct\n" in new
    assert ("        loss, correct = step(torch.randn(8, 4), torch.randint(0, 2, (8,)))\n"
            "        correct = correct.item()\n        loss.backward()\n") in new
    assert [c.title for c in suggestion.candidates] == ["Set torch._dynamo.config.capture_scalar_outputs = True"]


def test_a_read_in_the_return_itself_returns_the_tensor():
    """unet_step's shape: `return loss, loss.item()`."""
    text = RETURNED.replace("        correct = (out.argmax(-1) == labels).sum().item()\n        return out.sum(), correct",
                        "        loss = out.sum()\n        return loss, loss.item()")
    suggestion = scalar_item.suggest(_finding("BRK002", 10), _ctx(text))
    new = apply_patch(text, suggestion.patch)
    assert "        return loss, loss\n" in new
    assert "        loss, correct = step(torch.randn(8, 4), torch.randint(0, 2, (8,)))\n        correct = correct.item()\n" in new


@pytest.mark.parametrize("change, reason", [
    # the count is also used inside the function: returning a tensor would change that use
    (("return out.sum(), correct", "return out.sum() * correct, correct"), "besides being returned"),
    # a caller keeps the pair whole: there is no name to read the value into
    (("loss, correct = step(", "pair = step("), "one name per value"),
])
def test_returned_refusals(change, reason):
    text = RETURNED.replace(*change)
    assert text != RETURNED
    tree = SourceTree.parse("train.py", text)
    (read,) = [c for c in tree.nodes(cst.Call) if isinstance(c.func, cst.Attribute) and c.func.attr.value == "item"]
    with pytest.raises(NoPatch, match=reason):
        read_after_call.build_returned(tree, read)


def test_a_caller_name_the_lines_read_as_a_global_is_refused():
    """Moved after `loss = step(...)`, a print of the global `loss` would show the value the call just returned."""
    text = textwrap.dedent("""\
        import torch

        loss = 0.0


        @torch.compile
        def step(x):
            y = x.sum()
            print(loss, y.item())
            return y


        loss = step(torch.ones(3))
    """)
    with pytest.raises(NoPatch, match="`loss` is already used"):
        _build(text, 9)


def test_names_an_elif_chain_assigns_are_found_in_every_branch():
    # `tag` is bound in the elif's and the else's branches: the caller's own `tag` must stop the move
    text = STEP.replace('        val = loss.item()\n        print(f"loss {val:.4f}")\n',
                        '        if loss.item() > 1:\n            print("high")\n'
                        '        elif loss.item() > 0:\n            tag = "low"\n'
                        '        else:\n            tag = "neg"\n').replace(
        "    for i in range(3):\n", "    tag = None\n    for i in range(3):\n")
    assert "    tag = None\n" in text
    with pytest.raises(NoPatch, match="`tag` is already used"):
        _build(text, 10)
