#!/usr/bin/env bash
# Batches side by side on one GPU (issue 62, item 3), measured in one short call: one figure study
# of many narrow batches (Rocher-Gonzalez Fig. 6: 120 points x 5 trials on the 432-node RLFT, cut
# to DURATION_NS), run with 1 host thread (one batch at a time) and with THREADS host threads (as
# many batches at once as fill the device: host/packet/gpu_side_by_side.hpp). Prints, and appends
# to REPORT, each run's wall time and batches_side_by_side from its manifest, and whether the two
# runs' trials.csv are byte-identical (they must be: results do not depend on the count).
#
#   scripts/gpu_side_by_side.sh [REPORT.md]
# Environment: SATURN (default build-gpu/saturn, as scripts/gpu_lease.sh unpack leaves it, else
# build/saturn), CONFIG (default configs/papers/rocher2021/fig6.toml), DURATION_NS (default 20000),
# THREADS (default 16), TIMEOUT (seconds per run, default 240). Works on a CPU build too (there
# THREADS splits batches over cores instead), which is how it is tested here.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
report=${1:-${OUT:-.}/gpu_side_by_side.md}
saturn=${SATURN:-build-gpu/saturn}
[[ -x $saturn ]] || saturn=build/saturn
config=${CONFIG:-configs/papers/rocher2021/fig6.toml}
duration=${DURATION_NS:-20000}
threads=${THREADS:-16}
limit=${TIMEOUT:-240}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

field() {  # a top-level field of a manifest
  /usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], "?"))' "$1" "$2" 2>/dev/null
}

{
  echo "### Batches side by side: $(basename "$config"), simulation.duration_ns = $duration ($(date -u +%F))"
  echo
  echo "Binary \`$saturn\` ($("$saturn" --version 2>/dev/null | head -n 1)); $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || echo 'no GPU')."
  echo
  echo "| host threads | wall (s) | batches_side_by_side | trials.csv fnv1a64 |"
  echo "|---|---|---|---|"
} | tee -a "$report"
for t in 1 "$threads"; do
  out=$work/t$t
  start=$(date +%s.%N)
  timeout "$limit" "$saturn" run "$config" --set "simulation.duration_ns=$duration" --threads "$t" --out "$out" \
    --quiet --progress off >"$work/t$t.log" 2>&1
  rc=$?
  wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  if [[ $rc -ne 0 ]]; then
    echo "| $t | $wall (exit $rc: $(tail -n 1 "$work/t$t.log")) | - | - |" | tee -a "$report"
    continue
  fi
  sum=$(grep -o 'fnv1a64=[0-9a-f]*' "$work/t$t.log" | tail -n 1)
  echo "| $t | $wall | $(field "$out/manifest.json" batches_side_by_side) | ${sum#fnv1a64=} |" | tee -a "$report"
done
echo | tee -a "$report"
if [[ -f $work/t1/trials.csv && -f $work/t$threads/trials.csv ]] && cmp -s "$work/t1/trials.csv" "$work/t$threads/trials.csv"; then
  echo "trials.csv byte-identical at 1 and $threads host threads." | tee -a "$report"
  exit 0
fi
echo "**trials.csv differs (or a run failed) between 1 and $threads host threads.**" | tee -a "$report"
exit 1
