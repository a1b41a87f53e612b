"""Words and numbers for measured cost, shared by every output (console, lint, TUI, HTML, diff)."""

from __future__ import annotations

from tdiag.analyzer.model import Cost, RuntimeSummary


def cost_label(cost: Cost | None) -> str:
    """``2.58 ms/step (18%)`` for a measured cost, ``1.20 s compile`` for a compile cost, ``-`` for none."""
    if cost is None or cost.basis == "none":
        return "-"
    if cost.basis == "compile":
        return f"{cost.total_s:.2f} s compile"
    per_step = f"{cost.per_call_ms:.3g} ms/step" if cost.per_call_ms is not None else f"{cost.total_s * 1e3:.3g} ms"
    return per_step + (f" ({cost.share:.0%})" if cost.share is not None else "")


def runtime_line(runtime: RuntimeSummary | None) -> str | None:
    """One line on the measured window and its reconciliation; None when the record has no runtime data."""
    if runtime is None:
        return None
    if runtime.status != "measured":
        return f"runtime: not measured ({runtime.reason or 'no window'})"
    parts = runtime_parts(runtime)
    accounted = sum(v for _, v in parts)
    return (
        f"runtime: {runtime.steps} steps in {runtime.window_s * 1e3:.1f} ms measured: "
        + ", ".join(f"{label} {v * 1e3:.1f} ms" for label, v in parts)
        + f" (accounts for {accounted / runtime.window_s:.0%} of the window)"
        if runtime.window_s
        else ""
    )


def runtime_parts(runtime: RuntimeSummary) -> list[tuple[str, float]]:
    """The window's partition: compiled, eager explained by findings, other eager, guards, compile."""
    return [
        ("compiled", runtime.compiled_s),
        ("eager (findings)", runtime.attributed_s),
        ("eager (other)", runtime.unattributed_s),
        ("guards", runtime.guard_s),
        ("compile", runtime.compile_s),
    ]
