"""The fix catalogue: what tdiag knows to say about torch's own taxonomy, as data.

Keyed on the evidence torch gives: a graph break's type in torch's graph-break registry (its GB id,
``torch/_dynamo/graph_break_registry.json``), a recompile's guard kind with what the guarded object is (an argument
of the user's, a module attribute, a library's state, ...). Each entry lists **candidate fixes** in the order they
are tried, each of one generic patch kind (``PATCH_KINDS``) and worded by a Jinja template that may name only the
fields the finding's evidence gives (``FIELDS``): a fix line never quotes Dynamo's guard text.

The data files are ``breaks.toml``, ``guards.toml`` and ``skips.toml`` (skipped functions and their torch-native
equivalents) beside this module; ``schema.json`` is their JSON Schema
(checked by tests/catalogue, with every GB id against the installed torch's registry). Adding knowledge is adding
an entry, never a function: a candidate that can be written as a patch names the patch builder
(``analyzer/suggestions/kinds.py``) that writes it; the rest are words, and say so (unverified until
``tdiag fix --verify`` proves them on the user's program).
"""

from __future__ import annotations

import functools
import sys
from importlib import resources
from typing import Any

from tdiag.lean_dataclass import lean_dataclass

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

# The generic kinds of fix every candidate is one of (schema.json's enum).
PATCH_KINDS = (
    "read-after-call",  # return the tensor from the compiled code and read it after the call
    "torch-native",  # the same computation in torch ops Dynamo traces
    "torch-setting",  # a torch._dynamo / torch._inductor config switch
    "dynamic-shapes",  # mark_dynamic / mark_static / dynamic=
    "tensor-for-scalar",  # a tensor in place of a Python scalar that changes
    "move-out",  # move a call out of the compiled region (before or after it)
    "move-in",  # make the object inside the compiled region (an iterator, a view) instead of passing it in
    "disable-function",  # torch.compiler.disable on the smallest user function
    "compile-regions",  # compile the parts around the cause instead of the whole
    "library-knob",  # a library's own option
    "expected",  # torch's expected behaviour: nothing to fix
)

# What a candidate's words may name, per section: the finding's evidence, in the user's own names.
FIELDS = {
    "breaks": ("reason", "where", "function", "hint", "call", "opaque"),
    "guards": ("subject", "frame", "kind", "dim_index", "compiled_for", "attribute", "at", "holder", "library",
               "key", "branch", "branch_at", "count", "container", "statement"),
}


@lean_dataclass(frozen=True)
class Candidate:
    """One candidate fix of an entry: its generic kind, its words (a template), and the patch builder that writes it
    into the user's code where one exists (a name in analyzer/suggestions/kinds.py)."""

    kind: str
    words: str
    builder: str | None = None
    torch_hint: bool = False  # torch's own hint for this break type, quoted as torch's
    # the code the builder `call_rewrite` writes: (source, target) patterns with {placeholders}, e.g.
    # ("torch.linalg.lstsq({a}, {b}).solution", "torch.linalg.pinv({a}) @ {b}")
    rewrite: tuple[str, str] | None = None

    def render(self, **fields: Any) -> str:
        return _template(self.words).render(**fields).strip()


@lean_dataclass(frozen=True)
class Entry:
    id: str
    candidates: tuple[Candidate, ...]
    why: str = ""  # one sentence: why this is the fix (docs/rules.md shows it)
    programs: tuple[str, ...] = ()  # the test programs that exercise it (repo paths)

    @property
    def first(self) -> Candidate:
        return self.candidates[0]


@lean_dataclass(frozen=True)
class BreakEntry(Entry):
    gb_ids: tuple[str, ...] = ()
    gb_type: str = ""  # torch's name of the break type, as its registry has it (checked by the tests)
    site: str | None = None  # only where the user's line or torch's words for the break read this way (a regex)


