"""Patch kind: a torch-native rewrite written as data (the catalogue's "torch-native" candidates that carry a
``rewrite = { source = "...", target = "..." }`` in catalogue/breaks.toml): the user's code matching ``source`` is
replaced by ``target``, each ``{name}`` standing for whatever expression the user wrote there.

``torch.linalg.lstsq({a}, {b}).solution`` -> ``torch.linalg.pinv({a}) @ {b}`` turns
``torch.linalg.lstsq(a, b).solution.sum()`` into ``(torch.linalg.pinv(a) @ b).sum()``. A source may also be
statements (an ``if`` on ``torch.equal`` and the return after it become one ``return torch.where(...)``), matched
against consecutive statements of the block from the break's line on. Knowledge stays in the catalogue: a new
operator's rewrite is an entry's two strings, not code.

Matching is on Python's syntax tree, so spacing and parentheses do not matter; a dotted name matches by what it
imports (``F.one_hot`` is ``torch.nn.functional.one_hot``). What the rewrite keeps is the entry's claim, and what
`tdiag fix --verify` measures on the user's program (the output before and after); the builder refuses where the
rewrite would run the user's code differently: an expression with a call evaluated more often than before, or a
branch's code with calls that the rewrite would run unconditionally.
"""

from __future__ import annotations

import ast
import re
import textwrap

import libcst as cst
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.break_entry import break_entry
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext, patch_for, replace_nodes, with_torch_import
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree, descendants

KIND = "torch-native"
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_COMPUTING_METHODS = ("sum", "mean", "all", "any", "abs", "clone", "float", "to", "view", "reshape", "exp", "log",
                      "sqrt", "max", "min", "softmax", "norm", "t", "transpose", "unsqueeze", "squeeze", "matmul",
                      "sign", "neg", "relu", "sigmoid", "tanh", "round", "detach", "contiguous")
_ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant)  # need no parentheses where they land


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    entry = break_entry(finding, ctx)
    rewrites = [c.rewrite for c in (entry.candidates if entry else ()) if c.builder == "call_rewrite" and c.rewrite]
    if not rewrites:
        raise NoPatch("the catalogue's entry for this break names no rewrite")
    tree = ctx.tree(finding.path)
    statement = _statement_at(tree, finding.line)
    for source, target in rewrites:
        pattern = _pattern(source)
        if isinstance(pattern, ast.Expression):
            found = _match_expression(tree, statement, pattern.body)
        else:
            found = _match_statements(tree, statement, pattern.body)
        if found is not None:
            return _patch(tree, found, source, target)
    raise NoPatch(f"line {finding.line} does not have the shape the catalogue's rewrite replaces "
                  f"(`{rewrites[0][0]}`)")


def _statement_at(tree: SourceTree, line: int) -> cst.CSTNode:
    for kind in (cst.SimpleStatementLine, cst.If, cst.For, cst.While, cst.With):
        node = tree.statement_at(kind, line)
        if node is not None:
            return node
    raise NoPatch(f"no statement starts on line {line}")


def _pattern(source: str) -> ast.AST:
    code = _PLACEHOLDER.sub(lambda m: f"__{m.group(1)}__", textwrap.dedent(source).strip())
    try:
        return ast.parse(code, mode="eval")
    except SyntaxError:
        return ast.parse(code)


class _Found:
    """What matched: the nodes replaced (one expression, or consecutive statements) and each placeholder's code."""

    def __init__(self, nodes: list[cst.CSTNode], captures: dict[str, ast.AST], codes: dict[str, str]):
        self.nodes, self.captures, self.codes = nodes, captures, codes


def _match_expression(tree: SourceTree, statement: cst.CSTNode, pattern: ast.AST) -> _Found | None:
    for node in descendants(statement, cst.BaseExpression):  # outermost first: the largest match wins
        try:
            parsed = ast.parse(tree.code(node).strip(), mode="eval").body
        except SyntaxError:
            continue
        captures: dict[str, ast.AST] = {}
        if _matches(tree, pattern, parsed, captures):
            return _Found([node], captures, {k: ast.unparse(v) for k, v in captures.items()})
    return None


def _match_statements(tree: SourceTree, statement: cst.CSTNode, pattern: list[ast.stmt]) -> _Found | None:
    block = tree.parent(statement)
    body = list(getattr(block, "body", ()))
    if statement not in body:
        return None
    window = body[body.index(statement):body.index(statement) + len(pattern)]
    if len(window) != len(pattern):
        return None
    captures: dict[str, ast.AST] = {}
    for stmt, want in zip(window, pattern):
        try:
            parsed = ast.parse(textwrap.dedent(tree.code(stmt).strip("\n"))).body
        except SyntaxError:
            return None
        if len(parsed) != 1 or not _matches(tree, want, parsed[0], captures):
            return None
    return _Found(window, captures, {k: ast.unparse(v) for k, v in captures.items()})


