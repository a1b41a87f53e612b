"""## What it does
Finds functions that Dynamo gave up on entirely: a graph break it could not resume from (inside a loop, a
generator, a `with` block it cannot reconstruct), so the whole function runs eagerly.

## Why is this bad?
Nothing of the function is compiled. The only trace is one log line; the program just runs at eager speed.

## Example
```python
for block in self.blocks:
    torch._dynamo.graph_break()
    x = block(x)
```

## Use instead
Remove the break (see the cause in the message), or move the code that breaks into its own function outside
the loop or context manager so that Dynamo can resume after it.
"""

from tdiag.analyzer.rules import Rule

# Claims first: a frame-level give-up is BRK006 whatever its cause.
RULE = Rule("BRK006", "frame-skipped", "error", "Dynamo skipped the whole function: it runs eagerly",
            suggester="frame_skipped", claims="breaks", priority=10, cost="samples", stops_compilation=True,
            message="{function} runs eagerly: Dynamo could not resume after a graph break ({reason}){where}",
            fix="remove the break, or move the breaking code out of the loop/with-block into its own function")


def matches(b) -> bool:
    return b.frame_skipped


def message(b) -> str:
    """torch's words for the break, with the function it skipped named when the break is a skipped call."""
    from tdiag.analyzer.backend_failure import backend_failure
    from tdiag.analyzer.rules._breaks import words
    from tdiag.analyzer.skipped_call import skipped_call

    w = words(b)
    skipped = skipped_call(b.reason, b.explanation, b.context)
    failure = backend_failure(b.explanation)
    if failure is not None:  # not a construct Dynamo met: no "resume", and the frame it stopped in says nothing
        return f"{w['function']} runs eagerly: {failure.words()}; torch split the graph and fell back to eager"
    if skipped is not None:
        w["reason"] = f"a call to `{skipped.name}`, which Dynamo does not trace: {skipped.why}"
    return RULE.message.format(**w)


def fix(b) -> str:
    """The fix of the break that made Dynamo skip the function, as the rule that words that kind of break would put
    it (a skipped call's, the catalogue's for its type: catalogue/breaks.toml); else the rule's generic words."""
    import dataclasses

    from tdiag.analyzer.rules import claimants
    from tdiag.analyzer.rules._breaks import catalogue_fix, words

    root = dataclasses.replace(b, frame_skipped=False)
    ordered = claimants("breaks")  # priority order: the last claims every break the others leave (torch's words)
    for e in ordered[:-1]:
        if e.rule.code == RULE.code or not e.module.matches(root):
            continue
        own = getattr(e.module, "fix", None)
        return own(root) if own is not None else e.rule.fix.format(**words(root))
    return catalogue_fix(root) or RULE.fix
