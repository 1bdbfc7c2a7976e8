#!/usr/bin/env bash
# CI step (called by scripts/test.sh): an ASan+UBSan build of `saturn` and the fuzz driver into
# build-sanitize/, small runs of a few configs under it, the fuzz regressions, a short mutation
# campaign and, where clang is installed, a fixed-budget libFuzzer run of both fuzz targets.
# Any sanitizer report, crash or finding fails the step. docs/development.md: "Fuzzing and sanitizers".
#   SATURN_FUZZ_RUNS     libFuzzer runs per target, seed 1 (default 3000; 0 skips libFuzzer)
#   SATURN_SANITIZE_CXX  compiler (default: clang++ when installed, else g++; libFuzzer needs clang)
#   SATURN_SANITIZE_DIR  build directory (default build-sanitize)
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
dir="${SATURN_SANITIZE_DIR:-build-sanitize}"
# A fixed number of libFuzzer runs with a fixed seed (about 30 s each here): the same inputs on
# every machine, so a CI pass or failure does not depend on how fast the machine is.
fuzz_runs="${SATURN_FUZZ_RUNS:-3000}"
jobs="$(nproc)"

cxx="${SATURN_SANITIZE_CXX:-}"
if [ -z "$cxx" ]; then
  if command -v clang++ >/dev/null 2>&1; then cxx=clang++; else cxx=g++; fi
fi
# -O1: a quarter less compile time than -O2 (the build is most of this step's time) and runs
# short enough; SATURN_SANITIZE adds -g1 (line tables) so reports have file:line stacks.
configure() {  # configure COMPILER FUZZ(ON|OFF)
  cmake -S . -B "$dir" -G Ninja -DSATURN_BACKEND=cpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1" \
    -DCMAKE_CXX_COMPILER="$1" \
    -DSATURN_SANITIZE=address,undefined -DSATURN_FUZZ="$2" >/dev/null
}
targets=(saturn saturn_fuzz)
fuzz=OFF
if [[ "$cxx" == *clang* ]]; then
  if configure "$cxx" ON 2>/dev/null; then
    fuzz=ON
    targets+=(fuzz_config fuzz_edge_list)
  else
    echo "sanitize: configuring with $cxx and SATURN_FUZZ=ON failed; using g++ without libFuzzer"
    cxx=g++
    rm -rf "$dir"
  fi
fi
[ "$fuzz" = ON ] || configure "$cxx" OFF
echo "sanitize: building ${targets[*]} with $cxx (-fsanitize=address,undefined)"
if ! cmake --build "$dir" -j"$jobs" --target "${targets[@]}" >"$dir/build.log" 2>&1; then
  # clang builds the engine (clang 14 does); should another clang lack a vector builtin
  # the engine uses (kernels/common/lanes.hpp), sanitize with g++ without libFuzzer.
  grep -m 5 'error' "$dir/build.log" || tail -n 20 "$dir/build.log"
  [ "$fuzz" = ON ] || exit 1
  echo "sanitize: the clang build failed; building with g++ instead (libFuzzer skipped)"
  cxx=g++ fuzz=OFF targets=(saturn saturn_fuzz)
  rm -rf "$dir"
  configure g++ OFF
  cmake --build "$dir" -j"$jobs" --target "${targets[@]}"
fi
built=$(date +%s)

export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# Small runs that reach every engine: the default study, two congestion-control configs (CCA,
# ECN marking with a source response), an edge-list topology, finite phase flows, adaptive routes
# with setup packets, flow mode.
short=(--trials 2 --threads 2 --quiet --set simulation.warmup_ns=2000 --set simulation.duration_ns=10000)
runs=(
  "configs/default.toml"
  "configs/examples/cca_all_to_one.toml"
  "configs/papers/santos2002/fig2b.toml"
  "configs/examples/leaf_spine.toml"
  "configs/examples/permutation_phase.toml"
)
for config in "${runs[@]}"; do
  echo "sanitize: saturn run $config (reduced)"
  "$dir/saturn" run "$config" "${short[@]}" --out "$out/$(basename "$config" .toml)" 2>"$out/err" ||
    { cat "$out/err"; exit 1; }
done
echo "sanitize: saturn run configs/default.toml with output queues (reduced, invariants checked)"
"$dir/saturn" run configs/default.toml "${short[@]}" --set switch.output_queue_packets=2 --set 'switch.speedup="2"' \
  --set simulation.check_invariants=true --out "$out/default_cioq" 2>"$out/err" || { cat "$out/err"; exit 1; }
echo "sanitize: saturn run configs/examples/adaptive_route_setup.toml (adaptive routes, setup packets; invariants checked)"
"$dir/saturn" run configs/examples/adaptive_route_setup.toml --trials 2 --threads 2 --quiet \
  --set simulation.check_invariants=true --out "$out/adaptive_route_setup" 2>"$out/err" || { cat "$out/err"; exit 1; }
for config in configs/papers/zdornov2009/fig5_contention.toml configs/papers/zdornov2009/saa_protocol.toml; do
  echo "sanitize: saturn run $config (flow mode, 2 trials)"
  "$dir/saturn" run "$config" --trials 2 --threads 2 --quiet --out "$out/$(basename "$config" .toml)" 2>"$out/err" ||
    { cat "$out/err"; exit 1; }
done

echo "sanitize: fuzz regressions (in-process and through saturn validate)"
"$dir/tests/fuzz/saturn_fuzz" --replay tests/fuzz/regressions --saturn "$dir/saturn"
echo "sanitize: 300 mutants (seed 1) under the sanitizers"
"$dir/tests/fuzz/saturn_fuzz" --corpus tests/fuzz/corpus --iterations 300 --seed 1 --save "$dir/fuzz-findings" |
  grep -v '^warning'

if [ "$fuzz" = ON ] && [ "$fuzz_runs" -gt 0 ]; then
  mkdir -p "$dir/fuzz-artifacts"
  for target in config edge_list; do
    echo "sanitize: libFuzzer fuzz_$target, ${fuzz_runs} runs (seed 1)"
    mkdir -p "$out/corpus_$target"
    # Exit status non-zero on a crash, timeout (10 s per input) or over 2 GB; the input is saved.
    if ! "$dir/tests/fuzz/fuzz_$target" "$out/corpus_$target" "tests/fuzz/corpus/$target" -seed=1 \
        -runs="$fuzz_runs" -timeout=30 -rss_limit_mb=2048 -max_len=65536 \
        -artifact_prefix="$dir/fuzz-artifacts/" -print_final_stats=1 >"$out/libfuzzer.log" 2>&1; then
      tail -n 60 "$out/libfuzzer.log"
      echo "sanitize: libFuzzer found a problem; the input is in $dir/fuzz-artifacts/ (add it to tests/fuzz/regressions)"
      exit 1
    fi
    grep -E '^(#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units)' "$out/libfuzzer.log" || true
  done
elif [ "$fuzz" = OFF ]; then
  echo "sanitize: libFuzzer skipped (needs a clang build: apt-get install clang); the portable driver ran instead"
fi
echo "sanitize: done in $(($(date +%s) - start)) s (build $((built - start)) s)"
