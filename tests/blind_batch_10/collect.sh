#!/bin/bash
# torch's own account of one program, without tdiag:
#   collect.sh PROGRAM.py OUTDIR
# plain stdout, stdout under TORCH_COMPILE_DISABLE=1, and one run with
# TORCH_LOGS=graph_breaks,recompiles + TORCH_TRACE + the counters wrapper (stderr kept).
set -u
PY=${PY:-$(cd "$(dirname "$0")/../.." && pwd)/.venv/bin/python}
HERE=$(cd "$(dirname "$0")" && pwd)
prog=$(realpath "$1"); out=$2
mkdir -p "$out"; out=$(realpath "$out")
trace=$(mktemp -d /tmp/bb10_trace.XXXX)
t0=$(date +%s.%N)
$PY "$prog" > "$out/stdout.txt" 2> "$out/stderr.txt"; echo $? > "$out/exit_status.txt"
t1=$(date +%s.%N)
TORCH_COMPILE_DISABLE=1 $PY "$prog" > "$out/stdout_eager.txt" 2> /dev/null; echo $? > "$out/exit_status_eager.txt"
TORCH_LOGS=graph_breaks,recompiles TORCH_TRACE=$trace $PY "$HERE/counters_wrapper.py" "$out/counters.json" "$prog" > /dev/null 2> "$out/torch_logs.txt"
$PY "$HERE/summarize_trace.py" "$trace" > "$out/trace_summary.md"
rm -rf "$trace"
[ -s "$out/stderr.txt" ] || rm -f "$out/stderr.txt"
# no absolute path of this machine in what is kept
ROOT=$(cd "$HERE/../.." && pwd)
SITE=$($PY -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
for f in "$out"/*.txt "$out"/*.json "$out"/*.md; do
  [ -f "$f" ] || continue
  sed -i -E -e "s#$SITE#<site-packages>#g" -e "s#[^ \"'(]*/site-packages#<site-packages>#g" -e "s#$ROOT/##g" -e "s#$HOME#<home>#g" "$f"
done
printf 'plain run: %.1f s, exit %s; eager exit %s; stdout same as eager: %s\n' \
  "$(echo "$t1 - $t0" | bc)" "$(cat $out/exit_status.txt)" "$(cat $out/exit_status_eager.txt)" \
  "$(cmp -s $out/stdout.txt $out/stdout_eager.txt && echo yes || echo NO)" | tee "$out/run.txt"
