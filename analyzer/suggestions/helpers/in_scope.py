"""Which identifiers a fix names that the user's file does not have: a fix names only what exists where it is to be
written (a variable in scope, an import, a framework's own knob), never torch's name for a value inside a library
(``input_ids`` when the user's line passes ``ids``, ``opt`` in a program whose optimizer a framework made).

A fix's code is what it shows as code to write: spans in backticks that hold a call, an assignment or a subscript
(a bare name in backticks names the library's function or logger), and call expressions (``torch.compile(opt.step)``)
in its plain words. Each is parsed with ``ast``; its free names (roots of attribute chains, call arguments; never
keyword names, attribute names or string keys) must be bound somewhere in the user's file, imported, builtins, or
``torch`` (every patch that writes torch code adds its import).
"""

from __future__ import annotations

import ast
import builtins
import re

_BACKTICKS = re.compile(r"`([^`]+)`")
# a dotted call in plain words, one level of nested parentheses: torch.compile(opt.step), mark_dynamic(x, 0)
# a call expression; never one that starts after a dot (".item()" names a method in prose, it is no code to write)
_CALL = re.compile(r"(?<![\w.])[A-Za-z_][\w.]*\((?:[^()]|\([^()]*\))*\)")
_ALWAYS = frozenset({"torch"})
_KEYWORDS = "__keywords__"
_CAUSE = re.compile(r"\((?:cause|inside|in)\b[^)]*\)")


def defined_names(source: str) -> set[str] | None:
    """Every name the file binds in any scope (assignments, imports, defs, parameters, loop and with targets,
    comprehensions); None when the file does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def code_fragments(text: str) -> list[str]:
    """The pieces of a fix that are code and parse as a Python expression. What only names the library code the
    cause is in (``(cause: transformers `loss_function`)``) and a keyword's bare name (`pad_to_multiple_of=`) are
    not code to write."""
    text = _CAUSE.sub(" ", text)
    pieces = [p for p in _BACKTICKS.findall(text) if _is_code_to_write(p)]
    plain = _BACKTICKS.sub(" ", text)
    pieces += _CALL.findall(plain)
    out = []
    for piece in pieces:
        candidate = piece.strip().rstrip("=").strip()
        for form in (candidate, f"{_KEYWORDS}({candidate})"):  # `pad_to_multiple_of=8`, `padding="max_length"`: keywords
            try:
                ast.parse(form)  # an expression or a statement (`model.loss_type = "ForCausalLM"`)
            except SyntaxError:
                continue
            out.append(form)
            break
    return out


def _is_code_to_write(span: str) -> bool:
    """A call, an assignment or a subscript (`torch.compile(model)`, `model.loss_type = "X"`, `batch["ids"]`); a bare
    dotted name in backticks (`loss_function`, `transformers.modeling_utils`) names the library's code, and a
    keyword's bare name (`pad_to_multiple_of=`) the library's option."""
    span = span.strip()
    return any(c in span for c in "([=") and not span.endswith("=")


def free_names(fragment: str) -> set[str]:
    """The names a fragment reads (a name it assigns is its own)."""
    tree = ast.parse(fragment)
    bound = {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)}  # lambda parameters
    bound |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    for comp in ast.walk(tree):
        if isinstance(comp, ast.comprehension):
            bound |= {n.id for n in ast.walk(comp.target) if isinstance(n, ast.Name)}
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - bound
    names.discard(_KEYWORDS)  # the call code_fragments wraps around a bare keyword argument
    return names


def unknown_names(fix: str, source: str) -> set[str]:
    """The identifiers ``fix`` names as code that the file defines nowhere (empty when the file does not parse:
    nothing can be said)."""
    defined = defined_names(source)
    if defined is None:
        return set()
    known = defined | set(dir(builtins)) | _ALWAYS
    return {name for fragment in code_fragments(fix) for name in free_names(fragment)} - known


def with_placeholders(fix: str, source: str | None) -> str:
    """``fix`` with every identifier the file lacks shown as a placeholder (``torch.compile(<opt>.step)``), so the
    text never reads as naming a variable the user has; unchanged when the source is unknown or all names exist."""
    if source is None:
        return fix
    unknown = unknown_names(fix, source)
    if not unknown:
        return fix
    pattern = re.compile(r"(?<![\w.<])(" + "|".join(sorted(map(re.escape, unknown), key=len, reverse=True)) + r")\b(?!\s*=)")

    def replace(m: re.Match) -> str:
        span = m.group(0)
        if span.startswith("`") and not _is_code_to_write(span.strip("`")):
            return span  # a library's function or logger name: evidence, not code to write
        return pattern.sub(lambda n: f"<{n.group(1)}>", span)

    return _CODE_SPANS.sub(replace, fix)


# where a fix shows code: backtick spans and call expressions (the same pieces code_fragments reads)
_CODE_SPANS = re.compile(r"`[^`]+`|" + _CALL.pattern)
