"""``tdiag mcp``: serve tdiag to coding agents and editors over the Model Context Protocol (stdio).

The SDK is an optional dependency, imported only here when the command runs: ``tdiag run`` never pays for it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tdiag.errors import EXIT_USAGE, TdiagError

INSTALL_HINT = "tdiag mcp needs the MCP Python SDK: pip install 'tdiag[mcp]'"


class McpCommand:
    name = "mcp"
    help = "Serve tdiag to coding agents over MCP (stdio): run, findings, rules, verified fixes, diffs, reports."

    def prepare_parser(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--root", metavar="DIR",
                            help="the project directory: programs run there, and every program, record and output "
                                 "path must lie inside it (default: the directory the server starts in)")
        parser.epilog = "Client configuration: docs/agents.md."

    def run(self, args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
        try:
            import mcp  # noqa: F401  (the SDK, here only: nothing else of tdiag imports it)
        except ImportError as exc:
            print(f"tdiag mcp: error: {INSTALL_HINT} ({exc})", file=sys.stderr)
            return EXIT_USAGE
        root = Path(args.root) if args.root else Path.cwd()
        if not root.is_dir():
            raise TdiagError(f"--root {args.root} is not a directory")
        from tdiag.mcp_server.server import serve

        os.chdir(root)  # run directories are chosen, and relative paths read, as `tdiag run` there would
        serve(root)
        return 0


COMMAND = McpCommand()
