"""Summarise a TORCH_TRACE directory: frames compiled, graphs, graph breaks (with gb ids),
recompile reasons and failed frames, from torch's structured log.
usage: python summarize_trace.py TRACE_DIR"""
import glob
import json
import os
import re
import sys

HEAD = re.compile(r"^[VIWE]\d{4} [\d:.]+ \d+ \S+\] (\{.*\})\s*$")


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


def gb_id(text):
    m = re.search(r"gb/(gb\d+)\.html", text or "")
    return m.group(1) if m else "-"


def first(text, n=160):
    t = " ".join((text or "").split())
    return t if len(t) <= n else t[: n - 3] + "..."


def main(d):
    files = sorted(glob.glob(os.path.join(d, "*.log")))
    metrics, graphs, breaks = [], {}, []
    for f in files:
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
                    metrics.append(cm)
            elif "dynamo_output_graph" in meta:
                graphs[cid] = graphs.get(cid, 0) + 1
            elif meta.get("artifact", {}).get("name") == "dynamo_graph_break_reason":
                breaks.append((cid, payload))
    print(f"# TORCH_TRACE summary ({len(files)} log file(s))\n")
    print(f"- frames compiled (compilation_metrics records): {len(metrics)}")
    print(f"- graphs produced (dynamo_output_graph): {sum(graphs.values())}")
    print(f"- graph-break records (dynamo_graph_break_reason): {len(breaks)}")
    print(f"- records with a recompile_reason: {sum(1 for m in metrics if m.get('recompile_reason'))}")
    print(f"- failed frames (fail_type set): {sum(1 for m in metrics if m.get('fail_type'))}\n")
    print("## Frames\n")
    print("| compile_id | function | ops | guarded | fail | restart (break) reasons | recompile reason |")
    print("|---|---|---|---|---|---|---|")
    for m in metrics:
        fn = f"{m.get('co_name')} ({os.path.basename(m.get('co_filename') or '')}:{m.get('co_firstlineno')})"
        fail = ""
        if m.get("fail_type"):
            fail = f"{m['fail_type']}: {first(m.get('fail_reason'), 120)} @ {os.path.basename(m.get('fail_user_frame_filename') or '')}:{m.get('fail_user_frame_lineno')}"
        rr = "; ".join(f"[{gb_id(r)}] {first(r, 90)}" for r in (m.get("restart_reasons") or []))
        rec = first(m.get("recompile_reason"), 160) if m.get("recompile_reason") else ""
        print(f"| {m.get('compile_id')} | {fn} | {m.get('graph_op_count')} | {m.get('has_guarded_code')} | {fail.replace('|', '/')} | {rr.replace('|', '/')} | {rec.replace('|', '/')} |")
    print("\n## Graph breaks (dynamo_graph_break_reason)\n")
    seen = {}
    for cid, p in breaks:
        lines = [l for l in p.split("\n") if l.strip()]
        reason = next((l for l in lines if l.strip()), "")
        expl = next((l.strip() for l in lines if l.strip().startswith("Explanation:")), "")
        user = [l.strip() for l in lines if re.match(r'\s*File "', l) and "site-packages" not in l]
        where = user[-1] if user else ""
        key = (gb_id(p), where, first(reason, 100))
        seen.setdefault(key, []).append(cid)
        seen[key + ("_expl",)] = expl
    for key, cids in list(seen.items()):
        if key[-1] == "_expl":
            continue
        print(f"- {key[0]} at `{key[1]}` (compile ids {', '.join(str(c) for c in cids)}): {key[2]} -- {first(seen[key + ('_expl',)], 160)}")


if __name__ == "__main__":
    main(sys.argv[1])
