"""A graph break torch added because the backend failed on a graph (GB0219, "Backend compiler exception"): which
backend, and what it failed on, read from torch's explanation. Since torch 2.11 Dynamo turns such a failure into a
break and runs the frame eagerly instead of raising; the failure is often in code the backend traces and Dynamo
did not (a custom op's backward, an autograd.Function), so the user's line shows nothing of it."""

from __future__ import annotations

from tdiag.lazy_regex import lazy_regex
from tdiag.lean_dataclass import lean_dataclass

_EXPLANATION = lazy_regex(r"Backend compiler `([^`]+)` failed with (.+?)\.? Adding a graph break")
_SCALAR_READ = "_local_scalar_dense"  # the aten op behind .item(), .tolist(), int(tensor): a read into Python


@lean_dataclass(frozen=True)
class BackendFailure:
    backend: str
    error: str

    @property
    def reads_to_python(self) -> bool:
        """The backend met a tensor read into Python while tracing (fake tensors have no value to read)."""
        return _SCALAR_READ in self.error

    def words(self) -> str:
        if self.reads_to_python:
            return (f"the `{self.backend}` backend could not trace a tensor read into Python (`.item()`, "
                    f"`.tolist()`: {self.error}) in code it traces and Dynamo does not, such as a custom op's or an "
                    "autograd.Function's backward")
        return f"the `{self.backend}` backend failed on the graph: {self.error}"


def backend_failure(explanation: str | None) -> BackendFailure | None:
    m = _EXPLANATION.search(explanation or "")
    return BackendFailure(m.group(1), m.group(2).strip()) if m else None
