"""Every path a client passes resolves inside the server's directory, symbolic links followed; nothing else does."""

from __future__ import annotations

import pytest

from tdiag.errors import TdiagError
from tdiag.mcp_server.workspace import Workspace


def test_paths_inside_are_resolved_and_outside_refused(tmp_path):
    root = tmp_path / "project"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "prog.py").write_text("print(1)\n")
    (tmp_path / "secret.py").write_text("print(2)\n")
    (root / "link.py").symlink_to(tmp_path / "secret.py")
    space = Workspace(root)
    assert space.inside("sub/prog.py", "program") == (root / "sub" / "prog.py").resolve()
    assert space.inside(str(root / "sub" / "prog.py"), "program") == (root / "sub" / "prog.py").resolve()
    for outside in ("../secret.py", str(tmp_path / "secret.py"), "link.py", "sub/../../secret.py", "/etc/passwd"):
        with pytest.raises(TdiagError, match="outside the server's working directory"):
            space.inside(outside, "program")
    with pytest.raises(TdiagError, match="no record at tdiag-runs/x"):
        space.record("tdiag-runs/x")
    with pytest.raises(TdiagError, match="not a tdiag record"):
        space.record("sub")
