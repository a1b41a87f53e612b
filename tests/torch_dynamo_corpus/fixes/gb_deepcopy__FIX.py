# FIX (clone the tensors instead of copy.deepcopy)
# Source: graph-break registry entry GB0179 "copy.deepcopy()" (torch/_dynamo/graph_break_registry.json),
# "Dynamo does not support copy.deepcopy()". Exact torch test name not verified.
import copy

import torch


@torch.compile(backend="eager")
def snapshot_and_update(state, x):
    old = {k: v.clone() for k, v in state.items()}
    state["w"] = state["w"] + x
    return old["w"].sum() + state["w"].sum()


state = {"w": torch.zeros(3)}
for i in range(3):
    s = snapshot_and_update(state, torch.ones(3))
print("s:", s.item(), "w:", state["w"].tolist())
