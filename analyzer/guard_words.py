"""torch's guard text in the user's words: Dynamo's own names (``L['x']``, ``G['x']``, a resume function's
``___stack0``) put as the user's code has them, or said plainly. One place for every output: the rules' messages,
the TUI, the HTML report, the JSON view."""

from __future__ import annotations

import re


def user_words(guard_text: str) -> str:
    """torch's guard text with Dynamo's own names put as the user's code has them: ``L['x']``/``G['x']`` -> ``x``,
    a resume function's ``'___stack0'`` -> the value carried across the graph break (no such name exists in the
    user's code); an identity or type check by object id said as what it checks."""
    # torch appends where the guard came from as a comment ("  # return F.linear(...)  # nn/modules/linear.py:134
    # in forward (user code shown is first use of this value...)"): the finding says where on its own
    text = guard_text.split("  # ", 1)[0].rstrip()
    # a module's attributes as the user's code reaches them: self._modules['rope'].__dict__['_buffers']['cos'] ->
    # self.rope.cos
    text = re.sub(r"\.__dict__\['_(?:modules|parameters|buffers)'\]\['([^']+)'\]", r".\1", text)
    text = re.sub(r"\._(?:modules|parameters|buffers)\['([^']+)'\]", r".\1", text)
    text = re.sub(r"\b[LG]\['___stack\d+'\]\.size\(\)\[(\d+)\]",
                  r"dim \1 of the value carried across the graph break", text)
    text = re.sub(r"\b[LG]\['___stack\d+'\]", "the value carried across the graph break", text)
    text = re.sub(r"'___stack\d+'", "(the value carried across the graph break)", text)
    text = re.sub(r"___stack\d+", "the value carried across the graph break", text)
    # identity and type checks name an object by its id() in this process, which says nothing to the user
    text = re.sub(r"___check_obj_id\(([^,()]+), \d+\)(?:, type=<class '[\w.]+'>)?",
                  r"\1 is the very object it was compiled for", text)
    text = re.sub(r"___check_type_id\(([^,()]+), \d+\)(?:, type=<class '[\w.]+'>)?",
                  r"the type of \1 is the one it was compiled for", text)
    # a dict key's presence: torch's helper, said as the user's `in` test
    text = re.sub(r"\bnot ___dict_contains\(([^,()]+), ([^()]+?)\)", r"\1 not in \2", text)
    text = re.sub(r"___dict_contains\(([^,()]+), ([^()]+?)\)", r"\1 in \2", text)
    return re.sub(r"\b[LG]\['(\w+)'\]", r"\1", text)


def is_string_value(text: str | None) -> bool:
    """A guarded value torch wrote as a Python string literal (``'task0'``): a string compiled in as a constant."""
    return re.fullmatch(r"'[^']*'|\"[^\"]*\"", (text or "").strip()) is not None
