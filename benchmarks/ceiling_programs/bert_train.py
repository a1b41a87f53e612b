"""transformers BERT (a tiny config, built from it: no download) fine-tuned for classification with a sequence
length that changes per batch and an accuracy read with `.item()` inside the compiled step."""

import torch
from _timing import StepTimer, program_arguments
from transformers import BertConfig, BertForSequenceClassification


def main() -> None:
    args = program_arguments(steps=24)

    torch.manual_seed(0)
    config = BertConfig(num_hidden_layers=2, num_attention_heads=2, hidden_size=64, intermediate_size=128,
                        vocab_size=256, max_position_embeddings=128, num_labels=2)
    model = BertForSequenceClassification(config).to(args.device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

    def train_step(ids, labels):
        out = model(input_ids=ids, labels=labels)
        correct = (out.logits.argmax(-1) == labels).sum().item()
        return out.loss, correct

    step = torch.compile(train_step, backend=args.backend)
    timer = StepTimer(warmup=8, device=args.device)
    seen = right = 0
    for i in range(args.steps):
        ids = torch.randint(0, 256, (8, 16 + 8 * (i % 3)), device=args.device)
        labels = torch.randint(0, 2, (8,), device=args.device)
        timer.start()
        loss, correct = step(ids, labels)
        loss.backward()
        opt.step()
        opt.zero_grad()
        timer.stop()
        seen, right = seen + 8, right + correct
    print(f"accuracy {right / seen:.3f}")


if __name__ == "__main__":
    main()
