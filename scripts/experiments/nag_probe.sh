#!/usr/bin/env bash
# Probes of the NAG-without-clip gap at addition T = 80 (issue 24 item 3; docs/results/nag_addition_T80.md):
# the thesis's settings (docs/results/configs/nag_addition_T80.json, 50,000 iterations) with one change each,
# on the seeds that stayed at chance level (2 and 5 by default). A variant that lets them escape points at
# the cause; one that does not rules it out at these seeds.
#   openblas   every product through OpenBLAS instead of oneDNN: other rounding, the same arithmetic. If a
#              seed escapes, the 0 of 5 is in good part chance, not a property of the settings
#   input005   input weights N(0, 1/15)·0.02 (std 0.005, the released code's base), not std 0.02
#   bias_h0    the hidden bias drawn N(0, 1/15) as in ch. 4's init (output bias 0) and a learned h_0
#   icml2013   μ_t = min(1 − 2^(−1−log2(⌊t/250⌋+1)), 0.98) (ICML 2013) instead of 0.9 then 0.98
#   ramp3e3    the schedule's rise from ε = 3e-4 to 3e-3 at iteration 3,001 spread over 450 iterations (×10^0.1
#              every 50), everything else the thesis's: seed 2 is thrown off by the first step at 3e-3
#              (nag_addition_T80.md, "What the per-iteration logs say")
# Runs: runs/nag_probe/<variant>_s<seed>, resumable (scripts/experiments/lane.sh); EVAL=1 scores finished runs
# (test error on 10,000 fresh sequences, seed 2026, as the page's table) and archives them; PRINT=1 prints the
# commands instead.
# Usage: TG=runs/bin/tapegrad-ee7168f VARIANTS="openblas input005" SEEDS="2 5" bash scripts/experiments/nag_probe.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
TG=${TG:-./build/tools/tapegrad}
export OPENBLAS_NUM_THREADS=1
source scripts/experiments/lane.sh
VARIANTS=${VARIANTS:-openblas input005 bias_h0 icml2013}
SEEDS=${SEEDS:-2 5}
for variant in $VARIANTS; do
  case $variant in
    openblas) change=(--set gemm=openblas) ;;
    input005) change=(--set model_options.input_scale=0.02) ;;
    bias_h0) change=(--set model_options.bias_scale=0.2582 --set model_options.learned_h0=true) ;;
    icml2013) change=(--set 'optimizer_options.momentum={"kind":"icml2013","mu_max":0.98,"period":250}') ;;
    ramp3e3)  # piecewise pieces are [last iteration, ε]; the preset's are [1500, 3e-5], [3000, 3e-4], [6000, 3e-3], [30000, 1e-3], then 1e-4
      ramp=$(/usr/bin/python3 -c 'print(",".join("[%d,%.4g]" % (3000 + 50 * k, 3e-4 * 10 ** (k / 10)) for k in range(1, 10)))')
      change=(--set "optimizer_options.lr={\"kind\":\"piecewise\",\"pieces\":[[1500,3e-5],[3000,3e-4],$ramp,[6000,3e-3],[30000,1e-3]],\"then\":1e-4}") ;;
    *) echo "nag_probe.sh: unknown variant '$variant' (openblas input005 bias_h0 icml2013 ramp3e3)" >&2; exit 2 ;;
  esac
  for seed in $SEEDS; do
    out=runs/nag_probe/${variant}_s$seed
    if [ "${EVAL:-0}" = 1 ]; then
      eval_lane "$out" error_rate --seed 2026 -n 10000
      continue
    fi
    train_or_print "$out" --config docs/results/configs/nag_addition_T80.json --seed "$seed" "${change[@]}"
  done
done
