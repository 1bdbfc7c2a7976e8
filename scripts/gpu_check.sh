#!/usr/bin/env bash
# GPU check, for a machine with an NVIDIA GPU: builds the CUDA backend with its tests, runs the
# parity tier and the whole suite, runs the benchmark and the kernel resource table, and writes
# ONE markdown report.
#
# Usage: scripts/gpu_check.sh [REPORT.md]
#   REPORT.md defaults to $OUT/gpu_check_report.md when $OUT is set, else ./gpu_check_report.md.
# Environment (all optional):
#   BUILD_DIR=build-cuda     BENCH_TRIALS="1 128 1024 4096"   BENCH_TRIALS_LARGE="1 128 1024"   BENCH_SECONDS=2
#   JOBS=$(nproc) (build)    CTEST_JOBS=4 (tests share one GPU)   BENCH_TIMEOUT=900 (s per run)
#   PREBUILT=1: use the binaries already in BUILD_DIR (built elsewhere with the same source path;
#     see scripts/gpu_lease.sh), no configure or build
#   SUITE_TIMEOUT=0 (s for the whole suite, 0 = none; tests still running then count as failed).
#     On an H200 the suite did not finish in 450 s at -j12/-j16: its few-trial, many-cycle tests
#     take minutes each on a GPU (bench/RESULTS.md, "First GPU runs"); budget an hour or more.
#   SKIP_RESOURCES=1: leave out the kernel resource table (it compiles with nvcc)
# Exit status: 0 when the build, the parity tier (run, not skipped) and the whole suite pass; 1
# otherwise (the report says which step failed); 2 for a usage error.
set -uo pipefail   # no -e: a failed step is recorded in the report and the next step still runs
cd "$(dirname "$0")/.." || exit 2
root=$(pwd)

