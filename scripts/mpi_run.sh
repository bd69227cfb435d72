#!/usr/bin/env bash
# Runs a command as NP MPI ranks on this machine with settings that work in containers and as root:
#   shared memory between the ranks (btl self,vader; pml ob1: no network or UCX probing), no
#   single-copy mechanism (CMA needs ptrace rights containers often lack), more ranks than cores
#   allowed, running as root allowed (CI runs as root), and no binding of ranks to cores: on a machine
#   shared with other work, a rank pinned to a busy core waits while another core idles, and every
#   rank waits for the slowest at each sum; unpinned, the kernel moves it.
# Usage: scripts/mpi_run.sh NP COMMAND [ARGS...]     e.g. scripts/mpi_run.sh 2 build/tools/tapegrad train ...
set -euo pipefail
if [ $# -lt 2 ]; then echo "usage: $0 NP COMMAND [ARGS...]" >&2; exit 2; fi
np=$1
shift
command -v mpirun >/dev/null || { echo "$0: mpirun not found (install openmpi-bin: bash scripts/setup.sh)" >&2; exit 2; }
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader --mca pml ob1 -np "$np" "$@"
