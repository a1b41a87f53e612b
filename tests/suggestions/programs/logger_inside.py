"""A logger call inside compiled code: a graph break per call; the switch lets Dynamo skip it while tracing."""

import logging

import torch

logger = logging.getLogger(__name__)


@torch.compile(backend="eager")
def step(x):
    y = x * 2
    logger.info("computed y")
    return y + 1


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    for _ in range(3):
        out = step(torch.ones(3))
    print(out.tolist())
