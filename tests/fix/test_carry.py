"""A step-time patch a round deferred is carried into the next round on the text the kept round made
(tdiag/fixing/carry.py): the BERT fine-tune on the H200 planned a fused AdamW in round 1, round 1 kept a
mark_dynamic two lines above it, and round 2's plan (from one verification run's record) had no RUN001."""

from __future__ import annotations

from tdiag.fixing.carry import carried
from tdiag.fixing.plan import Edit, PlannedPatch, merged_text

TEXT = "\n".join([
    "import torch",                                   # 1
    "for batch in loader:",                           # 2
    "    batch = {k: v.to(dev) for k, v in batch.items()}",  # 3
    "    loss = model(**batch)",                      # 4
    "opt = torch.optim.AdamW(model.parameters())",    # 5
]) + "\n"


def _patch(code: str, edits: list[Edit], path: str = "train.py") -> PlannedPatch:
    return PlannedPatch(f"{code}@{path}", path, "", f"{code} title", [code], edits=edits)


MARK = _patch("RCP001", [Edit(3, 3, ('    torch._dynamo.mark_dynamic(batch["input_ids"], 1)',))])
FUSED = _patch("RUN001", [Edit(4, 5, ("opt = torch.optim.AdamW(model.parameters(), fused=True)",))])


def test_a_deferred_patch_moves_with_the_lines_the_kept_round_inserted():
    [moved] = carried([FUSED], [MARK], planned=[])
    after_round_1 = merged_text(TEXT, [MARK])
    after_round_2 = merged_text(after_round_1, [moved])
    assert after_round_2.splitlines()[5] == "opt = torch.optim.AdamW(model.parameters(), fused=True)"
    assert after_round_2.splitlines()[3].strip().startswith("torch._dynamo.mark_dynamic")
    assert "opt = torch.optim.AdamW(model.parameters())\n" not in after_round_2


def test_the_new_plans_own_patch_for_the_finding_wins_and_replaced_lines_drop_it():
    replanned = _patch("RUN001", [Edit(5, 6, ("opt = torch.optim.AdamW(model.parameters(), fused=True)",))])
    assert carried([FUSED], [MARK], planned=[replanned]) == []
    rewrite = _patch("BRK099", [Edit(3, 5, ("    loss = step(batch)", "opt = None"))])
    assert carried([FUSED], [rewrite], planned=[]) == []
    other_file = _patch("RUN001", FUSED.edits, path="other.py")
    assert carried([other_file], [MARK], planned=[])[0].edits == FUSED.edits  # another file's edits stay put
