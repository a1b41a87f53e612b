"""An analysis option: findings shown at the library location torch saw, not the user's line.

By default every finding is anchored on the user's own line (the call that reached the library) and the library
location is kept as ``Finding.library_frame``; ``tdiag lint --show-library-sites`` shows the library locations.
"""

from __future__ import annotations

import dataclasses


def at_library_sites(findings):
    """The findings re-anchored where torch saw them inside a library (``tdiag lint --show-library-sites``): a
    finding with a library location is reported there, naming the user line that reached it."""
    out = []
    for f in findings:
        lib = f.library_frame
        if lib is None or not lib.path or not lib.line:
            out.append(f)
            continue
        out.append(dataclasses.replace(f, path=lib.path, line=lib.line, column=None, end_column=None,
                                       message=f"{f.message} (reached from {f.path}:{f.line})"))
    return out
