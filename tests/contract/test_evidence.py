"""Typed evidence: every kind survives the JSON export, old and unknown kinds still read, and real findings carry
the evidence class of their rule family."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from typing import Any

import pytest
from tdiag.analyzer import build
from tdiag.analyzer.evidence import (
    BreakEvidence,
    DivergenceEvidence,
    OtherEvidence,
    RecompileEvidence,
    evidence_as,
    registered_kinds,
)
from tdiag.analyzer.model import SCHEMA_VERSION, Analysis, Finding, Frame


def _through_json(evidence) -> object:
    finding = Finding("X001", "x", "info", "m", "f", "a.py", 1, evidence=evidence)
    data = json.loads(json.dumps(Analysis(findings=[finding]).to_dict(), default=str))
    assert data["schema_version"] == SCHEMA_VERSION == 2
    return data["findings"][0]["evidence"], Analysis.from_dict(data).findings[0].evidence


@pytest.mark.parametrize("kind", sorted(registered_kinds()))
def test_every_kind_round_trips_with_its_discriminator(kind):
    cls = registered_kinds()[kind]
    assert dataclasses.is_dataclass(cls) and cls().kind == kind
    written, back = _through_json(cls())
    assert next(iter(written)) == "kind" and written["kind"] == kind  # the discriminator leads, readable JSON
    assert type(back) is cls and back == cls()


def _filled(cls, depth: int = 0):
    """An instance with every field set to a value other than its default, from the field's type."""
    hints = typing.get_type_hints(cls, localns={"Frame": Frame})
    return cls(**{f.name: _value(hints[f.name], f.name, depth) for f in dataclasses.fields(cls)
                  if f.init and f.name != "kind"})


def _value(tp, name: str, depth: int):
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        return _value(next(a for a in args if a is not type(None)), name, depth)
    if origin is list:
        return [_value(args[0], name, depth + 1), _value(args[0], name + "2", depth + 1)]
    if origin is dict:
        return {_value(args[0], "key", depth + 1): _value(args[1], name, depth + 1)}
    if dataclasses.is_dataclass(tp):
        return _filled(tp, depth + 1)
    if tp is Any:
        return {"k": [1, "v"]}
    return {str: f"{name}-value", int: 7 + depth, float: 2.5, bool: True}[tp]


@pytest.mark.parametrize("kind", sorted(registered_kinds()))
def test_every_kind_round_trips_with_every_field_set(kind):
    evidence = _filled(registered_kinds()[kind])
    assert evidence != registered_kinds()[kind]()  # not the default object
    _, back = _through_json(evidence)
    assert back == evidence and type(back) is type(evidence)


def test_nested_values_round_trip():
    evidence = BreakEvidence(reason="Data-dependent branching", hints=["use torch.cond"], offset=12,
                             user_stack=[Frame("train.py", 3, "<module>", "step(x)"), Frame("train.py", 9, "step")])
    _, back = _through_json(evidence)
    assert back == evidence and isinstance(back.user_stack[1], Frame)
    ranks = DivergenceEvidence(per_rank={"0": 1, "1": 3}, divergent_ranks=[1], compile_ids_by_rank={"1": ["0/1"]})
    assert _through_json(ranks)[1] == ranks


def test_unknown_kinds_and_schema_1_dicts_read_back_as_other():
    data = Analysis(findings=[Finding("X001", "x", "info", "m", "f", "a.py", 1)]).to_dict()
    data["findings"][0]["evidence"] = {"kind": "from_the_future", "speed": 3}
    assert Analysis.from_dict(data).findings[0].evidence == OtherEvidence(values={"speed": 3})
    data["findings"][0]["evidence"] = {"reason": "Data-dependent branching", "hints": []}  # schema 1: no kind
    back = Analysis.from_dict(data).findings[0].evidence
    assert isinstance(back, OtherEvidence) and back.values["reason"] == "Data-dependent branching"
    assert ("reason", "Data-dependent branching") in back.facts()


def test_readers_name_the_family_they_understand():
    assert evidence_as(RecompileEvidence(subject="x"), RecompileEvidence).subject == "x"
    assert evidence_as(BreakEvidence(reason="r"), RecompileEvidence) == RecompileEvidence()
    assert evidence_as(None, BreakEvidence) == BreakEvidence()


FAMILY_KIND = {"BRK": BreakEvidence, "RCP": RecompileEvidence}


@pytest.mark.parametrize("program", ["data_dependent_if.py", "batch_size_change.py"])
def test_real_findings_are_typed_and_survive_the_export(recorded, program):
    run_dir, proc = recorded(program)
    assert proc.returncode == 0, proc.stderr
    analysis = build(run_dir)
    families = {f.family for f in analysis.findings}
    assert families & set(FAMILY_KIND)  # a break, or a recompile (batch 4 then 8)
    for finding in analysis.findings:
        assert finding.evidence is not None and not isinstance(finding.evidence, (dict, OtherEvidence))
        if finding.family in FAMILY_KIND and finding.code != "RCP005":
            assert isinstance(finding.evidence, FAMILY_KIND[finding.family]), finding.code
        assert finding.graph_keys, finding.code  # every finding names its graphs with their rank
        assert {k.compile_id for k in finding.graph_keys} <= {g.compile_id for g in analysis.graphs}
    exported = json.loads(json.dumps(analysis.to_dict(include_code=False), default=str))
    assert Analysis.from_dict(exported).findings == analysis.findings
