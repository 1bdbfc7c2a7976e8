#!/usr/bin/env bash
# One GPU lease's measurements in one call, sized for the device time a task is lent (15 minutes in
# all, starts and idle time included): about 10 minutes with the default budgets below, leaving time
# for a second call. Runs from binaries built and packed here (scripts/gpu_lease.sh pack; on the lent
# machine `scripts/gpu_lease.sh unpack` first) and writes one markdown report for bench/RESULTS.md:
#   1. the card (nvidia-smi) and the binaries' commit;
#   2. the parity tier: every golden case under the block program, the phase graph, the shared
#      program and the switch team (warp), byte for byte against the CPU's golden files (about 4
#      minutes on an H100 for the first three; the fourth, new, about a third more);
#   3. saturn-bench on issue 62's targets (item 5), one run each under a timeout:
#      DF-1056 at T = 16, Zdornov Fig. 6's 4096-node tree at 50 trials, fat_tree_4096 at T = 1,
#      fat_tree_64 at T = 4096 under each GPU program, and Santos Fig. 2a's two switches at
#      T = 1024 under the block and shared programs (a trial's state fits a block's shared memory);
#      the switch team (warp) against the phase graph on one trial of fat_tree_4096 and on the
#      Zdornov Fig. 6 batch (DF-1056's config uses ACKs, so congestion control's phase kernels);
#   4. batches side by side (scripts/gpu_side_by_side.sh) on a cut Rocher Fig. 6;
#   5. with FIGURES=1 (for a second call: about 2.5 more minutes), item 5's full-length figures,
#      Rocher Fig. 6 and Jiang Fig. 7, each run for FIGURE_TIMEOUT seconds (default 70): the last
#      progress line (`saturn run --progress lines`, one a minute) gives the share done and the
#      time left, so the full wall time as the GPU would take it.
# Usage: scripts/gpu_lease_check.sh [REPORT.md]   (default $OUT/gpu_lease_check.md, else ./)
# Environment: BUILD_DIR (default build-gpu), PARITY_TIMEOUT (s, default 360), BENCH_SECONDS
# (default 2), BENCH_TIMEOUT (s per run, default 40), SIDE_TIMEOUT (s per run, default 60),
# SKIP_PARITY=1, SKIP_SIDE=1, FIGURES=1, FIGURE_TIMEOUT (s, default 70). On a cpu build every step
# still runs (parity then reports its skips), which is how the script itself is checked.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
report=${1:-${OUT:-.}/gpu_lease_check.md}
build=${BUILD_DIR:-build-gpu}
[[ -x $build/saturn-bench ]] || { echo "gpu_lease_check: no $build/saturn-bench (scripts/gpu_lease.sh unpack)" >&2; exit 2; }
secs=${BENCH_SECONDS:-2}
bench_limit=${BENCH_TIMEOUT:-40}
mkdir -p "$(dirname "$report")" && : >"$report" || { echo "gpu_lease_check: cannot write $report" >&2; exit 2; }
say() { printf '%s\n' "$*" | tee -a "$report"; }
start_all=$(date +%s)

say "# GPU lease check, $(date -u '+%Y-%m-%d %H:%M UTC')"
say ""
say "- binaries: \`$build\`, $("$build/saturn" --version 2>/dev/null | head -n 1)"
say "- GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader 2>/dev/null | head -n 1 || echo 'none (nvidia-smi found no GPU)')"
say "- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
say ""

