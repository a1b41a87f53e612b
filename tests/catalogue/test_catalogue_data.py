"""The fix catalogue's data (analyzer/catalogue): valid against its JSON Schema, keyed on what the installed torch
calls its break types, worded only with the fields a finding gives, and every patch builder it names exists."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import jinja2
import jsonschema
import jinja2.meta
import pytest

from tdiag.analyzer import catalogue
from tdiag.analyzer.suggestions.kinds import PATCH_KINDS

REPO = Path(__file__).resolve().parents[2]
SECTIONS = {"breaks": "break", "guards": "guard", "skips": "skip"}


def _schema() -> dict:
    return json.loads(resources.files("tdiag.analyzer.catalogue").joinpath("schema.json").read_text())


@pytest.mark.parametrize("section", sorted(SECTIONS))
def test_valid_against_its_schema(section):
    jsonschema.Draft202012Validator.check_schema(_schema())
    jsonschema.validate(catalogue.raw(section), _schema())


def test_schema_refuses_an_unknown_patch_kind_and_a_missing_field():
    bad = {"guard": [{"id": "x", "subject": "any", "why": "ten letters at least",
                      "candidates": [{"kind": "rewrite-everything", "words": "do something else"}]}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, _schema())
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"break": [{"id": "y", "gb_ids": ["GB0036"], "why": "ten letters at least",
                                        "candidates": [{"kind": "expected", "words": "nothing to fix"}]}]}, _schema())


def test_ids_are_unique_and_the_schema_enum_is_the_code_s():
    enum = _schema()["$defs"]["candidate"]["properties"]["kind"]["enum"]
    assert tuple(enum) == catalogue.PATCH_KINDS
    ids = [e.id for e in catalogue.breaks() + catalogue.guards() + catalogue.skips()]
    assert len(ids) == len(set(ids))


def test_break_types_are_torch_s_own():
    """Each GB id exists in the installed torch's graph-break registry, and the entry's gb_type is torch's name of
    its first id: the catalogue is keyed on torch's taxonomy, not on words tdiag made up."""
    import torch

    registry_file = Path(torch.__file__).parent / "_dynamo" / "graph_break_registry.json"
    if not registry_file.exists():
        pytest.skip(f"torch {torch.__version__} ships no graph-break registry")
    registry = json.loads(registry_file.read_text())
    for entry in catalogue.breaks():
        missing = [g for g in entry.gb_ids if g not in registry]
        assert not missing, f"{entry.id}: {missing} not in torch {torch.__version__}'s registry"
        assert registry[entry.gb_ids[0]][0]["Gb_type"] == entry.gb_type, entry.id


@pytest.mark.parametrize("section", ["breaks", "guards"])
def test_words_name_only_the_fields_a_finding_gives(section):
    env = jinja2.Environment()
    for entry in catalogue.raw(section)[SECTIONS[section]]:
        for candidate in entry["candidates"]:
            named = jinja2.meta.find_undeclared_variables(env.parse(candidate["words"]))
            assert named <= set(catalogue.FIELDS[section]), (entry["id"], named - set(catalogue.FIELDS[section]))


def test_builders_exist_and_programs_are_in_the_repository():
    for entry in catalogue.breaks() + catalogue.guards():
        for candidate in entry.candidates:
            assert candidate.builder is None or candidate.builder in PATCH_KINDS, (entry.id, candidate.builder)
        for program in entry.programs:
            assert (REPO / program).is_file(), (entry.id, program)


def test_torch_hints_are_quoted_as_torch_s():
    for entry in catalogue.breaks():
        for candidate in entry.candidates:
            if candidate.torch_hint:
                assert candidate.words.startswith("torch's hint:"), entry.id


def test_the_last_guard_entry_matches_any_guard():
    last = catalogue.guards()[-1]
    assert not last.guard_kinds and last.subject == "any"
    assert catalogue.for_guard("a kind torch may add tomorrow", "argument") is last


def test_skip_builders_resolve_and_callees_are_unique():
    import pkgutil

    callees = [c for e in catalogue.skips() for c in e.callees]
    assert len(callees) == len(set(callees))
    for entry in catalogue.skips():
        assert entry.builder is None or callable(pkgutil.resolve_name(entry.builder)), entry.id
