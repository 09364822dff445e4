#!/usr/bin/env bash
# Benchmark (prints figures; not a test): lorgen's time and peak memory on large synthetic
# CodeScape trace profiles, against `cat FILE >/dev/null` on the same file in the same run.
#   tests/bench/prf_scale.sh [BUILD_DIR]
# For each size it generates a program of FUNCS functions (compiled with -ffunction-sections)
# and a trace of CALLS call records over them, then runs the whole pipeline:
#   lorgen trace.prf prog.o -o out.lor --ld-script out.ld --report out.txt
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
cmake --build "$build" --target lorgen lg_gen_prf >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

printf '%-10s %-10s %10s %10s %10s %12s %14s\n' functions calls "prf MiB" "cat s" "lorgen s" \
  "lorgen/cat" "peak RSS MiB"
for size in "2000 200000" "20000 2000000" "50000 5000000"; do
  read -r funcs calls <<<"$size"
  # The program: functions of varied size so cliques have real byte counts.
  awk -v n="$funcs" 'BEGIN {
    for (i = 0; i < n; i++) {
      printf "__attribute__((noinline)) int f%d(int x) { int r = x;", i
      for (k = 0; k < i % 7; k++) printf " r = r * %d + (x >> %d);", i % 13 + 3, k + 1
      printf " return r; }\n"
    }
  }' >"$work/prog.c"
  gcc -O1 -ffunction-sections -c "$work/prog.c" -o "$work/prog.o"
  "$build/tests/lg_gen_prf" "$funcs" "$calls" 42 "$work/trace.prf"
  mib=$(awk -v b="$(stat -c %s "$work/trace.prf")" 'BEGIN { printf "%.1f", b / 1048576 }')
  cat "$work/trace.prf" >/dev/null # warm the page cache
  t0=$(date +%s%N)
  cat "$work/trace.prf" >/dev/null
  t1=$(date +%s%N)
  rss_kib=$( { /usr/bin/time -f '%M' "$build/lorgen" -q "$work/trace.prf" "$work/prog.o" \
    -o "$work/out.lor" --ld-script "$work/out.ld" --report "$work/out.txt"; } 2>&1 | tail -1)
  t2=$(date +%s%N)
  cat_s=$(awk -v n=$((t1 - t0)) 'BEGIN { printf "%.3f", n / 1e9 }')
  lorgen_s=$(awk -v n=$((t2 - t1)) 'BEGIN { printf "%.2f", n / 1e9 }')
  ratio=$(awk -v a=$((t2 - t1)) -v b=$((t1 - t0)) 'BEGIN { printf "%.0f", a / b }')
  printf '%-10s %-10s %10s %10s %10s %12s %14s\n' "$funcs" "$calls" "$mib" "$cat_s" "$lorgen_s" \
    "${ratio}x" "$((rss_kib / 1024))"
done
