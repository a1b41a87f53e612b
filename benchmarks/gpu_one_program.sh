#!/usr/bin/env bash
# One ceiling program on the GPU machine, in one device call (~480 s): its `tdiag fix` flow alone, then its five
# figures (as written, tdiag's rounds, hand-fixed, expert, eager), best of 2 runs, on the same machine.
# PROG names the program (benchmarks/ceiling_programs), or several comma-separated, PAR of them at a time (their
# figures then compare within a program only); FT/FB: the flow's timeout and budget, GT/GB: the figures'.
# VERSIONS: the figures' versions (the goal reads before, tdiag, expert and eager: leaving out hand saves a fifth).
# PHASES=figures PATCHED=DIR: the figures alone, of a flow run in an earlier call (its d1.tgz unpacked into DIR, a
# carried path: a later call may start on a fresh machine).
# The machine has no network: tdiag and the packages torch 2.11's image lacks travel as wheels in .whl/ (carried),
# built here with `pip wheel --no-deps -w .whl .` (tdiag) and `pip download` (the rest). Results under $OUT.
set -u
P=${PROG:-mlp_train}
T=${TMPDIR:-$(dirname "$(mktemp -u)")}  # the machine's temporary folder: the site stays there between warm calls
[ -d "$T/site"/tdiag ] || python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target "$T/site" .whl/*.whl || exit 1
export PYTHONPATH="$T/site" PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1
nvidia-smi --query-gpu=name --format=csv,noheader
mkdir -p "$T"/d/fix "$T"/d/fig
if [[ "${PHASES:-fix,figures}" == *fix* ]]; then
  OUT="$T"/d/fix timeout "${FT:-300}" python3 benchmarks/gpu_expert.py --phases fix --fix-programs "$P" --fix-parallel "${PAR:-1}" \
      --fix-budget "${FB:-280}" --budget "${FB:-280}" > "$T"/d/fix/log 2>&1
  grep -E "CHECK" "$T"/d/fix/log | cut -c1-700
  tar czf "$OUT/d1.tgz" -C "$T" d  # the flow's JSON and patched file, in case the figures run out of time
fi
[[ "${PHASES:-fix,figures}" == *figures* ]] || exit 0
OUT="$T"/d/fig timeout "${GT:-245}" python3 benchmarks/gpu_expert.py --phases figures --programs "$P" --parallel "${PAR:-1}" \
    --patched "${PATCHED:-"$T"/d/fix}" --runs 2 --versions "${VERSIONS:-before,tdiag,hand,expert,eager}" --budget "${GB:-230}" > "$T"/d/fig/log 2>&1
grep -E "CHECK|^\|" "$T"/d/fig/log | cut -c1-400
tar czf "$OUT/d.tgz" -C "$T" d
