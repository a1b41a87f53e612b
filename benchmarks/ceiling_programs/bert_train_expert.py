"""The expert version: the hand-fixed program (bert_train_fixed.py) plus what torch's documentation gives for a small
step on a GPU: the compiled callable under mode="reduce-overhead" (CUDA graphs; `_timing.cuda_graphs`: only with
Inductor on CUDA), torch.compiler.cudagraph_mark_step_begin() before each step (the training-loop marker of the CUDA
Graph Trees docs), and the optimizer step compiled by the "torch.compile the optimizer" recipe
(`@torch.compile(fullgraph=False) def opt_step(): opt.step()`). Shapes vary over a few sizes only (marked dynamic as
in the hand fix), so CUDA graphs record once per size and then replay.

Hand-fixed: transformers BERT (a tiny config, built from it: no download) fine-tuned for classification with a
sequence length that changes per batch; hand-fixed: the accuracy count returned as a tensor and read after the call,
the sequence length marked dynamic, the step compiled whole (fullgraph=True)."""

import torch
from _timing import StepTimer, cuda_graphs, program_arguments
from transformers import BertConfig, BertForSequenceClassification


def main() -> None:
    args = program_arguments(steps=24)

    torch.manual_seed(0)
    config = BertConfig(num_hidden_layers=2, num_attention_heads=2, hidden_size=64, intermediate_size=128,
                        vocab_size=256, max_position_embeddings=128, num_labels=2)
    config.problem_type = "single_label_classification"  # transformers sets it on the first call: a recompile
    model = BertForSequenceClassification(config).to(args.device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    @torch.compile(backend=args.backend, fullgraph=False)  # torch's compiled-optimizer recipe
    def opt_step():
        opt.step()

    def train_step(ids, labels):
        out = model(input_ids=ids, labels=labels)
        correct = (out.logits.argmax(-1) == labels).sum()
        return out.loss, correct

    step = torch.compile(train_step, backend=args.backend, fullgraph=True, mode=cuda_graphs(args))
    timer = StepTimer(warmup=8, device=args.device)
    seen = right = 0
    for i in range(args.steps):
        ids = torch.randint(0, 256, (8, 16 + 8 * (i % 3)), device=args.device)
        labels = torch.randint(0, 2, (8,), device=args.device)
        torch._dynamo.mark_dynamic(ids, 1)
        torch.compiler.cudagraph_mark_step_begin()
        timer.start()
        loss, correct = step(ids, labels)
        loss.backward()
        opt_step()
        opt.zero_grad()
        timer.stop()
        seen, right = seen + 8, right + correct.item()
    print(f"accuracy {right / seen:.3f}")


if __name__ == "__main__":
    main()
