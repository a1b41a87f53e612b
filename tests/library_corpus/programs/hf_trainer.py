"""transformers Trainer with TrainingArguments(torch_compile=True) and a causal-LM collator that pads each batch to
its longest sequence, as transformers' language-modeling guide shows (tiny GPT-2 and word-level tokenizer: no
downloads). It prints its metrics as the Trainer does: train_runtime and *_per_second beside train_loss."""

import tempfile  # noqa: I001 (one parenthesised import keeps the lines expected.json names)

import torch
from tokenizers import Tokenizer
from tokenizers.models import WordLevel
from tokenizers.pre_tokenizers import Whitespace
from transformers import (DataCollatorForLanguageModeling, GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast,
                          Trainer, TrainingArguments)

torch.manual_seed(0)
words = ["the", "cat", "sat", "on", "a", "mat", "dog", "ran", "far", "away"]
vocab = {"[PAD]": 0, "[UNK]": 1, **{w: i + 2 for i, w in enumerate(words)}}
backend = Tokenizer(WordLevel(vocab, unk_token="[UNK]"))
backend.pre_tokenizer = Whitespace()
tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="[PAD]", unk_token="[UNK]")

texts = [" ".join(words[: 3 + (i * 3) % 7]) for i in range(16)]
dataset = [{"input_ids": tokenizer(t)["input_ids"]} for t in texts]
collator = DataCollatorForLanguageModeling(tokenizer=tokenizer, mlm=False)

model = GPT2LMHeadModel(GPT2Config(vocab_size=len(vocab), n_positions=32, n_embd=32, n_layer=1, n_head=2))
args = TrainingArguments(output_dir=tempfile.mkdtemp(), per_device_train_batch_size=4, max_steps=8, use_cpu=True,
                         torch_compile=True, torch_compile_backend="aot_eager", report_to=[], save_strategy="no",
                         logging_steps=4, disable_tqdm=True, seed=0, dataloader_num_workers=0)
trainer = Trainer(model=model, args=args, train_dataset=dataset, data_collator=collator)

result = trainer.train()
print(result.metrics)
