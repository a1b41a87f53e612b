"""A fix names only what exists where it is written (analyzer/suggestions/in_scope.py): the identifiers a fix shows
as code, checked against the names the user's file binds or imports. The cases are the fixes issue 32 saw on
library programs (a Trainer program has no `input_ids` and no `opt`)."""

from tdiag.analyzer.suggestions.helpers.in_scope import unknown_names, with_placeholders

TRAINER = '''import torch
from transformers import GPT2LMHeadModel, Trainer

model = GPT2LMHeadModel(config)
trainer = Trainer(model=model)
result = trainer.train()
'''
LOOP = '''import torch

def main():
    ids = torch.randint(0, 64, (2, 8))
    for step in range(3):
        out = cmodel(input_ids=ids, labels=ids)
'''


def test_a_name_torch_uses_inside_the_library_is_unknown_to_the_users_file():
    assert unknown_names("torch._dynamo.mark_dynamic(input_ids, 1) before the call", TRAINER) == {"input_ids"}
    assert unknown_names("torch._dynamo.mark_dynamic(ids, 1) before the call", LOOP) == set()


def test_names_bound_anywhere_in_the_file_count_and_keywords_or_attributes_do_not():
    assert unknown_names("set `model.loss_type = \"ForCausalLM\"` before compiling", TRAINER) == set()
    assert unknown_names("the collator's `pad_to_multiple_of=` (or the tokenizer's `padding=\"max_length\"`)", TRAINER) == set()
    assert unknown_names("compile with dynamic=True, e.g. torch.compile(model, dynamic=True)", TRAINER) == set()
    # the library function a cause is in is evidence, not code to write
    assert unknown_names("set it (cause: transformers `loss_function`)", TRAINER) == set()


def test_unknown_names_become_placeholders_and_known_ones_stay():
    fix = "compile the optimizer step (torch.compile(opt.step), or one compiled train_step)"
    shown = with_placeholders(fix, TRAINER)
    assert shown == "compile the optimizer step (torch.compile(<opt>.step), or one compiled train_step)"
    assert unknown_names(shown, TRAINER) == set()
    assert with_placeholders("torch.compile(model.forward)", TRAINER) == "torch.compile(model.forward)"
    assert with_placeholders(fix, None) == fix  # no source recorded: nothing can be said


def test_a_file_that_does_not_parse_says_nothing():
    assert unknown_names("torch.compile(opt.step)", "def (:\n") == set()


def test_a_statement_in_a_fix_is_checked_too():
    assert unknown_names("set `model.loss_type = \"ForCausalLM\"`", TRAINER) == set()
    assert unknown_names("set `base.loss_type = \"ForCausalLM\"`", TRAINER) == {"base"}
    assert unknown_names("`x = torch.zeros(3)`", TRAINER) == set()  # a name the fix itself assigns


def test_a_library_function_or_logger_named_in_backticks_is_evidence_not_code():
    title = "Let Dynamo skip the `transformers.modeling_utils` logger's `warning_once` (it is called in transformers `loss_function`)"
    assert unknown_names(title, TRAINER) == set()
    assert with_placeholders(title, TRAINER) == title
    assert unknown_names("Mark `kwargs['input_ids']` dim 1 dynamic", TRAINER) == {"kwargs"}


def test_a_method_named_in_prose_is_not_a_name_to_write():
    """The scalar_item suggester's title ("Keep `scale` a tensor: .detach() in place of .item()") once read
    "drop .<item>()"."""
    title = "Keep `scale` a tensor: .detach() in place of .item()"
    assert unknown_names(title, "scale = x.abs().max().item()\n") == set()
    assert with_placeholders(title, "scale = x.abs().max().item()\n") == title
    assert with_placeholders("call h.tolist() here", "x = 1\n") == "call <h>.tolist() here"  # the object still is
