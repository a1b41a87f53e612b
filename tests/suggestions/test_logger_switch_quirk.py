"""The logger switch (`ignore_logger_methods`) is not offered as a patch where it breaks torch's metrics logging.

torch 2.11 json-dumps `ignore_logging_functions` (the switch's alias) into every compile's metrics: a function in
it raises there ("Unexpected exception logging compilation metrics", a traceback per compile) and tlparse and tdiag
lose the graphs' metrics. Its source leaves the name out of the dump's blocklist; 2.13's has it. The program below
is the fix test's logger program (tests/fix/test_new_patches.py), its patch read for each release the run names.
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from tdiag.analyzer.model import Analysis, Finding
from tdiag.analyzer.suggestions.helpers import logger_switch
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext

PROGRAM = (Path(__file__).parent / "programs" / "logger_inside.py").read_text()


def _suggest(torch_version: str):
    analysis = Analysis(sources={"logger_inside.py": PROGRAM})
    analysis.run.torch_version = torch_version
    ctx = SuggestionContext(analysis)
    call = next(c for c in ctx.tree("logger_inside.py").nodes(cst.Call)
                if ctx.tree("logger_inside.py").code(c).startswith("logger.info"))
    finding = Finding(code="BRK004", name="logging", severity="warning", message="m", fix="f",
                      path="logger_inside.py", line=13)
    return logger_switch.suggest(finding, ctx, call)


@pytest.mark.parametrize("version", ["2.11.0", "2.11.0+cu130"])
def test_torch_2_11_gets_no_switch_patch_and_the_reason(version):
    with pytest.raises(NoPatch, match=r"on torch 2\.11\.0 a function in torch\._dynamo\.config\.ignore_logger_methods "
                                      r"makes torch's compilation-metrics logging raise at every compile"):
        _suggest(version)


@pytest.mark.parametrize("version", ["2.13.0", "2.15.0", "2.1.0"])
def test_other_releases_get_the_switch(version):
    suggestion = _suggest(version)
    assert "+torch._dynamo.config.ignore_logger_methods.add(logger.info)" in suggestion.patch
