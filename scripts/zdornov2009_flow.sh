#!/usr/bin/env bash
# Zdornov & Birk 2009 flow-level reproductions, one command each: runs the study with build/saturn
# and plots it with scripts/plot.py (Debian's matplotlib). Writes results/zdornov2009_<fig>/
# (summary.csv, trials.csv, manifest.json and <fig>.png).
#   bash scripts/zdornov2009_flow.sh fig5    # Fig. 5: contention against horizontal width
#   bash scripts/zdornov2009_flow.sh fig4    # Fig. 4: +10% switch ports at width 2
#   bash scripts/zdornov2009_flow.sh fig6    # Fig. 6: fluid completion bounds against P
#   bash scripts/zdornov2009_flow.sh all
set -euo pipefail
cd "$(dirname "$0")/.."
run() {
  local fig=$1 config=$2 x=$3
  shift 3
  local out=results/zdornov2009_$fig
  ./build/saturn run "configs/papers/zdornov2009/$config.toml" --out "$out"
  local metrics=()
  for m in "$@"; do metrics+=(--metric "$m"); done
  /usr/bin/python3 scripts/plot.py "$out/summary.csv" --x "$x" "${metrics[@]}" --out "$out/$fig.png" \
    --title "Zdornov & Birk 2009 $fig (flow engine, $(basename "$config"))"
}
case "${1:-all}" in
  fig5) run fig5 fig5_contention topology.horizontal_width contention_max contention_mean ;;
  fig4) run fig4 fig4_ports topology.horizontal_width switch_ports switch_ports_added_pct ;;
  fig6) run fig6 fig6_fluid traffic.permutations saa_completion maxmin_completion ;;
  all) "$0" fig5 && "$0" fig4 && "$0" fig6 ;;
  *) echo "usage: $0 fig5|fig4|fig6|all" >&2; exit 2 ;;
esac
