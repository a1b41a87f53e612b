import zlib

import torch


@torch.compile(backend="eager")
def checksum(x):
    y = x * 2
    return y + zlib.crc32(b"abc")


print(checksum(torch.ones(2)).tolist())
