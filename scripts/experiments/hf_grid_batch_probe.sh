#!/usr/bin/env bash
# Do the grid's batches explain HF's failures at long T? (issue 24 item 2; docs/results/hf_grid.md)
# At T = 200 the grid's HF steps lower the loss of the 1,000 sequences they were computed on and not the loss
# of the next batch (temporal order, 2 bits: -0.051 a step on its own batch, +0.003 on the next; at T = 100,
# where the cell is solved, -0.071 and -0.062). The thesis's batches are larger: 10,000 sequences for the
# gradient, 1,000 for the curvature (§4.4). This script reruns grid cells with only the two batch sizes
# changed to the thesis's. Everything else is hf_grid.sh's HF with structural damping: the default
# initialisation, CG up to 100, validation every 5 iterations on 2,000, the confirmed success rule, BUDGET CPU
# s (default 3600: an iteration costs about 5 times the grid's) or 2,000 iterations.
# Runs: $ROOT/<problem>_T<T>_batch10k_s<seed>, resumable (lane.sh); CELLS default "temporal_order2:200"
# (problem:T), SEEDS default 1.   ROOT default runs/hf_grid_probe   TG the tapegrad binary   PRINT=1 commands
# The runs themselves: hf_grid_probe.sh.
VARIANT=batch10k CELLS=${CELLS:-temporal_order2:200} BUDGET=${BUDGET:-3600} exec bash "$(dirname "$0")/hf_grid_probe.sh"
