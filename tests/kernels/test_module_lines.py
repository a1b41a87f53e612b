"""Module path -> the user's line that built it, from source snapshots alone (analyzer/module_lines.py). The expected
lines are the marked lines of the source below, written by hand."""

from __future__ import annotations

from tdiag.analyzer.module_lines import SourceIndex

SOURCE = '''\
import torch
from torch import nn
from transformers import AutoModelForCausalLM


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)  # BLOCK NORM
        self.mlp = nn.Sequential(
            nn.Linear(dim, 4 * dim),  # MLP 0
            nn.GELU(),  # MLP 1
            nn.Linear(4 * dim, dim),  # MLP 2
        )


class Encoder(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        self.layers = nn.ModuleList([Block(dim) for _ in range(depth)])  # LAYERS
        self.heads = nn.ModuleDict({"cls": nn.Linear(dim, 2)})  # HEADS


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder(16, 2)  # ENCODER
        self.tail = make_tail(16)  # TAIL
        self.pretrained = AutoModelForCausalLM.from_config(None)  # PRETRAINED


def make_tail(dim):
    return nn.Sequential(*[nn.Linear(dim, dim) for _ in range(3)])  # TAIL ITEMS


model = Net()  # MODEL
'''
PATH = "train.py"


def line(marker: str) -> int:
    return next(i for i, text in enumerate(SOURCE.splitlines(), 1) if f"# {marker}" in text)


def resolve(path: str, root: str = "Net"):
    found = SourceIndex({PATH: SOURCE}).resolve(path, root)
    return (found.ref.path, found.ref.line, found.how) if found else None


def test_attribute_and_container_arguments_through_user_classes():
    assert resolve("encoder") == (PATH, line("ENCODER"), "attribute")
    assert resolve("encoder.layers.1.norm") == (PATH, line("BLOCK NORM"), "attribute")
    assert resolve("encoder.layers.0.mlp.1") == (PATH, line("MLP 1"), "argument")
    assert resolve("encoder.layers.1.mlp.2") == (PATH, line("MLP 2"), "argument")
    assert resolve("encoder.heads.cls") == (PATH, line("HEADS"), "argument")


def test_a_user_function_that_builds_the_module():
    assert resolve("tail.2") == (PATH, line("TAIL ITEMS"), "argument")


def test_the_compiled_module_itself_and_library_submodules():
    assert resolve("") == (PATH, line("MODEL"), "constructed")
    # inside a library model: the user's line that loaded it, marked as an ancestor's line
    assert resolve("pretrained.transformer.h.0.attn") == (PATH, line("PRETRAINED"), "ancestor")


def test_a_library_root_resolves_to_the_line_that_constructed_it():
    source = "from transformers import GPT2LMHeadModel\nmodel = GPT2LMHeadModel(config)\n"
    found = SourceIndex({PATH: source}).resolve("transformer.h.0.mlp.c_fc", "GPT2LMHeadModel")
    assert (found.ref.line, found.how) == (2, "ancestor")
