"""torch's own account of each corpus program, without tdiag.

usage: python collect.py [PROGRAM.py ...]   (default: every programs/*.py)

For each program three plain runs, one at a time:
  1. plain:    stdout, exit status;
  2. eager:    the same with TORCH_COMPILE_DISABLE=1 (stdout, exit status);
  3. logged:   TORCH_LOGS=graph_breaks,recompiles + TORCH_TRACE=<tmp dir>, through a runpy wrapper that dumps
               torch._dynamo.utils.counters at exit.
Writes truth/<name>.json (programs/) or truth/fixes/<name>.json (fixes/). Paths are made relative to this folder;
torch's own files are shown as <torch>/... . The raw trace is not kept.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = os.environ.get("PY", sys.executable)
TIMEOUT = 300

WRAPPER = r'''
import json, runpy, sys
out, prog = sys.argv[1], sys.argv[2]
sys.argv = [prog]
rc = 0
try:
    runpy.run_path(prog, run_name="__main__")
except SystemExit as e:
    rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
except BaseException:
    import traceback
    traceback.print_exc()
    rc = 1
finally:
    from torch._dynamo.utils import counters
    data = {k: {str(kk): vv for kk, vv in v.items()} for k, v in counters.items() if v}
    with open(out, "w") as f:
        json.dump({"exit_status": rc, "counters": data}, f, indent=1, sort_keys=True)
sys.exit(rc)
'''

HEAD = re.compile(r"^[VIWE]\d{4} [\d:.]+ \d+ \S+\] (\{.*\})\s*$")
GB = re.compile(r"gb/(gb\d+)\.html")
FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


def clean(text, prog):
    """Make paths relative: the program -> its relative path, torch -> <torch>, other absolute dirs dropped."""
    if text is None:
        return None
    rel = os.path.relpath(prog, HERE)
    text = text.replace(prog, rel)
    text = re.sub(r"/[^\s\"':]*/site-packages/torch/", "<torch>/", text)
    text = re.sub(r"/[^\s\"':]*/site-packages/", "<site-packages>/", text)
    text = re.sub(r"/[^\s\"':]*/lib/python3\.\d+/", "<stdlib>/", text)
    text = re.sub(r"/tmp/[^\s\"':]+", "<tmp>", text)
    text = text.replace(HERE + "/", "")
    return text


def records(path):
    lines = open(path, errors="replace").read().split("\n")
    i = 0
    while i < len(lines):
        m = HEAD.match(lines[i])
        i += 1
        if not m:
            continue
        try:
            meta = json.loads(m.group(1))
        except ValueError:
            continue
        payload = []
        while i < len(lines) and lines[i].startswith("\t"):
            payload.append(lines[i][1:])
            i += 1
        yield meta, "\n".join(payload)


def user_line(text, prog):
    """Innermost frame of the traceback in `text` that is in the program file -> (line, function)."""
    hits = [(int(l), fn) for f, l, fn in FRAME.findall(text or "") if os.path.abspath(f) == prog]
    return hits[-1] if hits else (None, None)


def gb_type_of(payload):
    # payload: "<gb_type>\n  Explanation: ...\n ..." possibly prefixed by "Graph Break Reason: ..." lines
    for line in (payload or "").split("\n"):
        s = line.strip()
        if not s or s.startswith(("Graph break", "Graph Break Reason: Encountered graph break when",
                                  "Graph Break Reason: Failed to handle", "Graph Break Reason: Encountered graph break that")):
            continue
        return s.replace("Graph Break Reason: ", "")
    return None


def summarize_trace(d, prog):
    frames, breaks, graphs = [], [], 0
    for f in sorted(glob.glob(os.path.join(d, "*.log"))):
        for meta, payload in records(f):
            cid = None
            if "frame_id" in meta:
                cid = f"{meta['frame_id']}/{meta.get('frame_compile_id')}"
                if meta.get("attempt"):
                    cid += f"_{meta['attempt']}"
            if "compilation_metrics" in meta:
                cm = meta["compilation_metrics"]
                if payload.strip():
                    try:
                        cm = json.loads(payload)
                    except ValueError:
                        pass
                if isinstance(cm, dict) and cm.get("co_name"):
                    frames.append({
                        "compile_id": cm.get("compile_id"),
                        "function": cm.get("co_name"),
                        "file": clean(cm.get("co_filename"), prog),
                        "first_line": cm.get("co_firstlineno"),
                        "graph_ops": cm.get("graph_op_count"),
                        "has_guarded_code": cm.get("has_guarded_code"),
                        "fail_type": cm.get("fail_type"),
                        "fail_reason": clean((cm.get("fail_reason") or "")[:600], prog) or None,
                        "fail_user_line": cm.get("fail_user_frame_lineno")
                        if cm.get("fail_user_frame_filename") and os.path.abspath(cm["fail_user_frame_filename"]) == prog else None,
                        "restart_gb_ids": sorted({m for r in (cm.get("restart_reasons") or []) for m in GB.findall(r)}),
                        "recompile_reason": clean(cm.get("recompile_reason"), prog),
                    })
            elif "dynamo_output_graph" in meta:
                graphs += 1
            elif meta.get("artifact", {}).get("name") == "dynamo_graph_break_reason":
                ids = sorted(set(GB.findall(payload)))
                line, fn = user_line(payload, prog)
                breaks.append({"compile_id": cid, "gb_ids": ids, "gb_type": gb_type_of(payload),
                               "user_line": line, "user_function": fn,
                               "first_lines": clean("\n".join(payload.split("\n")[:3]), prog)})
    return frames, breaks, graphs


def parse_logs(stderr, prog):
    """graph_breaks and recompiles records from TORCH_LOGS stderr."""
    gbs, recs, limit = [], [], []
    lines = [re.sub(r"^[VIWE]\d{4} [\d:.]+ \d+ \S+\] (\[[^\]]*\] )*", "", x) for x in stderr.split("\n")]
    for i, l in enumerate(lines):
        m = re.search(r"Graph break(?: \(user stack suppressed due to duplicate graph break\))? in user code at (.+):(\d+)", l)
        if m:
            block = "\n".join(lines[i:i + 60])
            ids = GB.findall(block.split("\nUser code traceback")[0]) or GB.findall(block)[:1]
            reason = next((x.split("Graph Break Reason: ", 1)[1] for x in lines[i:i + 3] if "Graph Break Reason: " in x), "")
            nxt = ""
            for x in lines[i + 1:i + 6]:
                s = x.strip()
                if s and not s.startswith("Graph Break Reason") and not s.startswith("Explanation"):
                    nxt = s
                    break
            gbs.append({"file": clean(os.path.abspath(m.group(1)) if os.path.isabs(m.group(1)) else m.group(1), prog),
                        "line": int(m.group(2)), "gb_ids": ids, "reason_head": clean(reason, prog)[:200],
                        "gb_type": (nxt if reason.startswith(("Encountered", "Failed", "Encountered graph break")) or not reason else reason)[:200]})
        if "Recompiling function" in l:
            fn = clean(l.split("Recompiling function", 1)[1].strip(), prog)
            reasons = []
            for x in lines[i + 1:i + 40]:
                s = x.strip()
                if s.startswith("triggered by"):
                    continue
                if s.startswith("- "):
                    reasons.append(clean(s[2:], prog))
                else:
                    break
            recs.append({"function": fn, "failed_guards": reasons})
        if "hit config.recompile_limit" in l or "hit config.cache_size_limit" in l:
            limit.append(clean("\n".join(lines[i:i + 3]).strip(), prog))
    return gbs, recs, limit


def run(cmd, env):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=TIMEOUT, cwd=HERE)
    return p.returncode, p.stdout, p.stderr


def collect(prog):
    prog = os.path.abspath(prog)
    name = os.path.splitext(os.path.basename(prog))[0]
    is_fix = os.path.basename(os.path.dirname(prog)) == "fixes"
    out_dir = os.path.join(HERE, "truth", "fixes" if is_fix else "")
    os.makedirs(out_dir, exist_ok=True)
    base = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH_LOGS", "TORCH_TRACE", "TORCH_COMPILE_DISABLE"))}

    t0 = time.time()
    rc, out, err = run([PY, prog], base)
    plain_s = time.time() - t0
    rc_e, out_e, _ = run([PY, prog], dict(base, TORCH_COMPILE_DISABLE="1"))

    trace = tempfile.mkdtemp(prefix="tdc_trace.")
    cnt = os.path.join(trace, "counters.json.out")
    wrapper = os.path.join(trace, "wrapper.py.out")
    open(wrapper, "w").write(WRAPPER)
    env = dict(base, TORCH_LOGS="graph_breaks,recompiles", TORCH_TRACE=trace)
    rc_l, _, err_l = run([PY, wrapper, cnt, prog], env)
    try:
        counters = json.load(open(cnt))["counters"]
    except (OSError, ValueError):
        counters = None
    frames, breaks, graphs = summarize_trace(trace, prog)
    shutil.rmtree(trace, ignore_errors=True)
    log_gbs, log_recs, limit = parse_logs(err_l, prog)

    if counters:
        counters = json.loads(clean(json.dumps(counters), prog))
    result = {
        "program": os.path.relpath(prog, HERE),
        "torch": subprocess.run([PY, "-c", "import torch;print(torch.__version__)"], capture_output=True, text=True).stdout.strip(),
        "plain": {"exit_status": rc, "stdout": out, "seconds": round(plain_s, 1),
                  "stderr_tail": clean(err[-1500:], prog) if err.strip() else ""},
        "eager": {"exit_status": rc_e, "stdout": out_e},
        "stdout_same_as_eager": out == out_e,
        "logged_run_exit_status": rc_l,
        "counters": counters,
        "summary": {
            "frames_compiled": len(frames),
            "graphs": graphs,
            "graph_break_records": len(breaks),
            "recompiles": sum(1 for f in frames if f["recompile_reason"]),
            "failed_frames": sum(1 for f in frames if f["fail_type"]),
            "gb_ids": sorted({i for b in breaks for i in b["gb_ids"]} | {i for f in frames for i in f["restart_gb_ids"]}
                             | {i for g in log_gbs for i in g["gb_ids"]}),
            "break_lines": sorted({b["user_line"] for b in breaks if b["user_line"]} | {g["line"] for g in log_gbs
                                   if g["file"] == os.path.relpath(prog, HERE)}),
        },
        "trace_frames": frames,
        "trace_graph_breaks": breaks,
        "log_graph_breaks": log_gbs,
        "log_recompiles": log_recs,
        "log_recompile_limit": limit,
    }
    path = os.path.join(out_dir, name + ".json")
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
    s = result["summary"]
    print(f"{result['program']}: exit {rc} (eager {rc_e}) same_stdout={out == out_e} {plain_s:.1f}s "
          f"graphs={graphs} breaks={s['graph_break_records']} gb={','.join(s['gb_ids'])} lines={s['break_lines']} "
          f"recompiles={s['recompiles']} failed={s['failed_frames']}", flush=True)
    return result


if __name__ == "__main__":
    progs = sys.argv[1:] or sorted(glob.glob(os.path.join(HERE, "programs", "*.py")))
    for p in progs:
        collect(p)
