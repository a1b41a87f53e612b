"""CCH001's patch on small sources: the assignment that turned a compile cache off is removed, however the file
spells the config module; an environment switch gets words (which variable to unset), never a patch."""

from __future__ import annotations

import textwrap

import pytest
from tdiag.analyzer.evidence import CompileCacheEvidence
from tdiag.analyzer.model import Analysis, Finding
from tdiag.analyzer.suggestions import apply_patch, suggest
from tdiag.analyzer.suggestions.helpers.context import SuggestionContext


def _suggest(source: str, line: int, setting: str):
    source = textwrap.dedent(source)
    analysis = Analysis()
    analysis.sources["m.py"] = source
    evidence = CompileCacheEvidence(cache="all", state="disabled", cause="a switch turned it off",
                                    torch_reason=setting)
    finding = Finding(code="CCH001", name="compile-caches-disabled", severity="warning", message="m", fix="f",
                      path="m.py", line=line, evidence=evidence)
    return suggest(finding, SuggestionContext(analysis)), source


CASES = [
    ("import torch\nimport torch._inductor.config\n\ntorch._inductor.config.fx_graph_cache = False\nx = 1\n",
     4, "inductor.fx_graph_cache", "import torch\nimport torch._inductor.config\n\nx = 1\n"),
    ("import torch._inductor.config as ic\nic.force_disable_caches = True  # off\nx = 1\n",
     2, "inductor.force_disable_caches", "import torch._inductor.config as ic\nx = 1\n"),
    ("from torch._functorch import config\n\n\ndef main():\n    config.enable_autograd_cache = False\n",
     5, "functorch.enable_autograd_cache", "from torch._functorch import config\n\n\ndef main():\n    pass\n"),
    ("import torch\n\ntorch._inductor.config.fx_graph_cache = False\n\nx = 1\n",  # one blank line left, not two
     3, "inductor.fx_graph_cache", "import torch\n\nx = 1\n"),
    ("import torch\ntorch._inductor.config.fx_graph_cache = False; x = 1\n",
     2, "inductor.fx_graph_cache", "import torch\nx = 1\n"),
]


IDS = ["plain", "alias", "in-function", "between-blank-lines", "one-of-two"]


@pytest.mark.parametrize("source, line, setting, expected", CASES, ids=IDS)
def test_the_switch_assignment_is_removed(source, line, setting, expected):
    suggestion, text = _suggest(source, line, setting)
    assert suggestion.patch, suggestion.patch_note
    assert apply_patch(text, suggestion.patch) == expected
    assert suggestion.title.startswith("Remove `")


def test_another_key_on_the_line_gets_no_patch():
    """The finding's line must assign the very key it names: a line setting something else is left alone."""
    suggestion, _ = _suggest("import torch\ntorch._inductor.config.freezing = False\n", 2, "inductor.fx_graph_cache")
    assert suggestion.patch is None
    assert "no assignment to torch._inductor.config.fx_graph_cache" in suggestion.patch_note


def test_config_patch_context_gets_no_patch():
    suggestion, _ = _suggest("import torch\nwith torch._inductor.config.patch(fx_graph_cache=False):\n    pass\n", 2,
                             "inductor.fx_graph_cache")
    assert suggestion.patch is None and suggestion.patch_note


def test_an_environment_switch_is_advice_without_a_patch():
    suggestion, _ = _suggest("import torch\n", 1, "env:TORCH_COMPILE_DEBUG")
    assert suggestion.patch is None
    assert suggestion.title == "Unset TORCH_COMPILE_DEBUG in the job's environment"
    assert "not in a file" in suggestion.patch_note
