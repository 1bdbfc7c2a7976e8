#!/usr/bin/env bash
# Measurements for bench/RESULTS.md on a lent GPU machine, from binaries built elsewhere
# (scripts/gpu_lease.sh pack; a portable CPU build of saturn-bench in CPU_BENCH, -march=x86-64-v3,
# with its libgomp in CPU_LIBS): the block program's trials per block, the block program on a
# network too large for one trial per block, and the CPU backend on the same machine's cores.
# Prints one `case=` line per run. Usage: scripts/gpu_tune.sh [BUILD_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
cpu_bench=${CPU_BENCH:-.gpu-carry/cpu/saturn-bench}
secs=${BENCH_SECONDS:-1}
run() { echo "\$ $*"; timeout 60 "$@" 2>&1 | grep -E '^case=|rror' || echo "(failed or timed out: exit ${PIPESTATUS[0]})"; }

echo "## block program: trials per block (fat_tree_64)"
for t in 128 4096; do
  for tpb in 1 4 8 16 32; do
    run "$build/saturn-bench" --case fat_tree_64 --trials "$t" --seconds "$secs" --gpu-step block --gpu-trials-per-block "$tpb"
  done
done
echo "## block program on fat_tree_4096 (4,096 endpoints, a block strides over them)"
for t in 128 1024; do run "$build/saturn-bench" --case fat_tree_4096 --trials "$t" --seconds "$secs" --gpu-step block; done
if [ -x "$cpu_bench" ]; then
  echo "## CPU backend on this machine ($(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2))"
  export LD_LIBRARY_PATH=${CPU_LIBS:-.gpu-carry/cpu}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  for t in 16 128 1024; do run "$cpu_bench" --case fat_tree_64 --trials "$t" --seconds "$secs" --threads "$(nproc)"; done
  for t in 16 128; do run "$cpu_bench" --case fat_tree_4096 --trials "$t" --seconds "$secs" --threads "$(nproc)"; done
fi