# --- 2. Parity -----------------------------------------------------------------------------------
if [[ ${SKIP_PARITY:-0} != 1 ]]; then
  say "## Parity tier (every golden case, every GPU program)"
  say ""
  t0=$(date +%s)
  log=$(mktemp)
  timeout "${PARITY_TIMEOUT:-360}" "$build/tests/saturn_parity_tests" >"$log" 2>&1
  rc=$?
  passed=$(grep -c '^\[       OK \]' "$log")
  skipped=$(grep -cE '^\[  SKIPPED \] .* \([0-9]+ ms\)$' "$log")
  failed=$(grep -cE '^\[  FAILED  \] .* \([0-9]+ ms\)$' "$log")
  say "- exit $rc in $(($(date +%s) - t0)) s: $passed passed, $failed failed, $skipped skipped"
  grep -E '^\[  FAILED  \] .* \([0-9]+ ms\)$' "$log" | head -n 20 | sed 's/^/    /' | tee -a "$report"
  grep -m1 -A3 'Failure' "$log" | sed 's/^/    /' | tee -a "$report"
  rm -f "$log"
  say ""
fi

# --- 3. Benchmarks -------------------------------------------------------------------------------
say "## saturn-bench (--seconds $secs, one run each, timeout $bench_limit s)"
say ""
say "| what | GPU program | trials | node_cycles_per_s | bytes_per_trial | wall s |"
say "|---|---|---|---|---|---|"
bench() {  # $1 label, $2 program, $3 trials, rest: saturn-bench arguments
  local label=$1 program=$2 trials=$3 t0 out rc line
  shift 3
  t0=$(date +%s)
  out=$(timeout "$bench_limit" "$build/saturn-bench" "$@" --trials "$trials" --seconds "$secs" --gpu-step "$program" 2>&1)
  rc=$?
  line=$(grep -E '^(case|config)=' <<<"$out" | tail -n 1)
  if [[ $rc -eq 0 && -n $line ]]; then
    say "| $label | $program | $trials | $(sed -n 's/.*node_cycles_per_s=\([^ ]*\).*/\1/p' <<<"$line") | $(sed -n 's/.*bytes_per_trial=\([^ ]*\).*/\1/p' <<<"$line") | $(($(date +%s) - t0)) |"
  else
    say "| $label | $program | $trials | failed (exit $rc: $(tail -n 1 <<<"$out" | cut -c1-80)) | | $(($(date +%s) - t0)) |"
  fi
}
bench "DF-1056 (target 400 M)" auto 16 --case dragonfly_1056
bench "Zdornov Fig. 6, 4096 nodes (target 300 M)" auto 50 --case zdornov_fig6
bench "fat_tree_4096 (target 50 M)" auto 1 --case fat_tree_4096
for program in graph warp; do bench "fat_tree_4096, one trial: graph against the switch team" "$program" 1 --case fat_tree_4096; done
bench "Zdornov Fig. 6, 4096 nodes: the switch team" warp 50 --case zdornov_fig6
for program in block graph shared; do bench "fat_tree_64 (target 2 G)" "$program" 4096 --case fat_tree_64; done
for program in block shared; do bench "Santos Fig. 2a, two switches" "$program" 1024 --config configs/papers/santos2002/fig2a.toml; done
say ""

# --- 4. Batches side by side ---------------------------------------------------------------------
if [[ ${SKIP_SIDE:-0} != 1 ]]; then
  say "## Batches side by side"
  say ""
  SATURN=$build/saturn TIMEOUT=${SIDE_TIMEOUT:-60} bash scripts/gpu_side_by_side.sh "$report.side" >/dev/null 2>&1
  cat "$report.side" >>"$report" 2>/dev/null && rm -f "$report.side"
  say ""
fi
# --- 5. Full-length figures, started and stopped (FIGURES=1) ----------------------------------------
if [[ ${FIGURES:-0} == 1 ]]; then
  say "## Full-length figures: the share done in ${FIGURE_TIMEOUT:-70} s"
  say ""
  for config in configs/papers/rocher2021/fig6.toml configs/papers/jiang2015/fig7.toml; do
    work=$(mktemp -d)
    timeout "${FIGURE_TIMEOUT:-70}" "$build/saturn" run "$config" --out "$work/run" --progress lines --quiet \
      >"$work/log" 2>&1
    say "- \`$config\`: $(grep -E '% done after' "$work/log" | tail -n 1 || true)"
    rm -rf "$work"
  done
  say ""
fi
say "Total: $(($(date +%s) - start_all)) s."
