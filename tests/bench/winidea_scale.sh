#!/usr/bin/env bash
# Benchmark (prints figures; not a test): `lorgen callgraph` on a large winIDEA binary timeline
# against `cat FILE.BIN >/dev/null` on the same file, from the page cache, in the same run.
#   tests/bench/winidea_scale.sh [BUILD_DIR] [SIZE] [RUNS]
# SIZE is the .BIN's size (default 2G; suffix K, M or G), RUNS how often each command is timed
# (default 3; the fastest run counts, as the machine may be shared). The export is made by
# lg_gen_winidea: a Text1 main file with the mapping of 5000 functions and a version 1.1 .BIN of
# 4 cores next to it. The same is then measured on a real program's timeline of about the same
# size: the demo (examples/demo) traced by the example tracer with LGTRACE_TIMELINE. The target
# (issue 5): lorgen's throughput at least half of cat's.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
size=${2:-2G}
runs=${3:-3}
cmake --build "$build" --target lorgen lg_gen_winidea >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# time_best NAME COMMAND...: runs the command RUNS times under /usr/bin/time and keeps the
# fastest run's "wall user sys maxrss_kib" in $NAME.
time_best() {
  local name=$1 best="" line
  shift
  for _ in $(seq "$runs"); do
    /usr/bin/time -o "$work/time" -f '%e %U %S %M' "$@" >/dev/null
    line=$(tail -1 "$work/time")
    if [ -z "$best" ] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
      best=$line
    fi
  done
  printf -v "$name" '%s' "$best"
}

# measure WHAT MAIN: prints the table for MAIN and its MAIN.BIN.
measure() {
  local what=$1 main=$2
  local bin=$main.BIN bytes
  bytes=$(stat -c %s "$bin")
  cat "$bin" >/dev/null # into the page cache
  cat "$bin" >/dev/null
  local cat_t lg_t cat_wall cat_user cat_sys lg_wall lg_user lg_sys lg_rss
  time_best cat_t cat "$bin"
  time_best lg_t "$build/lorgen" -q callgraph "$main" -o "$work/out.cg"
  "$build/lorgen" callgraph "$main" -o "$work/out.cg" # fails loudly if it fails

  read -r cat_wall cat_user cat_sys _ <<<"$cat_t"
  read -r lg_wall lg_user lg_sys lg_rss <<<"$lg_t"
  awk -v what="$what" -v bytes="$bytes" -v cw="$cat_wall" -v cu="$cat_user" -v cs="$cat_sys" -v lw="$lg_wall" \
    -v lu="$lg_user" -v ls="$lg_sys" -v rss="$lg_rss" -v edges="$(wc -l <"$work/out.cg")" 'BEGIN {
    gb = bytes / 1e9
    printf "%s: %.2f GB, %d records, %d call edges\n", what, gb, bytes / 24, edges
    printf "%-8s %9s %9s %9s %11s %11s\n", "", "wall s", "user s", "sys s", "GB/s wall", "GB/s cpu"
    printf "%-8s %9.2f %9.2f %9.2f %11.2f %11.2f\n", "cat", cw, cu, cs, gb / cw, gb / (cu + cs)
    printf "%-8s %9.2f %9.2f %9.2f %11.2f %11.2f\n", "lorgen", lw, lu, ls, gb / lw, gb / (lu + ls)
    printf "lorgen/cat time: %.2fx wall, %.2fx cpu (target: at most 2x); lorgen peak RSS %.1f MiB\n",
      lw / cw, (lu + ls) / (cu + cs), rss / 1024
  }'
}

"$build/tests/lg_gen_winidea" --functions 5000 --cores 4 --bin-bytes "$size" --seed 42 \
  "$work/main.txt" 2>/dev/null
measure "generated (v1.1, 4 cores, 5000 functions)" "$work/main.txt"
rm -f "$work/main.txt.BIN"

# The demo: about 96 MB of timeline per 5 rounds of 400 sentences (4 events per call).
rounds=$(awk -v s="$(numfmt --from=iec "$size")" 'BEGIN { r = int(s / 96e6 * 5); print r < 1 ? 1 : r }')
make -s -C examples/demo OUT="$work/demo" RUN_ARGS="-r $rounds -n 400 -s 2024" \
  TIMELINE=timeline.txt run >/dev/null
measure "demo timeline (example tracer, -r $rounds -n 400)" "$work/demo/timeline.txt"
