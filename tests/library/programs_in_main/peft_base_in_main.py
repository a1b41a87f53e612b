"""A LoRA GPT-2 whose base model is compiled (`torch.compile(model.get_base_model())`), everything inside `main()`:
transformers' loss_type warning breaks in every forward with labels. At exit it prints torch's own count of graph
breaks (the oracle the test reads)."""

import torch
from peft import LoraConfig, get_peft_model
from torch._dynamo.utils import counters
from transformers import GPT2Config, GPT2LMHeadModel


def main():
    torch.manual_seed(0)
    base = GPT2LMHeadModel(GPT2Config(vocab_size=64, n_positions=32, n_embd=32, n_layer=1, n_head=2))
    model = get_peft_model(base, LoraConfig(r=4, lora_alpha=8, target_modules=["c_attn"], fan_in_fan_out=True))
    compiled = torch.compile(model.get_base_model(), backend="eager")
    ids = torch.randint(0, 64, (2, 8))
    for _ in range(3):
        out = compiled(input_ids=ids, labels=ids)  # EXPECT: transformers-loss-type-warning
    print(f"loss {out.loss.item():.4f}")
    print("graph breaks", sum(counters["graph_break"].values()))


main()
