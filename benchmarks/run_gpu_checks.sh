#!/usr/bin/env bash
# Run the GPU acceptance checks (benchmarks/gpu_*.py) on the lent GPU machine (torch/triton preinstalled there; tdiag and the few packages it
# lacks travel as wheels in .whl/, built beforehand with `pip wheel --no-deps -w .whl .` plus `pip download` of
# textual/plotly/libcst and their needs). Usage: bash benchmarks/run_gpu_checks.sh [script ...]; logs go to $OUT.
set -u
T=${TMPDIR:-$(dirname "$(mktemp -u)")}  # the machine's temporary folder
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$T/site" .whl/*.whl || exit 1
export PYTHONPATH="$T/site" PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 NCCL_NVLS_ENABLE=0
OUT=${OUT:-$T/out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.used --format=csv,noheader
python3 -c "import torch, tdiag; print('torch', torch.__version__, 'tdiag', tdiag.__version__, 'gpus', torch.cuda.device_count())"
status=0
for script in "$@"; do
  name=$(basename "$script" .py)
  echo "=== $name ($(date +%T))"
  timeout 540 python3 "benchmarks/$name.py" > "$OUT/$name.log" 2>&1
  rc=$?
  echo "exit $rc"
  grep -E '^(CHECK|ALL|SKIP|RESULT|  *[0-9]+ CHECK)|CHECK|step|before|after' "$OUT/$name.log" | tail -40
  [ $rc = 0 ] || status=1
done
exit $status
