"""``tdiag rule CODE``: a rule's documentation (what it finds, why it costs, an example, the fix); ``--all`` lists them."""

from __future__ import annotations

import argparse
import sys

from tdiag.errors import TdiagError


class RuleCommand:
    name = "rule"
    help = "Explain a rule: what it finds, why it matters, and how to fix it (--all lists every rule)."

    def prepare_parser(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("code", metavar="CODE", nargs="?", help="a rule code (BRK001) or name (data-dependent-branch)")
        parser.add_argument("--all", action="store_true", help="list every rule")

    def run(self, args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
        from tdiag.analyzer.rules import all_rules

        rules = all_rules()
        if args.all:
            sys.stdout.write(_listing(rules))
            return 0
        if not args.code:
            raise TdiagError("name a rule code (e.g. tdiag rule BRK001), or use --all")
        _print_doc(find_rule(args.code))
        return 0


def find_rule(code: str):
    """The rule named by its code (BRK001) or its name (data-dependent-branch); TdiagError when none is."""
    from tdiag.analyzer.rules import all_rules

    wanted = code.strip()
    rule = next((r for r in all_rules() if wanted.upper() == r.code or wanted.lower() == r.name), None)
    if rule is None:
        raise TdiagError(f"unknown rule {wanted!r} (see `tdiag rule --all`)")
    return rule


def rule_text(code: str) -> str:
    """What `tdiag rule CODE` prints (Markdown), or every rule one per line for ``all``; shared with `tdiag mcp`."""
    from tdiag.analyzer.rules import all_rules

    return _listing(all_rules()) if code.strip().lower() == "all" else _markdown(find_rule(code))


def _listing(rules) -> str:
    width = max((len(r.name) for r in rules), default=0)
    return "".join(f"{r.code}  {r.name:<{width}}  {r.severity:<7}  {r.summary}\n" for r in rules)


def _markdown(rule) -> str:
    return f"# {rule.code} ({rule.name})\n\nSeverity: {rule.severity}. {rule.summary}.\n\n{rule.doc}\n"


def _print_doc(rule) -> None:
    text = _markdown(rule)
    if not sys.stdout.isatty():
        sys.stdout.write(text)  # plain text pipes into less, grep and docs generators unchanged
        return
    from rich.console import Console
    from rich.markdown import Markdown

    Console().print(Markdown(text))


COMMAND = RuleCommand()
