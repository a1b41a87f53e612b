"""Three transformers models compiled the way their docs show, each hitting a cause inside transformers."""

import torch
from transformers import BertConfig, BertForSequenceClassification, GPT2Config, GPT2LMHeadModel, GPT2Model

torch.manual_seed(0)
bert = BertForSequenceClassification(BertConfig(vocab_size=64, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                                                intermediate_size=32, num_labels=3))
cbert = torch.compile(bert, backend="aot_eager")
for _ in range(2):
    ids = torch.randint(1, 64, (2, 8))
    out = cbert(input_ids=ids, labels=torch.randint(0, 3, (2,)))  # EXPECT: transformers-problem-type-guard
    print(f"{out.loss.item():.6f}")

gpt2_config = GPT2Config(vocab_size=64, n_positions=64, n_embd=32, n_layer=1, n_head=2)
lm = GPT2LMHeadModel(gpt2_config)
lm.loss_type = "ForCausalLM"
lm.gradient_checkpointing_enable()
clm = torch.compile(lm, backend="aot_eager")
for _ in range(2):
    ids = torch.randint(0, 64, (2, 8))
    out = clm(ids, labels=ids)  # EXPECT: transformers-gradient-checkpointing-use-cache
    out.loss.backward()
    print(f"{out.loss.item():.6f}")

encoder = GPT2Model(gpt2_config).eval()
cencoder = torch.compile(encoder, backend="aot_eager")
with torch.no_grad():
    for _ in range(2):
        out = cencoder(torch.randint(0, 64, (1, 8)), output_attentions=True)  # EXPECT: transformers-output-capturing-hooks
        print(f"{out.last_hidden_state.sum().item():.6f}")