@lean_dataclass(frozen=True)
class GuardEntry(Entry):
    guard_kinds: tuple[str, ...] = ()  # GuardFailure.kind values; empty: any
    subject: str = "any"  # what the guarded object is (rules/_recompiles.py's guard_subject kinds)
    max_recompiles: int | None = None  # applies only while the cause recompiled at most this often (bounded)


def _candidates(raw: list[dict]) -> tuple[Candidate, ...]:
    return tuple(Candidate(c["kind"], c["words"], c.get("builder"), c.get("torch_hint", False),
                           (c["rewrite"]["source"], c["rewrite"]["target"]) if "rewrite" in c else None) for c in raw)


@functools.lru_cache(maxsize=None)
def raw(section: str) -> dict[str, Any]:
    """One data file as parsed (the schema test validates exactly this)."""
    text = resources.files(__package__).joinpath(f"{section}.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


@lean_dataclass(frozen=True)
class SkipEntry:
    """A function Dynamo skips and the torch-native equivalent that keeps its work in the graph."""

    id: str
    callees: tuple[str, ...]
    instead: str  # what to write instead, as code
    note: str  # what differs
    why: str
    builder: str | None = None  # "module:function" writing it into the user's file; None: words only


@functools.lru_cache(maxsize=None)
def skips() -> tuple[SkipEntry, ...]:
    return tuple(SkipEntry(e["id"], tuple(e["callees"]), e["instead"], e["note"], e["why"], e.get("builder"))
                 for e in raw("skips")["skip"])


def for_skip(callee: str | None) -> SkipEntry | None:
    """The entry for a skipped function, by the dotted name torch reports for it."""
    return next((e for e in skips() if callee in e.callees), None) if callee else None


@functools.lru_cache(maxsize=None)
def breaks() -> tuple[BreakEntry, ...]:
    return tuple(BreakEntry(e["id"], _candidates(e["candidates"]), e.get("why", ""), tuple(e.get("programs", ())),
                            tuple(e["gb_ids"]), e["gb_type"], e.get("site"))
                 for e in raw("breaks")["break"])


@functools.lru_cache(maxsize=None)
def guards() -> tuple[GuardEntry, ...]:
    return tuple(GuardEntry(e["id"], _candidates(e["candidates"]), e.get("why", ""), tuple(e.get("programs", ())),
                            tuple(e.get("guard_kinds", ())), e.get("subject", "any"), e.get("max_recompiles"))
                 for e in raw("guards")["guard"])


def for_break(gb_id: str | None, code: str = "") -> BreakEntry | None:
    """The entry for a break of this type (its GB id), where ``code`` (the user's line, then torch's words for the
    break) reads as the entry's ``site`` says."""
    import re

    if not gb_id:
        return None
    for entry in breaks():
        if gb_id in entry.gb_ids and (entry.site is None or re.search(entry.site, code or "")):
            return entry
    return None


def render_first(entry: Entry, section: str, **fields: Any) -> str:
    """The entry's first candidate in words, every field of ``section`` a finding did not give left empty."""
    return render_candidate(entry.first, section, **fields)


def render_candidate(candidate: Candidate, section: str, **fields: Any) -> str:
    """One candidate in words, every field of ``section`` a finding did not give left empty."""
    return candidate.render(**{**dict.fromkeys(FIELDS[section], ""), **fields})


def for_guard(guard_kind: str | None, subject: str, recompiles: int | None = None) -> GuardEntry:
    """The entry for a failed guard of this kind on this kind of subject, for a cause that recompiled
    ``recompiles`` times (None: not known, so no bounded entry applies); the catalogue's last entry (any kind, any
    subject) always matches."""
    for entry in guards():
        if entry.max_recompiles is not None and (recompiles is None or recompiles > entry.max_recompiles):
            continue
        if (not entry.guard_kinds or guard_kind in entry.guard_kinds) and entry.subject in (subject, "any"):
            return entry
    raise LookupError(f"the guard catalogue has no entry for {guard_kind} on {subject} (its last entry must match any)")


@functools.lru_cache(maxsize=None)
def _template(words: str):
    import jinja2

    env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=False)
    return env.from_string(words)
