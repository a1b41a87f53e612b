"""torch prints the whole Python stack of a graph break; under ``tdiag run`` it passes through tdiag's runner. The
Analysis keeps torch's text (``GraphBreak.raw``) without those frames, as the user's program has none of them."""

from tdiag.analyzer.paths import PathMapper

TORCH_TEXT = '''Graph break in user code at /p/prog.py:26
User code traceback:
  File "<frozen runpy>", line 88, in _run_code
  File "/site/tdiag/cli.py", line 78, in main
    return command.run(args, args._parser)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/p/prog.py", line 33, in <module>
    print(net(x))
          ^^^^^^
  File "/site/tracer/runtime_window.py", line 126, in compiled_step
    return fn(*args, **kwargs)

  File "/venv/site-packages/torch/nn/modules/module.py", line 1778, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)'''


def test_tdiag_frames_leave_torch_text_with_their_source_lines():
    paths = PathMapper("/p", ["/site/tdiag", "/site/tracer", "<frozen runpy>"])
    assert paths.without_tool_frames(TORCH_TEXT).splitlines() == [
        "Graph break in user code at /p/prog.py:26",
        "User code traceback:",
        '  File "/p/prog.py", line 33, in <module>',
        "    print(net(x))",
        "          ^^^^^^",
        "",
        '  File "/venv/site-packages/torch/nn/modules/module.py", line 1778, in _wrapped_call_impl',
        "    return self._call_impl(*args, **kwargs)",
    ]


def test_a_record_without_tool_paths_keeps_the_text():
    assert PathMapper("/p", []).without_tool_frames(TORCH_TEXT) == TORCH_TEXT
