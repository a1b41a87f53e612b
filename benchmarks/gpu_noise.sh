#!/usr/bin/env bash
# Issue 63 on the GPU machine, in one device call: a bf16 program whose printed accuracy varies run to run by itself
# (benchmarks/gpu_programs/vit_bf16_noisy.py). Two plain runs and one with TORCH_COMPILE_DISABLE=1 (the oracle of
# its own noise), then `tdiag run` + `tdiag fix --verify`: which patches the rounds keep (CUDA graphs among them),
# the output band the verification measured, and the plain runs of the patched program. Results under $OUT as it goes.
set -u
T=${TMPDIR:-$(dirname "$(mktemp -u)")}
[ -d "$T/site"/tdiag ] || python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target "$T/site" .whl/*.whl || exit 1
export PYTHONPATH="$T/site" PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$OUT/gpu.txt"
W="$T/noise" && rm -rf "$W" && mkdir -p "$W" && cp benchmarks/gpu_programs/vit_bf16_noisy.py "$W/"
cd "$W" && git init -q && git add . && git -c user.name=t -c user.email=t@e commit -qm init
for i in 1 2; do python3 vit_bf16_noisy.py > "$OUT/plain-$i.txt" 2>/dev/null; done
TORCH_COMPILE_DISABLE=1 python3 vit_bf16_noisy.py > "$OUT/eager.txt" 2>/dev/null
head -50 "$OUT"/plain-*.txt "$OUT/eager.txt"
python3 -m tdiag run -q -o rec vit_bf16_noisy.py > /dev/null 2> "$OUT/run.err"
python3 -m tdiag lint rec > "$OUT/lint.txt" 2>&1; head -40 "$OUT/lint.txt"
S=$(date +%s)
timeout ${FT:-340} python3 -m tdiag fix rec --verify --budget ${FB:-320} --no-diff > "$OUT/fix.txt" 2>"$OUT/fix.err"
echo "fix --verify: $(( $(date +%s) - S )) s"
cp rec/fix/verification.json "$OUT/verification.json" 2>/dev/null
grep -E "^output|^eager parity|^round|keeps|kept nothing|^final|^rounds|stdout|step time|error" "$OUT/fix.txt" | cut -c1-400
