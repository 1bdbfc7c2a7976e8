#!/usr/bin/env bash
# Runs the slices of a long paper figure that are not yet done, JOBS at a time on one thread each,
# and keeps every completed slice (and a stopped one's finished trials) under
# docs/<paper>/slices/<figure>/ so that the figure goes on
# from there on another machine or day (commit that directory):
#
#   scripts/run_slices.sh PAPER FIGURE SLICES [JOBS] [-- REPRODUCE-OPTION...]
#
# Each slice is `saturn reproduce PAPER FIGURE --shard I --shards SLICES --out results/<paper>/<figure>`
# (scripts/reproduce_shards.py); the slice that completes the figure's run merges it and writes the
# figure (its CSV files, plot and checks) into results/<paper>/<figure>/. Slices already complete,
# here or under docs/<paper>/slices/<figure>/, are not run again; a slice stopped part way goes on
# from its finished trials. Runs at nice 19 with SATURN_BINARY (default build/saturn). Stop it with
# Ctrl-C or SIGTERM: the slices in flight save their finished trials. A figure of several runs
# goes run by run, each in SLICES slices. RUN_SLICES_OUT and RUN_SLICES_KEPT put the two
# directories elsewhere.
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
out=${RUN_SLICES_OUT:-results/$paper/$fig}   # (the tests set both elsewhere)
kept=${RUN_SLICES_KEPT:-docs/$paper/slices/$fig}
locks=$out/slice_locks
mkdir -p "$out" "$locks"
rm -rf "${locks:?}"/*
python=/usr/bin/python3
[[ -x $python ]] || python=python3
# Committed slices first (kept under the run directory's path inside $out): they are the files
# these slices would write, if the engine still gives the bits it gave then. The golden results
# (tests/golden/*.trials.csv) pin those bits, so a slice run at a commit whose golden results differ
# from this checkout's is left out, to run again. (The cases' arguments may change without the
# results: a case that pins a changed default to the value it was recorded with.)
if [[ -d $kept ]]; then
  while IFS= read -r m; do
    commit=$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["build"]["git_commit"])' "$m" 2>/dev/null || true)
    name=$(basename "$m")
    if [[ -z $commit ]] || ! git diff --quiet "${commit%-dirty}" HEAD -- 'tests/golden/*.trials.csv' 2>/dev/null; then
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

open_runs() {  # the figure's run directories under $out that hold slices and are not merged yet
  local m d
  while IFS= read -r m; do
    d=$(dirname "$m")
    grep -qs '"complete": *true' "$d/manifest.json" || echo "$d"
  done < <(find "$out" -name "manifest.shard-*-of-$n.json") | sort -u
}

done_in() {  # whether slice $1 is complete in run directory $2
  grep -qs '"complete": *true' "$2/manifest.shard-$(printf '%03d' "$1")-of-$n.json"
}

waiting() {  # whether slice $1 has nothing to do until the other slices complete the run in hand
  local d k
  d=$(open_runs | head -n 1)
  [[ -n $d ]] && done_in "$1" "$d" || return 1
  for ((k = 0; k < slices; ++k)); do
    done_in "$k" "$d" || return 0
  done
  return 1  # every slice of it is there (taken up from those kept): any slice's command merges it
}

keep() {  # every slice under $out, beside the committed ones at the same path: a complete one,
  # or a stopped one's finished trials, which the next machine's --resume goes on from
  local m d rel
  while IFS= read -r m; do
    d=$(dirname "$m")
    rel=${d#"$out"}
    mkdir -p "$kept$rel"
    local k=${m##*manifest.}
    k=${k%.json}
    cp -u "$d"/*."$k".* "$kept$rel"/
  done < <(find "$out" -name "manifest.shard-*-of-$n.json")
  # docs/reproductions.md counts the committed slices: kept with them, it stays what the
  # committed files give (Reproduce.StatusTableMatchesTheCommittedChecks)
  if [[ $kept == "docs/$paper/slices/$fig" ]]; then "$python" scripts/reproduce.py --status >/dev/null || true; fi
}

# A figure of several runs needs every slice of its first run before any slice of its second
# (reproduce_shards.py): each worker goes over the slices again until the figure is written.
rm -f "$out/checks.csv"
worker() {
  local i rc
  while [[ ! -f $out/checks.csv ]]; do
    local ran=0
    for ((i = 0; i < slices; ++i)); do
      [[ -f $out/checks.csv ]] && return 0
      waiting "$i" && continue
      mkdir "$locks/$i" 2>/dev/null || continue
      echo "run_slices.sh: slice $i of $slices ($(date -u +%H:%M:%S))" >&2
      # In the background and waited for, so that a stop (TERM or HUP from the main script, or
      # from a `pkill -f`) reaches the slice at once: bash runs a trap only after the foreground
      # command ends. The slice then saves its finished trials and exits 130.
      OMP_NUM_THREADS=1 nice -n 19 "$python" scripts/reproduce.py "$paper" "$fig" --shard "$i" --shards "$slices" \
        --out "$out" "${extra[@]}" &
      local child=$! stop=0
      trap 'kill -INT "$child" 2>/dev/null; stop=1' TERM HUP
      rc=0
      wait "$child" || rc=$?
      while [[ $stop == 1 ]] && kill -0 "$child" 2>/dev/null; do
        rc=0
        wait "$child" || rc=$?
      done
      trap - TERM HUP
      keep
      rmdir "$locks/$i"
      # 0: done or waiting for other slices; 1: the figure was written and a check failed;
      # 128 + a signal: stopped; anything else: an error that another pass would repeat
      [[ $rc -ge 128 || $stop == 1 ]] && return 0
      [[ $rc -le 1 ]] || { echo "run_slices.sh: slice $i ended with exit $rc" >&2; return 0; }
      ran=1
    done
    [[ $ran == 1 ]] || sleep 15  # the other workers' slices are running
  done
}

pids=()
# A stop reaches the workers, which stop their slices and wait for their files.
trap 'kill -TERM "${pids[@]}" 2>/dev/null; wait' INT TERM HUP
for ((j = 0; j < jobs; ++j)); do
  worker &
  pids+=($!)
done
wait || true  # (a stop interrupts it; the trap has waited for the workers)
if [[ -f $out/checks.csv ]]; then
  echo "run_slices.sh: $paper $fig: written to $out; its slices are kept in $kept" >&2
else
  echo "run_slices.sh: $paper $fig: not finished; the complete slices are kept in $kept" >&2
fi
