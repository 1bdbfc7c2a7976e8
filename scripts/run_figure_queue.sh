#!/usr/bin/env bash
# The full-length figures still to run, one after another, each in slices (scripts/run_slices.sh),
# so that a machine's cores stay on the queue from one figure to the next until it is stopped:
#
#   scripts/run_figure_queue.sh [JOBS]
#
# The queue is docs/figure_queue.txt (PAPER FIGURE SLICES [rerun] a line, the first line first; '#'
# starts a comment). A figure whose full result is committed (docs/<paper>/<figure>_full_checks.csv)
# is passed over, unless its line says `rerun` (its config changed since that result was run). Stop
# it with Ctrl-C or SIGTERM: the slices in flight save their finished trials, and no further figure
# starts. What to commit as slices and figures complete: docs/development.md,
# "Full-length figures in slices".
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
jobs=${1:-$(nproc)}
queue=${FIGURE_QUEUE:-docs/figure_queue.txt}
[[ -f $queue ]] || { echo "run_figure_queue.sh: no $queue" >&2; exit 2; }
stopped=0
child=
trap 'stopped=1; [[ -n $child ]] && kill -TERM "$child" 2>/dev/null' INT TERM HUP
while read -r paper fig slices flag _; do
  [[ -z ${paper:-} || $paper == \#* ]] && continue
  [[ $stopped == 1 ]] && break
  if [[ -n ${flag:-} && $flag != rerun ]]; then
    echo "run_figure_queue.sh: $queue: $paper $fig: unknown flag '$flag' (allowed: rerun, or none)" >&2
    exit 2
  fi
  if [[ -f docs/$paper/${fig}_full_checks.csv && ${flag:-} != rerun ]]; then
    echo "run_figure_queue.sh: $paper $fig: its full result is committed; passed over" >&2
    continue
  fi
  echo "run_figure_queue.sh: $paper $fig in $slices slices ($(date -u +%F\ %H:%M))" >&2
  scripts/run_slices.sh "$paper" "$fig" "$slices" "$jobs" &
  child=$!
  wait "$child"
  while kill -0 "$child" 2>/dev/null; do wait "$child"; done  # (a stop interrupts the first wait)
  child=
done < <(grep -v '^\s*$' "$queue")