if [ $# -gt 1 ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  echo "usage: scripts/gpu_check.sh [REPORT.md]  (default \$OUT/gpu_check_report.md or ./gpu_check_report.md)" >&2
  exit 2
fi
if [ $# -eq 1 ]; then
  report=$1
elif [ -n "${OUT:-}" ]; then
  report="$OUT/gpu_check_report.md"
else
  report="$root/gpu_check_report.md"
fi
case "$report" in /*) ;; *) report="$root/$report" ;; esac
if ! mkdir -p "$(dirname "$report")" || ! : >"$report"; then
  echo "gpu_check: cannot write the report '$report'" >&2
  exit 2
fi

build_dir=${BUILD_DIR:-build-cuda}
bench_trials=${BENCH_TRIALS:-1 128 1024 4096}
bench_trials_large=${BENCH_TRIALS_LARGE:-1 128 1024}   # fat_tree_4096: about 23 MB per trial
bench_seconds=${BENCH_SECONDS:-2}
jobs=${JOBS:-$(nproc)}
ctest_jobs=${CTEST_JOBS:-4}
bench_timeout=${BENCH_TIMEOUT:-900}
nvcc=/usr/local/cuda/bin/nvcc
command -v nvcc >/dev/null 2>&1 && nvcc=$(command -v nvcc)
logs="$build_dir/gpu_check_logs"
mkdir -p "$logs"
failed=()   # names of the steps that failed, for the verdict

say() { printf '%s\n' "$*" >>"$report"; }
# A log's last lines in a collapsed block (the report is the one file that comes back).
log_block() {  # $1 title, $2 file, $3 lines
  say "<details><summary>$1</summary>"
  say ""
  say '```'
  tail -n "${3:-60}" "$2" >>"$report" 2>/dev/null
  say '```'
  say "</details>"
  say ""
}
# Runs a command with its output in a log; prints the seconds it took; returns its status.
timed() {  # $1 log file, rest: command
  local log=$1 start rc
  shift
  start=$(date +%s)
  "$@" >"$log" 2>&1
  rc=$?
  echo $(($(date +%s) - start))
  return $rc
}
echo "gpu_check: writing $report"

# --- 1. Machine, toolchain, commit -------------------------------------------------------------
say "# Saturn GPU check"
say ""
say "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
say "- host: $(hostname)"
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
dirty=""
[ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] && dirty=" (with uncommitted changes)"
say "- commit: $commit$dirty, $(git log -1 --format='%s' 2>/dev/null)"
say "- nvcc: $("$nvcc" --version 2>/dev/null | grep -i release || echo "not found at $nvcc")"
say "- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
archs="80;90"
if nvidia-smi -L >/dev/null 2>&1; then
  say "- GPU: $(nvidia-smi -L | head -n 4 | tr '\n' ' ')"
  say ""
  say "| name | driver | memory | SM clock max | memory clock max | power limit | compute capability |"
  say "|---|---|---|---|---|---|---|"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit,compute_cap \
    --format=csv,noheader 2>/dev/null | sed 's/, /|/g; s/^/|/; s/$/|/' >>"$report"
  # Also build for this GPU's own architecture ("native" without the CMake keyword, which fails
  # on older CMake when mixed with a list).
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')
  if [[ "$cap" =~ ^[0-9]+$ ]] && [[ ";$archs;" != *";$cap;"* ]]; then archs="$archs;$cap"; fi
  say ""
  nvidia-smi -q >"$logs/nvidia_smi_q.txt" 2>&1
  log_block "nvidia-smi -q (first 80 lines)" "$logs/nvidia_smi_q.txt" 80
else
  say "- GPU: **nvidia-smi finds no GPU**: the parity tier will skip and the check fails"
  failed+=("nvidia-smi")
fi
say "- CUDA architectures built: $archs"
say ""

# --- 2. Build: the CUDA backend with the test suite ---------------------------------------------
say "## Build"
say ""
configure=(cmake -S . -B "$build_dir" -G Ninja -DSATURN_BACKEND=cuda -DSATURN_BUILD_TESTS=ON
           -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_ARCHITECTURES=$archs")
if [ "${PREBUILT:-0}" = 1 ]; then
  if [ -x "$build_dir/saturn" ] && [ -x "$build_dir/tests/saturn_parity_tests" ]; then
    say "Prebuilt \`$build_dir\` (PREBUILT=1): not configured or built here."
    say ""
    built=1
  else
    say "**PREBUILT=1 but \`$build_dir\` has no saturn or tests/saturn_parity_tests.**"
    failed+=("build")
    built=0
  fi
elif secs=$(timed "$logs/configure.log" "${configure[@]}") && \
   secs2=$(timed "$logs/build.log" cmake --build "$build_dir" -j"$jobs"); then
  say "Built \`$build_dir\` (Release, sm $archs): configure ${secs} s, build ${secs2} s with -j$jobs."
  say ""
  built=1
else
  say "**Build failed.** Command: \`${configure[*]}\` then \`cmake --build $build_dir -j$jobs\`."
  say ""
  log_block "configure log" "$logs/configure.log" 40
  log_block "build log" "$logs/build.log" 80
  failed+=("build")
  built=0
fi

# --- 3. Parity tier, then the whole suite ------------------------------------------------------
if [ "$built" = 1 ]; then
  say "## Parity tier (GPU trials.csv against the CPU golden files, byte for byte)"
  say ""
  # The tier's own binary rather than ctest -L parity: its output names each case and, for a
  # skip, the reason. A skip on this machine means the tests could not use the GPU: a failure.
  secs=$(timed "$logs/parity.log" "$build_dir/tests/saturn_parity_tests")
  rc=$?
  skipped=$(grep -cE '^\[  SKIPPED \] .* \([0-9]+ ms\)$' "$logs/parity.log")  # one line per skipped case
  passed=$(grep -c '^\[       OK \]' "$logs/parity.log")
  say "- $build_dir/tests/saturn_parity_tests (also \`ctest -L parity\`): exit $rc in ${secs} s, $passed passed"
  if [ "$rc" -ne 0 ] || [ "$skipped" -ne 0 ]; then
    say "- **parity failed** ($skipped cases skipped; the output below names the reason or the first differing line)"
    failed+=("parity")
  else
    say "- every golden case is byte-identical to the CPU's"
  fi
  say ""
  log_block "parity output" "$logs/parity.log" 80

  say "## Whole test suite (cuda build)"
  say ""
  suite_timeout=${SUITE_TIMEOUT:-0}
  suite=(ctest --test-dir "$build_dir" -j"$ctest_jobs" --output-on-failure --timeout 300)
  [ "$suite_timeout" != 0 ] && suite=(timeout "$suite_timeout" "${suite[@]}")
  secs=$(timed "$logs/suite.log" "${suite[@]}")
  rc=$?
  summary=$(grep -E 'tests passed|tests failed' "$logs/suite.log" | tail -n 1)
  [ "$rc" = 124 ] && summary="stopped at SUITE_TIMEOUT=$suite_timeout s; $(grep -c ' Passed ' "$logs/suite.log") passed and $(grep -cE '\*\*\*Failed|\*\*\*Timeout|\*\*\*Exception' "$logs/suite.log") failed before then"
  say "- ctest -j$ctest_jobs: exit $rc in ${secs} s; $summary"
  grep -E '\*\*\*Failed|\*\*\*Timeout|\*\*\*Exception' "$logs/suite.log" | head -n 40 | sed -E 's/ \.{3,}/ /; s/^/    /' >>"$report"
  [ "$rc" -ne 0 ] && failed+=("suite")
  say ""
  if grep -q 'The following tests' "$logs/suite.log"; then
    say '```'
    sed -n '/The following tests/,$p' "$logs/suite.log" | head -n 60 >>"$report"
    say '```'
    say ""
  fi
  log_block "suite output (last lines)" "$logs/suite.log" 120
fi

# --- 4. Benchmark: saturn-bench, one run per case and trial count ------------------------------
if [ "$built" = 1 ]; then
  say "## Benchmark (saturn-bench --seconds $bench_seconds)"
  say ""
  : >"$logs/bench.log"
  say "| case | GPU program | trials | node_cycles_per_s | bytes_per_trial | seconds (wall) |"
  say "|---|---|---|---|---|---|"
  # fat_tree_64 fits a block, so it runs under the block, graph and shared programs (shared: a block
  # per trial, its 222 KiB of state in shared memory, never measured before); fat_tree_4096 (4,096
  # endpoints) as phase kernels from a graph, with a thread per switch (auto) and with the switch
  # team, a warp per switch (warp, never measured before).
  for run in "fat_tree_64 block" "fat_tree_64 graph" "fat_tree_64 shared" "fat_tree_4096 auto" "fat_tree_4096 warp"; do
    bench_case=${run% *} program=${run#* }
    trials_list=$bench_trials
    [ "$bench_case" = fat_tree_4096 ] && trials_list=$bench_trials_large
    for t in $trials_list; do
      cmd=("$build_dir/saturn-bench" --case "$bench_case" --trials "$t" --seconds "$bench_seconds" --gpu-step "$program")
      echo "\$ ${cmd[*]}" >>"$logs/bench.log"
      start=$(date +%s)
      out=$(timeout "$bench_timeout" "${cmd[@]}" 2>&1)
      rc=$?
      echo "$out" >>"$logs/bench.log"
      line=$(grep '^case=' <<<"$out" | tail -n 1)
      if [ "$rc" -eq 0 ] && [ -n "$line" ]; then
        rate=$(sed -n 's/.*node_cycles_per_s=\([^ ]*\).*/\1/p' <<<"$line")
        bytes=$(sed -n 's/.*bytes_per_trial=\([^ ]*\).*/\1/p' <<<"$line")
        say "| $bench_case | $program | $t | $rate | $bytes | $(($(date +%s) - start)) |"
      else
        say "| $bench_case | $program | $t | failed (exit $rc) | | $(($(date +%s) - start)) |"
      fi
    done
  done
  say ""
  say "Commands: \`$build_dir/saturn-bench --case CASE --trials T --seconds $bench_seconds --gpu-step PROGRAM\`, one per row."
  # The flow engine (one thread per trial on a GPU today): the Fig. 5 study at one width.
  out=$(timeout "$bench_timeout" "$build_dir/saturn-bench" --case flow_fig5_dmodk 2>&1)
  echo "$out" >>"$logs/bench.log"
  say "Flow engine: \`$(grep '^case=' <<<"$out" | tail -n 1 || echo "flow_fig5_dmodk failed")\`"
  say ""
  log_block "benchmark output" "$logs/bench.log" 60
fi

# --- 5. Kernel resources (nvcc -Xptxas -v, sm_90) -----------------------------------------------
say "## Kernel resources (scripts/kernel_resources.sh)"
say ""
if [ "${SKIP_RESOURCES:-0}" = 1 ]; then
  say "Left out (SKIP_RESOURCES=1)."
elif bash scripts/kernel_resources.sh >"$logs/resources.md" 2>"$logs/resources.err"; then
  cat "$logs/resources.md" >>"$report"
else
  say "kernel_resources.sh failed:"
  log_block "kernel_resources.sh errors" "$logs/resources.err" 30
fi
say ""

# --- Verdict ----------------------------------------------------------------------------------
say "## Verdict"
say ""
if [ ${#failed[@]} -eq 0 ]; then
  say "PASS: build, parity (every golden case byte-identical) and the whole suite."
  echo "gpu_check: PASS; report in $report"
  exit 0
fi
say "FAIL: ${failed[*]}. Full logs stay in \`$logs/\` on the machine that ran the check."
echo "gpu_check: FAIL (${failed[*]}); report in $report"
exit 1