def _matches(tree: SourceTree, want: ast.AST, got: ast.AST, captures: dict[str, ast.AST]) -> bool:
    hole = _hole(want)
    if hole is not None:
        if hole in captures:
            return ast.dump(captures[hole]) == ast.dump(got)
        captures[hole] = got
        return True
    wanted_name = _dotted(want)
    if wanted_name is not None:  # a name the pattern spells in full: the user's, through its imports
        return _qualified(tree, got) == wanted_name
    if type(want) is not type(got):
        return False
    for field in want._fields:
        if field in ("ctx", "type_comment"):
            continue
        a, b = getattr(want, field, None), getattr(got, field, None)
        if isinstance(a, list):
            if not isinstance(b, list) or len(a) != len(b) \
                    or not all(_matches(tree, x, y, captures) if isinstance(x, ast.AST) else x == y
                               for x, y in zip(a, b)):
                return False
        elif isinstance(a, ast.AST):
            if not isinstance(b, ast.AST) or not _matches(tree, a, b, captures):
                return False
        elif a != b:
            return False
    return True


def _hole(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name) and node.id.startswith("__") and node.id.endswith("__") and len(node.id) > 4:
        return node.id[2:-2]
    return None


def _dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a chain of names (no placeholder in it); None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or _hole(node) is not None:
        return None
    return ".".join([node.id, *reversed(parts)])


def _qualified(tree: SourceTree, node: ast.AST) -> str | None:
    name = _dotted(node)
    if name is None:
        return None
    root, _, rest = name.partition(".")
    full = tree.imported_names().get(root, root)
    return f"{full}.{rest}" if rest else full


def _patch(tree: SourceTree, found: _Found, source: str, target: str) -> Suggestion:
    in_source = {h: len(re.findall(r"\{%s\}" % h, source)) for h in found.captures}
    conditional = _conditional_holes(_pattern(source))
    for hole, value in found.captures.items():
        # an expression that calls something, evaluated more often than the user's code did (or, from a branch,
        # unconditionally): the rewrite would run the user's code differently
        calls = [n for n in ast.walk(value) if isinstance(n, ast.Call)]
        if calls and (len(re.findall(r"\{%s\}" % hole, target)) > in_source[hole]
                      or hole in conditional and _has_effects(calls)):
            raise NoPatch(f"`{found.codes[hole]}` calls code the rewrite would run differently")
    torch = tree.torch_name() or "torch"

    def filled(match: re.Match) -> str:
        value = found.captures[match.group(1)]
        code = found.codes[match.group(1)]
        return code if isinstance(value, _ATOMS) else f"({code})"

    code = _PLACEHOLDER.sub(filled, textwrap.dedent(target).strip())
    if torch != "torch":
        code = re.sub(r"\btorch\.", f"{torch}.", code)
    if isinstance(found.nodes[0], cst.BaseExpression):
        new = cst.parse_expression(code)
        if not isinstance(ast.parse(code, mode="eval").body, _ATOMS):
            new = new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        module = replace_nodes(tree.module, {found.nodes[0]: new})
    else:
        module = _replace_statements(tree, found.nodes, cst.parse_module(code + "\n").body)
    before = " ".join(tree.code(n).strip() for n in found.nodes)
    return Suggestion(
        title=f"Rewrite `{_short(before)}` as `{_short(code)}`",
        why="Dynamo cannot keep the original operation in the graph; the torch operation that computes the same "
        "value can be traced, so the compiled function is one graph.",
        patch=patch_for(tree, with_torch_import(tree, module)),
    )


def _conditional_holes(pattern: ast.AST) -> set[str]:
    """The placeholders a statement pattern evaluates only on some paths: inside an ``if``'s branches, or in a
    statement after one (which a return in the branch skips). An ``if``'s test runs every time."""
    if isinstance(pattern, ast.Expression):
        return set()
    holes: set[str] = set()
    seen_branch = False
    for stmt in pattern.body:
        parts = [stmt] if seen_branch or not isinstance(stmt, ast.If) else [*stmt.body, *stmt.orelse]
        for part in parts:
            holes |= {h for n in ast.walk(part) if (h := _hole(n)) is not None}
        seen_branch = seen_branch or isinstance(stmt, (ast.If, ast.For, ast.While, ast.Try))
    return holes


def _has_effects(calls: list[ast.Call]) -> bool:
    """A call other than a torch function or a tensor method that only computes (what the rewrite may run where
    the user's code did not: `torch.where` computes both sides)."""
    for call in calls:
        name = _dotted(call.func) or ""
        method = call.func.attr if isinstance(call.func, ast.Attribute) else None
        if not (name.startswith("torch.") or method in _COMPUTING_METHODS):
            return True
    return False


def _replace_statements(tree: SourceTree, window: list[cst.CSTNode], new: list[cst.CSTNode]) -> cst.Module:
    first, rest = window[0], set(window[1:])

    class Replace(cst.CSTTransformer):
        def _body(self, original, updated):
            body = []
            for before, after in zip(original.body, updated.body):
                if before is first:
                    body.extend([new[0].with_changes(leading_lines=first.leading_lines), *new[1:]])
                elif before not in rest:
                    body.append(after)
            return body

        def leave_IndentedBlock(self, original, updated):
            return updated.with_changes(body=self._body(original, updated))

        def leave_Module(self, original, updated):
            return updated.with_changes(body=self._body(original, updated))

    return tree.module.visit(Replace())


def _short(code: str) -> str:
    one = " ".join(code.split())
    return one if len(one) <= 80 else one[:77] + "..."
