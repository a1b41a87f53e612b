"""torch's guard text in the user's words: Dynamo's own names (``L['x']``, ``G['x']``, a resume function's
``___stack0``) put as the user's code has them, or said plainly. One place for every output: the rules' messages,
the TUI, the HTML report, the JSON view."""

from __future__ import annotations

import re


def user_words(guard_text: str) -> str:
    """torch's guard text with Dynamo's own names put as the user's code has them: ``L['x']``/``G['x']`` -> ``x``,
    a resume function's ``'___stack0'`` -> the value carried across the graph break (no such name exists in the
    user's code); an identity or type check by object id said as what it checks."""
    text = re.sub(r"\b[LG]\['___stack\d+'\]\.size\(\)\[(\d+)\]",
                  r"dim \1 of the value carried across the graph break", guard_text)
    text = re.sub(r"\b[LG]\['___stack\d+'\]", "the value carried across the graph break", text)
    text = re.sub(r"'___stack\d+'", "(the value carried across the graph break)", text)
    text = re.sub(r"___stack\d+", "the value carried across the graph break", text)
    # identity and type checks name an object by its id() in this process, which says nothing to the user
    text = re.sub(r"___check_obj_id\(([^,()]+), \d+\)(?:, type=<class '[\w.]+'>)?",
                  r"\1 is the very object it was compiled for", text)
    text = re.sub(r"___check_type_id\(([^,()]+), \d+\)(?:, type=<class '[\w.]+'>)?",
                  r"the type of \1 is the one it was compiled for", text)
    return re.sub(r"\b[LG]\['(\w+)'\]", r"\1", text)
