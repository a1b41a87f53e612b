"""The ``tdiag`` command line: one module per subcommand under ``tdiag.commands``, found by name."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from typing import Protocol

import tdiag
from tdiag.errors import EXIT_USAGE, TdiagError

# Order shown in --help; any further module in tdiag.commands with a COMMAND is added after these.
PREFERRED_ORDER = ("run", "report", "lint", "tui", "fix", "diff", "import", "rule", "mcp")


class Command(Protocol):
    name: str
    help: str

    def prepare_parser(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace, parser: argparse.ArgumentParser) -> int: ...


def discover_commands() -> list[Command]:
    import tdiag.commands as package

    found = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"tdiag.commands.{info.name}")
        command = getattr(module, "COMMAND", None)
        if command is not None:
            found[command.name] = command
    order = [n for n in PREFERRED_ORDER if n in found] + sorted(n for n in found if n not in PREFERRED_ORDER)
    return [found[n] for n in order]


def _named_command(argv: list[str]) -> list[Command] | None:
    """Only the command named by ``argv[0]``, when a module of that name holds it: ``tdiag run`` then imports
    nothing of the other commands (their imports are start-up time every ``tdiag run`` pays)."""
    import tdiag.commands as package

    name = argv[0] if argv else ""
    if not name.isidentifier() or name not in {info.name for info in pkgutil.iter_modules(package.__path__)}:
        return None
    command = getattr(importlib.import_module(f"tdiag.commands.{name}"), "COMMAND", None)
    return [command] if command is not None and command.name == name else None


def build_parser(commands: list[Command] | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tdiag",
        description="Find what stops torch.compile from making your program fast: graph breaks, recompilations, "
        "fusion and lowering, mapped to your source lines.",
    )
    parser.add_argument("--version", action="version", version=f"tdiag {tdiag.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in commands if commands is not None else discover_commands():
        p = sub.add_parser(command.name, help=command.help, description=command.help)
        p.add_argument("-v", "--verbose", action="store_true", help="on an internal error, print the traceback too")
        command.prepare_parser(p)
        p.set_defaults(_command=command, _parser=p)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(_named_command(argv))
    args = parser.parse_args(argv)
    command = getattr(args, "_command", None)
    if command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return command.run(args, args._parser)
    except TdiagError as exc:
        print(f"tdiag {command.name}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        return EXIT_USAGE
    except KeyboardInterrupt as exc:  # Ctrl-C in tdiag's own work (never the program's own: `run` passes that on)
        from tdiag.interrupt import EXIT_INTERRUPTED, interrupted_line

        print(interrupted_line(command.name, exc), file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # a bug in tdiag: exit 2 (never 1, which means "findings"), one line, traceback kept
        report_internal_error(command.name, exc, verbose=getattr(args, "verbose", False))
        return EXIT_USAGE


def report_internal_error(name: str, exc: BaseException, verbose: bool) -> None:
    """One line on stderr and the traceback in a file (``-v`` prints it as well)."""
    from tdiag.errors import save_traceback

    text, _path, where = save_traceback(f"tdiag {tdiag.__version__} {name}", exc)
    if verbose:
        sys.stderr.write(text)
    # AnalysisFailed says which record and what failed itself; its traceback file and -v show the original's
    what = str(exc) if type(exc).__name__ == "AnalysisFailed" else f"{type(exc).__name__}: {exc}"
    print(f"tdiag {name}: internal error: {what} (traceback {where}; -v prints it)", file=sys.stderr)
