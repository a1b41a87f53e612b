"""SARIF output against the SARIF 2.1.0 JSON schema and GitHub code scanning's required properties."""

from __future__ import annotations

import dataclasses
import json

import jsonschema
import pytest
from lint_helpers import HERE
from tdiag.reports.lint import render

# The final OASIS 2.1.0 schema when vendored, else its rtm.5 release candidate (see SCHEMA-SOURCE.md).
SCHEMA_FILES = (HERE / "sarif-schema-2.1.0.json", HERE / "sarif-2.1.0-rtm.5.json")


@pytest.fixture(scope="module")
def validator():
    path = next(p for p in SCHEMA_FILES if p.exists())
    schema = json.loads(path.read_text(encoding="utf-8"))
    return jsonschema.Draft4Validator(schema)


@pytest.mark.parametrize("empty", [False, True])
def test_valid_against_schema(sample, validator, empty):
    analysis = dataclasses.replace(sample, findings=[]) if empty else sample
    errors = sorted(validator.iter_errors(json.loads(render(analysis, "sarif"))), key=str)
    assert not errors, "\n".join(e.message for e in errors[:5])


def test_github_code_scanning_properties(sample):
    log = json.loads(render(sample, "sarif"))
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json" and log["version"] == "2.1.0"
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "tdiag" and driver["version"]
    rule_ids = [r["id"] for r in driver["rules"]]
    assert rule_ids == sorted({f.code for f in sample.findings})
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"] and rule["help"]["text"] and rule["help"]["markdown"]
        assert "## What it does" in rule["fullDescription"]["text"]
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
    assert len(run["results"]) == len(sample.findings)
    hashes = set()
    for result in run["results"]:
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
        location = result["locations"][0]["physicalLocation"]
        assert not location["artifactLocation"]["uri"].startswith("/")
        region = location["region"]
        assert region["startLine"] == region["endLine"] and region["endColumn"] > region["startColumn"] >= 1
        hashes.add(result["partialFingerprints"]["primaryLocationLineHash"])
    assert len(hashes) == len(run["results"])
