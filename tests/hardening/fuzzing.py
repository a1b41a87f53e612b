"""Structured mutations of real files (records, TORCH_TRACE logs) for the property-based fuzz tests.

Mutating a real file reaches far deeper than random bytes: most cases stay valid JSON Lines, so they get past the
reader into the analysis, where a field of the wrong type or a line out of place is what breaks code.
"""

from __future__ import annotations

import json

from hypothesis import strategies as st

WRONG_VALUES = [None, 0, -1, 2**63, 1.5, float("nan"), "", "x", [], {}, [1, "a", None], {"a": {"b": []}}, True,
                "../../etc/passwd", "\udcff", "File \"/x.py\", line 3, in f"]


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:6]):
            yield from _paths(v, (*prefix, i))


def _set(obj, path, value):
    for p in path[:-1]:
        obj = obj[p]
    obj[path[-1]] = value


def _dumps(obj) -> bytes:
    return (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass")


@st.composite
def line_mutation(draw):
    kind = draw(st.sampled_from(["drop", "dup", "swap", "value", "value", "value", "huge", "key", "truncate_line",
                                 "nonjson", "blank"]))
    return (kind, draw(st.integers(0, 10**6)), draw(st.integers(0, 10**6)), draw(st.sampled_from(WRONG_VALUES)),
            draw(st.integers(0, 3)))


def apply_line_mutation(lines: list[bytes], m, json_lines: bool = True, keep_header: bool = True) -> list[bytes]:
    kind, a, b, value, size = m
    lo = 1 if keep_header and len(lines) > 1 else 0
    if len(lines) <= lo:
        return lines
    i, j = lo + a % (len(lines) - lo), lo + b % (len(lines) - lo)
    lines = list(lines)
    if kind == "drop":
        del lines[i]
    elif kind == "dup":
        lines.insert(j, lines[i])
    elif kind == "swap":
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "truncate_line":
        lines[i] = lines[i][: b % max(len(lines[i]), 1)]
    elif kind == "nonjson":
        lines[i] = b"{\"type\": \"torch\", \xff\xfe\n"
    elif kind == "blank":
        lines.insert(i, b"\n")
    elif json_lines:
        try:
            ev = json.loads(lines[i])
        except ValueError:
            return lines
        paths = [p for p in _paths(ev) if p]
        if not paths:
            return lines
        path = paths[b % len(paths)]
        if kind == "value":
            _set(ev, path, value)
        elif kind == "huge":
            _set(ev, path, "A" * (10 ** (3 + size)))  # up to 1 MB in one field
        elif kind == "key" and isinstance(ev, dict):
            ev[str(value)[:20]] = ev.pop(path[0], None)
        lines[i] = _dumps(ev)
    return lines


@st.composite
def byte_mutation(draw):
    kind = draw(st.sampled_from(["flip", "truncate", "insert", "zero"]))
    return kind, draw(st.integers(0, 10**7)), draw(st.binary(min_size=1, max_size=16))


def apply_byte_mutation(data: bytes, m) -> bytes:
    kind, pos, blob = m
    if not data:
        return blob
    pos %= len(data)
    if kind == "flip":
        return data[:pos] + bytes([data[pos] ^ (blob[0] or 1)]) + data[pos + 1 :]
    if kind == "truncate":
        return data[:pos]
    if kind == "insert":
        return data[:pos] + blob + data[pos:]
    return data[:pos] + b"\x00" * len(blob) + data[pos + len(blob) :]
