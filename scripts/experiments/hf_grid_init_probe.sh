#!/usr/bin/env bash
# Does the initialisation explain the HF grid's failures? (issue 24 item 2; docs/results/hf_grid.md)
# The grid's RNN starts from `rnn`'s default, every weight dense N(0, 0.1²), zero biases. The thesis (§4.4,
# appendix "Details of the Pathological Synthetic Problems") uses Martens' sparse initialisation: 15 nonzero
# incoming weights per unit in W_hv, W_hh and W_ho, those of W_hh and W_ho and the biases N(0, 1/15), those
# of W_hv N(0, 1). This script reruns failed grid cells with only that changed: init=sparse, init_scale
# 0.2582 (= √(1/15)), input_scale 3.873 (× √15: the input weights' std 1), bias_scale 0.2582 (the hidden
# biases; the output bias stays zero). Everything else is hf_grid.sh's HF with structural damping: batch
# 1,000, curvature 200, CG up to 100, validation every 5 iterations on 2,000, the confirmed success rule,
# BUDGET CPU s (default 900) or 2,000 iterations.
# RESTART=1 adds optimizer_options.cg_restart_if_stuck=true (CG rerun from 0 when the warm start leaves q >= 0;
# docs/optimizers.md), for runs where HF gave up with λ past 1e25; those runs are named ..._sparse_restart_s<seed>.
# Runs: $ROOT/<problem>_T<T>_sparse_s<seed>, resumable (lane.sh); CELLS default "xor:50 memorization20:50"
# (problem:T), SEEDS default 1.   ROOT default runs/hf_grid_probe   TG the tapegrad binary   PRINT=1 commands
# The runs themselves: hf_grid_probe.sh.
variant=sparse; [ "${RESTART:-0}" = 1 ] && variant=sparse_restart
VARIANT=$variant CELLS=${CELLS:-xor:50 memorization20:50} BUDGET=${BUDGET:-900} \
  exec bash "$(dirname "$0")/hf_grid_probe.sh"
