#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/, clang 14, ASan + UBSan, fatal) into ./build-fuzz and runs
# each for SECONDS seconds from its seed corpus (fuzz/corpus/<reader>). Any crash, sanitizer report,
# leak, timeout (> 10 s for one input) or allocation over 2 GB fails the run; the input that did it
# is left in build-fuzz/artifacts/. Found inputs are kept in build-fuzz/corpus/<target> (not the
# repository's seed corpus) so a later run continues from them. docs/fuzzing.md has long runs.
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default 45 s, all four; env JOBS)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-45}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(npz_fuzz task_file_fuzz text_fuzz run_config_fuzz)
who=fuzz
source scripts/clang_env.sh
B=${FUZZ_BUILD_DIR:-build-fuzz}  # another directory: e.g. a cold-build timing
start=$(date +%s)
# Only the libraries the readers need: no command, tests or benchmarks (their packages are not looked for).
cmake -S . -B "$B" -G Ninja -DCMAKE_CXX_COMPILER="$CXX_CLANG" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O1 -gline-tables-only" -DTAPEGRAD_SANITIZE=address,undefined -DTAPEGRAD_FUZZ=ON \
  -DTAPEGRAD_TESTS=OFF -DTAPEGRAD_CLI=OFF -DTAPEGRAD_BENCH=OFF "${launcher[@]}" >/dev/null
cmake --build "$B" -j "$jobs" --target "${targets[@]}"
built=$(date +%s)
echo "fuzz: built ${#targets[@]} harnesses in $((built - start)) s"
[ "$seconds" -gt 0 ] || exit 0

export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
mkdir -p "$B/artifacts"
failed=0
for t in "${targets[@]}"; do
  seeds=fuzz/corpus/${t%_fuzz}
  corpus=$B/corpus/$t
  mkdir -p "$corpus"
  log=$B/$t.log
  rc=0
  # The run's own corpus first (where new inputs go), then the seeds (read only).
  "$B/fuzz/$t" "$corpus" "$seeds" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$B/artifacts/$t-" >"$log" 2>&1 || rc=$?
  execs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || echo '?')
  cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || true)
  if [ "$rc" -ne 0 ]; then
    failed=$((failed + 1))
    echo "fuzz: FAIL $t (exit $rc) after $execs inputs; the input: $(ls "$B/artifacts/$t-"* 2>/dev/null | tail -1)"
    grep -E -A30 'ERROR: |runtime error:|==[0-9]+== ERROR|deadly signal|Timeout|out-of-memory' "$log" | head -60
  else
    echo "fuzz: ok   $t: $execs inputs in $seconds s, $(ls "$corpus" | wc -l) in its corpus, $cov"
  fi
done
end=$(date +%s)
echo "fuzz: ${#targets[@]} harnesses, $failed failed; build $((built - start)) s, run $((end - built)) s"
[ "$failed" -eq 0 ]
