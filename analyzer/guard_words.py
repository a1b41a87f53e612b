"""torch's guard text in the user's words: Dynamo's own names (``L['x']``, ``G['x']``, a resume function's
``___stack0``, an object it has no name for, its ``___check_*`` helpers) put as the user's code has them, or said
plainly. One place for every output: the rules' messages, the finishing of every finding (analyzer/finish.py), the
TUI, the HTML report, the JSON view.

What the user holds is named as they hold it (``L['x']`` -> ``x``, ``L['self'].calls`` -> ``self.calls``,
``G['lr']`` -> ``lr``); what only Dynamo holds (a value it computed and carried across a graph break, an object it
reached through no name of the user's) is said in words, never quoted: the user cannot write ``___stack2``."""

from __future__ import annotations

import re

# Dynamo's own names and torch's debugging asides that no output may show (issue 62): a test over every output
# format and corpus checks for these (tests/internal_names.py)
DYNAMO_INTERNAL = re.compile(r"<self>|<unknown source>|<ephemeral|\b[LG]\[|___|unknown source|please file a bug",
                             re.IGNORECASE)

CARRIED = "the value carried across the graph break"
# torch's name for a source it could not name (torch/_dynamo/source.py ``_get_source_debug_name``), a bound method's
# object in some releases' guard text (``<self>``), a value Dynamo made up (``<ephemeral...>``)
_NAMELESS = re.compile(r"<(?:self|unknown source|ephemeral[^>]*)>")
# torch's aside when a symbol's source is unknown (torch/fx/experimental/symbolic_shapes.py produce_guards_verbose)
_FILE_A_BUG = re.compile(r"\s*(?:#\s*)?\(unknown (?:source|var) .*?, please file a bug\)")


def user_words(guard_text: str, frame: str | None = None) -> str:
    """A guard expression torch wrote, as the user's code has it: torch's trailing comment dropped, then
    ``user_names``. ``frame``: the compiled function's name (``SGD.step``), to say where a nameless object lives."""
    # torch appends where the guard came from as a comment ("  # return F.linear(...)  # nn/modules/linear.py:134
    # in forward (user code shown is first use of this value...)"): the finding says where on its own
    text = _FILE_A_BUG.sub("", guard_text or "")
    return user_names(text.split("  # ", 1)[0].rstrip(), frame)


def module_path(text: str) -> str:
    """A module's attributes as the user's code reaches them: ``self._modules['rope'].__dict__['_buffers']['cos']``
    -> ``self.rope.cos``, a numbered child of an nn.Sequential or nn.ModuleList indexed: ``self.net[2]``."""
    text = re.sub(r"\.(?:__dict__\['_(?:modules|parameters|buffers)'\]|_(?:modules|parameters|buffers))\['(\d+)'\]",
                  r"[\1]", text)
    text = re.sub(r"\.__dict__\['_(?:modules|parameters|buffers)'\]\['([^']+)'\]", r".\1", text)
    return re.sub(r"\._(?:modules|parameters|buffers)\['([^']+)'\]", r".\1", text)


def user_names(text: str, frame: str | None = None) -> str:
    """Dynamo's own names anywhere in ``text`` (a guard, a message quoting one, torch's hint) put as the user's code
    has them, or said in words where the user holds no name for the value."""
    if not text:
        return text or ""
    text = module_path(_FILE_A_BUG.sub("", text))
    # a variable a function closes over (make_adder's k, for the g it returns): no name the caller's code holds
    text = re.sub(r"(?:\b[LG]\[['\"]([^'\"\]]+)['\"]\]|([\w.]+))\.__closure__\[\d+\]\.cell_contents",
                  lambda m: f"the value {m.group(1) or m.group(2)} closes over", text)
    # a resume function's stack slots: a value computed before the graph break, named nowhere in the user's code
    text = re.sub(r"\b[LG]\[['\"]___stack\d+['\"]\]\.size\(\)\[(\d+)\]", rf"dim \1 of {CARRIED}", text)
    text = re.sub(r"\b[LG]\[['\"]___stack\d+['\"]\](?:\[\d+\])+", f"an item of {CARRIED}", text)
    text = re.sub(r"\b___stack\d+(?:\[\d+\])+", f"an item of {CARRIED}", text)
    text = re.sub(r"\b[LG]\[['\"]___stack\d+['\"]\]", CARRIED, text)
    text = re.sub(r"'___stack\d+'", f"({CARRIED})", text)
    text = re.sub(r"___stack\d+", CARRIED, text)
    # identity and type checks name an object by its id() in this process, which says nothing to the user
    text = re.sub(r"___check_obj_id\(([^,()]+), \d+\)(?:, type=<class '[\w.]+'>)?",
                  r"\1 is the very object it was compiled for", text)
    text = re.sub(r"___check_type_id\(([^,()]+), \d+\)(?:, type=<class '[\w.]+'>)?",
                  r"the type of \1 is the one it was compiled for", text)
    # a dict key's presence: torch's helper, said as the user's `in` test
    text = re.sub(r"\bnot ___dict_contains\(([^,()]+), ([^()]+?)\)", r"\1 not in \2", text)
    text = re.sub(r"___dict_contains\(([^,()]+), ([^()]+?)\)", r"\1 in \2", text)
    # the global state torch compiled under (grad mode, default dtype, ...), written as a JSON blob
    text = re.sub(r"___check_global_state\(\)(?: against \{.*\})?", "torch's global state is as compiled", text)
    # Dynamo's aliases for a module the code imported (G['__import_torch_dot_nn']) and for builtins
    text = re.sub(r"\b[LG]\[['\"]__import_(\w+?)['\"]\]", lambda m: m.group(1).replace("_dot_", "."), text)
    text = re.sub(r"\b[LG]\[['\"]__builtins_dict___\d+['\"]\]\[['\"](\w+)['\"]\]", r"\1", text)
    text = re.sub(r"\b[LG]\[['\"]([^'\"\]]+)['\"]\]", r"\1", text)
    # any other helper of Dynamo's guard code (___check_torch_function_mode_stack(), ___tuple_iterator_len(it)):
    # what it checks, in words
    text = re.sub(r"___([a-z]\w*?)(?=\()", lambda m: "Dynamo's " + m.group(1).replace("_", " "), text)
    text = re.sub(r"___(\w+)", lambda m: "Dynamo's " + m.group(1).strip("_").replace("_", " "), text)
    return _NAMELESS.sub(lambda m: _nameless(m.group(0), frame), text)


def _nameless(name: str, frame: str | None) -> str:
    """An object Dynamo reached through no name the user holds, said as where it lives."""
    owner = frame.split(".")[0] if frame and "." in frame else None
    if name == "<self>":  # the object a method of the compiled code runs on: SGD.step's is the SGD optimizer
        return f"the {owner} object" if owner else "the object the method runs on"
    return f"an object inside {frame}" if frame else "an object Dynamo reached through no name of yours"


def held_by_user(guard_text: str) -> bool:
    """Whether the guarded value has a name in the user's code (``x``, ``self.calls``, ``lr``), so that the guard
    may be quoted as code; False for a value only Dynamo holds (a stack slot, a nameless object)."""
    raw = guard_text or ""
    return not (re.search(r"___stack\d+|__closure__", raw) or _NAMELESS.search(raw) or _FILE_A_BUG.search(raw))


def is_string_value(text: str | None) -> bool:
    """A guarded value torch wrote as a Python string literal (``'task0'``): a string compiled in as a constant."""
    return re.fullmatch(r"'[^']*'|\"[^\"]*\"", (text or "").strip()) is not None
