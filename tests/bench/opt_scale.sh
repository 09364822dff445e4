#!/usr/bin/env bash
# Benchmark (prints figures; not a test): the optimizer's time and peak memory on synthetic
# programs of 10k, 100k and 1M functions, against lorgen's own c3 and hot-first orders and a
# plain sort of the arcs, timed in the same process on the same program.
#   tests/bench/opt_scale.sh [BUILD_DIR]
# Each size runs in a process of its own (tests/bench/opt_scale.c builds the program in memory
# and runs the CLI's default path: lg_order "cliques", then lg_place_for_cache, SH-4 geometry).
# Columns, in CPU seconds (user + system: the optimizer is single-threaded and does no I/O, so
# on an idle machine this is the wall time, and other processes disturb it less): "graph"
# builds the call graph alone; "order" is lg_order (which builds the graph too), "place" the
# placement, "total" both, and "wall" the same in wall-clock seconds. "peak" is the process's
# peak RSS after the default path (the program included), "prog" the program's alone. c3,
# hot-first and the arc sort (by weight) are the baselines; order/c3 and total/c3 divide the
# clique pass's and the whole default path's time by c3's. The 1M case needs about 1.5 GiB and
# a minute or two. The placement's notes follow the table.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
if ! log=$(cmake --build "$build" --target lg_opt_scale 2>&1); then
  printf '%s\n' "$log" >&2
  exit 1
fi
seed=1
notes=$(mktemp)
run_notes=$(mktemp)
trap 'rm -f "$notes" "$run_notes"' EXIT

field() { # field NAME LINE: the value of NAME=VALUE in LINE
  tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"
}

row() { # one table row of 14 cells
  printf '%-9s %-9s %8s %8s %8s %8s %8s %9s %9s %8s %8s %8s %9s %9s\n' "$@"
}

row functions arcs "graph s" "order s" "place s" "total s" "wall s" "peak MiB" \
  "prog MiB" "c3 s" "hot s" "sort s" "order/c3" "total/c3"
hashes=()
for size in "10000 100000" "100000 1000000" "1000000 10000000"; do
  read -r funcs arcs <<<"$size"
  line=$("$build/tests/lg_opt_scale" "$funcs" "$arcs" "$seed" 2>"$run_notes")
  sed "s/^lg_opt_scale: /$funcs functions: /" "$run_notes" >>"$notes"
  row "$(field functions "$line")" "$(field arcs "$line")" \
    "$(field cg_cpu_s "$line")" "$(field order_cpu_s "$line")" "$(field place_cpu_s "$line")" \
    "$(field total_cpu_s "$line")" "$(field total_s "$line")" "$(field peak_rss_mib "$line")" \
    "$(field prog_rss_mib "$line")" "$(field c3_cpu_s "$line")" \
    "$(field hot_first_cpu_s "$line")" "$(field sort_arcs_cpu_s "$line")" \
    "$(field order_over_c3 "$line")x" "$(field total_over_c3 "$line")x"
  hashes+=("$funcs: $(field hash_cliques "$line")")
done
cat "$notes" # the placement's notes: padding, filler, bounds reached
echo "default layout hashes (seed $seed; change only when the optimizer's output does): ${hashes[*]}"
