#!/usr/bin/env bash
# Every textfacts set and half in both modes (the defaults, and the prototype extractor on),
# asked at the sets' dates and late (--late): the table of bench/RESULTS.md's textfacts
# passes in one command. One line per run:
#   SET MODE WHEN  right fact / wrong as valid / no fact / right first excerpt / right flagged
# (percentages), each run's full --verbose output kept in OUT/SET-MODE[late].txt.
#
#   bench/textfacts_sets.sh [BUILD_DIR] [OUT_DIR] [SET …]
#
# SETs (default: all): the tuning halves tune-even fresh-even dev2-even dev3-even, and the
# confirmation sets dev tune-odd fresh-odd dev2-odd dev3-odd heldout blind, and the halves of dev4, dev5, dev6, dev8, dev9, dev10 and dev11, and dev7 (confirmation only). MODES="def x"
# and WHENS="date late" choose the modes and times (e.g. MODES=x WHENS=date). Any other
# ENGRAM_* setting in the environment reaches the daemons (ENGRAM_STATE_PROTOTYPES=FILE
# tries a prototypes file). About 8 s a run, 6 minutes for everything on 2 cores.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build}
out=${2:-$repo/var/textfacts}
shift $(($# < 2 ? $# : 2))
data=$repo/bench/data
sets=(
  "tune-even:$data/textfacts-tune.json:even" "fresh-even:$data/textfacts-fresh.json:even"
  "dev2-even:$data/textfacts-dev2.json:even" "dev3-even:$data/textfacts-dev3.json:even"
  "dev:$repo/../shared/data/textfacts/dev.json:" "tune-odd:$data/textfacts-tune.json:odd"
  "fresh-odd:$data/textfacts-fresh.json:odd" "dev2-odd:$data/textfacts-dev2.json:odd"
  "dev3-odd:$data/textfacts-dev3.json:odd" "heldout:$data/textfacts-heldout.json:"
  "blind:$data/textfacts-blind.json:" "dev4-even:$data/textfacts-dev4.json:even"
  "dev4-odd:$data/textfacts-dev4.json:odd" "dev5-even:$data/textfacts-dev5.json:even"
  "dev5-odd:$data/textfacts-dev5.json:odd" "dev6-even:$data/textfacts-dev6.json:even"
  "dev6-odd:$data/textfacts-dev6.json:odd" "dev7:$data/textfacts-dev7.json:"
  "dev8-even:$data/textfacts-dev8.json:even" "dev8-odd:$data/textfacts-dev8.json:odd"
  "dev9-even:$data/textfacts-dev9.json:even" "dev9-odd:$data/textfacts-dev9.json:odd"
  "dev10-even:$data/textfacts-dev10.json:even" "dev10-odd:$data/textfacts-dev10.json:odd"
  "dev11-even:$data/textfacts-dev11.json:even" "dev11-odd:$data/textfacts-dev11.json:odd"
)
want=" $* "
mkdir -p "$out"
for s in "${sets[@]}"; do
  IFS=: read -r name file half <<<"$s"
  [ $# -gt 0 ] && [[ "$want" != *" $name "* ]] && continue
  if [ ! -f "$file" ]; then
    echo "$name: $file is missing, skipped" >&2
    continue
  fi
  for mode in ${MODES:-def x}; do
    for when in ${WHENS:-date late}; do
      args=(textfacts --data "$file" --verbose)
      [ -n "$half" ] && args+=(--half "$half")
      [ "$when" = late ] && args+=(--late)
      log="$out/$name-$mode${when/date/}.txt"
      if [ "$mode" = x ]; then
        ENGRAM_STATE_EXTRACTOR=use-lite "$build/engram-bench" "${args[@]}" >"$log" 2>&1
      else
        "$build/engram-bench" "${args[@]}" >"$log" 2>&1
      fi
      row=$(grep -m1 '^| all | [0-9]' "$log" |
        awk -F'|' '{gsub(/[ %]/, ""); printf "%s / %s / %s / %s / %s", $4, $5, $6, $7, $8}')
      printf '%-11s %-3s %-4s %s\n' "$name" "$mode" "$when" "$row"
    done
  done
done
