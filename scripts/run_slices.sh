#!/usr/bin/env bash
# Runs the slices of a long paper figure that are not yet done, JOBS at a time on one thread each,
# and keeps every completed slice under docs/<paper>/slices/<figure>/ so that the figure goes on
# from there on another machine or day (commit that directory):
#
#   scripts/run_slices.sh PAPER FIGURE SLICES [JOBS] [-- REPRODUCE-OPTION...]
#
# Each slice is `saturn reproduce PAPER FIGURE --shard I --shards SLICES --out results/<paper>/<figure>`
# (scripts/reproduce_shards.py); the slice that completes the figure's run merges it and writes the
# figure (its CSV files, plot and checks) into results/<paper>/<figure>/. Slices already complete,
# here or under docs/<paper>/slices/<figure>/, are not run again; a slice stopped part way goes on
# from its finished trials. Runs at nice 19 with SATURN_BINARY (default build/saturn). Stop it with
# Ctrl-C or SIGTERM: the slices in flight save their finished trials. For a figure that is one
# study (docs/user-guide.md lists them): one of several runs takes SLICES commands per run, which
# this script does not track.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() {
  echo "usage: scripts/run_slices.sh PAPER FIGURE SLICES [JOBS] [-- REPRODUCE-OPTION...]" >&2
  exit 2
}
[[ $# -ge 3 ]] || usage
paper=$1 fig=$2 slices=$3
shift 3
jobs=$(nproc)
if [[ $# -gt 0 && $1 != -- ]]; then
  jobs=$1
  shift
fi
extra=()
if [[ $# -gt 0 ]]; then
  [[ $1 == -- ]] || usage
  shift
  extra=("$@")  # e.g. --quick, --set KEY=VALUE: the same for every slice
fi
[[ $slices =~ ^[0-9]+$ && $slices -ge 1 && $slices -le 999 ]] || { echo "run_slices.sh: SLICES $slices: expected 1 to 999" >&2; exit 2; }
[[ $jobs =~ ^[0-9]+$ && $jobs -ge 1 ]] || { echo "run_slices.sh: JOBS $jobs: expected 1 or more" >&2; exit 2; }
out=results/$paper/$fig
kept=docs/$paper/slices/$fig
locks=$out/slice_locks
mkdir -p "$out" "$locks"
rm -rf "${locks:?}"/*
python=/usr/bin/python3
[[ -x $python ]] || python=python3
# Committed slices first (kept under the run directory's path inside $out): they are the files
# these slices would write, if the engine still gives the bits it gave then. The golden results
# (tests/golden) pin those bits, so a slice run at a commit whose golden files differ from this
# checkout's is left out, to run again.
if [[ -d $kept ]]; then
  while IFS= read -r m; do
    commit=$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["build"]["git_commit"])' "$m" 2>/dev/null || true)
    name=$(basename "$m")
    if [[ -z $commit ]] || ! git diff --quiet "${commit%-dirty}" HEAD -- tests/golden 2>/dev/null; then
      echo "run_slices.sh: $m: run at ${commit:-an unknown commit}, whose golden results differ from this checkout's; not taken up" >&2
      continue
    fi
    rel=$(dirname "${m#"$kept"}")
    mkdir -p "$out$rel"
    slice=${name#manifest.}
    slice=${slice%.json}
    cp -n "$(dirname "$m")"/*."$slice".* "$out$rel"/
  done < <(find "$kept" -name 'manifest.shard-*.json' | sort)
fi
n=$(printf '%03d' "$slices")

manifest() {  # slice $1's manifest, wherever the figure's run directory is under $out ("" if none)
  find "$out" -name "manifest.shard-$(printf '%03d' "$1")-of-$n.json" -print -quit
}

complete() {  # whether slice $1's manifest says complete
  local m
  m=$(manifest "$1")
  [[ -n $m ]] && grep -q '"complete": *true' "$m"
}

worker() {  # runs every slice it can lock, in order
  local i
  for ((i = 0; i < slices; ++i)); do
    complete "$i" && continue
    mkdir "$locks/$i" 2>/dev/null || continue
    echo "run_slices.sh: slice $i of $slices ($(date -u +%H:%M:%S))" >&2
    local rc=0
    OMP_NUM_THREADS=1 nice -n 19 "$python" scripts/reproduce.py "$paper" "$fig" --shard "$i" --shards "$slices" \
      --out "$out" "${extra[@]}" || rc=$?
    # 1: the figure was written and a check failed; 130: stopped (no further slices)
    [[ $rc -ge 128 ]] && return
    [[ $rc -le 1 ]] || echo "run_slices.sh: slice $i ended with exit $rc" >&2
    if complete "$i"; then  # keep its files beside the committed ones, at the same path
      local dir rel
      dir=$(dirname "$(manifest "$i")")
      rel=${dir#"$out"}
      mkdir -p "$kept$rel"
      cp "$dir"/*.shard-"$(printf '%03d' "$i")"-of-"$n".* "$kept$rel"/
    fi
  done
}

pids=()
# A stop reaches the slices' reproduce.py (children of the workers), which stop their runs and wait
# for their files.
trap 'for p in "${pids[@]}"; do pkill -INT -P "$p" 2>/dev/null || true; done; wait' INT TERM HUP
for ((j = 0; j < jobs; ++j)); do
  worker &
  pids+=($!)
done
wait
done_count=0
for ((i = 0; i < slices; ++i)); do complete "$i" && done_count=$((done_count + 1)); done
echo "run_slices.sh: $paper $fig: $done_count of $slices slices complete; kept in $kept" >&2
