# Sourced by scripts/sanitize.sh and scripts/fuzz.sh (after `cd` to the repo root, with `who` set):
# jobs, the clang 14 compiler ($CXX_CLANG, checked) and ccache as the compiler launcher ($launcher, a
# cmake argument list) when it is installed, shared across clones of the repository.
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
CXX_CLANG=${CXX_CLANG:-clang++-14}
command -v "$CXX_CLANG" >/dev/null || { echo "$who: $CXX_CLANG not found (bash scripts/setup.sh installs clang-14)" >&2; exit 2; }
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(pwd)}"
  export CCACHE_NOHASHDIR=1  # -g puts the build directory in ccache's key; without this no clone reuses another's objects
fi
