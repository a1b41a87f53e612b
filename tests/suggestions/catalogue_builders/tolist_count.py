import torch


def main():
    @torch.compile(backend="eager")
    def count_confident(z):
        probs = torch.sigmoid(z * 2).tolist()
        return sum(1 for p in probs if p > 0.7)

    total = 0
    for k in range(3):
        n = count_confident(torch.linspace(-1.0, 1.0, 5) + k * 0.1)
        total += n
    print("confident:", total)


main()
