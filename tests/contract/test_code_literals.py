"""A finding's code is written only in its rule's own module (issue 43): everything else reads what the rule declares
(``get_rule(code)``: suggester, claims, stops_compilation; ``crash_kind(code)``) or what the finding's evidence
carries, so a rule renamed, split or added changes one file. Static, no torch: every string constant of the sources
that is a finding code, docstrings and other bare string statements (documentation) left out.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tdiag.analyzer.rules import FAMILIES, rule_modules

REPO = Path(__file__).resolve().parents[2]
SOURCE_DIRS = ("analyzer", "tdiag", "reports", "tui", "compiler", "tracer")
RULES_DIR = Path("analyzer") / "rules"


def _code_pattern() -> re.Pattern[str]:
    families = set(FAMILIES) | {code.rstrip("0123456789") for code in rule_modules()}
    return re.compile(rf"(?:{'|'.join(sorted(families))})\d{{3}}")


CODE = _code_pattern()


def _documentation(tree: ast.AST) -> set[int]:
    """ids of the string constants that are statements of their own: docstrings, and any other bare string
    (they document, nothing reads them)."""
    return {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)}


def code_literals(source: str) -> list[tuple[int, str]]:
    """(line, code) of every string constant in ``source`` that is a finding code, documentation left out."""
    tree = ast.parse(source)
    docs = _documentation(tree)
    return sorted((node.lineno, node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
                  and CODE.fullmatch(node.value))


def _own_module(path: Path, code: str) -> bool:
    """``analyzer/rules/brk006_frame_skipped.py`` is BRK006's own module."""
    return path.parent == RULES_DIR and path.name.split("_", 1)[0].upper() == code


def _literals() -> dict[Path, list[tuple[int, str]]]:
    found = {}
    for folder in SOURCE_DIRS:
        assert (REPO / folder).is_dir(), f"{folder}/ is gone: update SOURCE_DIRS"
        for path in sorted((REPO / folder).rglob("*.py")):
            relative = path.relative_to(REPO)
            if "__pycache__" in relative.parts:
                continue
            hits = code_literals(path.read_text(encoding="utf-8"))
            if hits:
                found[relative] = hits
    return found


LITERALS = _literals()


def test_a_finding_code_is_written_only_in_its_rules_module():
    stray = [f"{path}:{line}: {code!r}" for path, hits in LITERALS.items() for line, code in hits
             if not _own_module(path, code)]
    assert not stray, ("finding codes written outside their rule's module (read a fact the rule declares, "
                       "get_rule(code).<field> or crash_kind(code), or the finding's evidence, instead):\n"
                       + "\n".join(stray))


def test_every_rule_module_is_seen_declaring_its_code():
    """The scan reads the real sources: each rule's ``RULE = Rule("BRK006", ...)`` is found, in its own module."""
    declared = {code for path, hits in LITERALS.items() for _, code in hits if _own_module(path, code)}
    assert declared == set(rule_modules())


def test_the_scan_flags_code_and_skips_documentation():
    source = '''"""Module docstring naming RCP002."""
STOPS = frozenset({"RCP005", "BRK006"})


def f(finding):
    """Docstring: ``finding.code == "CRS008"``."""
    "a bare string statement naming DYN001"
    help_text = "['RCP001', 'BRK001']"  # a code inside prose: an example, not a test of a code
    return finding.code == "CRS008" or finding.code in (f"DYN001",)
'''
    assert code_literals(source) == [(2, "BRK006"), (2, "RCP005"), (9, "CRS008"), (9, "DYN001")]
