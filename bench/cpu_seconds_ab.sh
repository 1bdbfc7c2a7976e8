#!/usr/bin/env bash
# A/B of two saturn-bench binaries in CPU seconds for a fixed number of cycles (one thread,
# passive OpenMP waits): usable on a machine busy with other work, where wall-clock rates are not.
# Usage: bench/cpu_seconds_ab.sh OLD_BENCH NEW_BENCH [CASE] [TRIALS] [CYCLES] [-- extra flags for NEW]
set -euo pipefail
old=$1 new=$2 case=${3:-fat_tree_64} trials=${4:-128} cycles=${5:-2000}
shift $(( $# < 5 ? $# : 5 ))
[ "${1:-}" = "--" ] && shift
extra=("$@")
t=$(mktemp)
for _ in 1 2; do
  for side in old new; do
    if [ $side = old ]; then cmd=("$old"); else cmd=("$new" "${extra[@]}"); fi
    /usr/bin/time -f "%U" -o "$t" env OMP_WAIT_POLICY=passive "${cmd[@]}" --case "$case" --trials "$trials" \
      --threads 1 --cycles "$cycles" >/dev/null
    echo "$side user_s=$(cat "$t")  ${cmd[*]}"
  done
done
rm -f "$t"
