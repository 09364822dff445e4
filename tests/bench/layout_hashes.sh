#!/usr/bin/env bash
# Benchmark helper (prints figures; not a test): one hash per output lorgen writes for the
# benchmark programs of tests/bench/real_programs.sh, so that a change meant to keep behaviour
# (a refactoring) can be shown to keep every layout byte for byte.
#   [LORGEN=path/to/lorgen] tests/bench/layout_hashes.sh [BUILD_DIR]
# For every BUILD_DIR/bench-PROGRAM that holds TRAIN profiles, and for both profile kinds (.prf
# and callgrind) at the four geometries of the benchmark, it runs lorgen's default and prints the
# md5 of the .LOR, the GNU ld script, the lld ordering file and the text report, one line each,
# then the md5 of all those lines. Compare the last line before and after a change. LORGEN runs
# another build's lorgen on BUILD_DIR's programs (default: BUILD_DIR/lorgen).
set -euo pipefail
cd "$(dirname "$0")/../.."
# Absolute, since the .LOR and the report name the inputs as given.
build=$(cd "${1:-build}" && pwd)
lorgen=${LORGEN:-$build/lorgen}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
lines=$out/lines
: >"$lines"
for work in "$build"/bench-*; do
  [ -e "$work/layouts/probe-link" ] || continue
  name=${work##*/bench-}
  objs=("$work"/obj/*.o)
  for kind in prf callgrind; do
    profiles=("$work"/train-*."$kind")
    [ -e "${profiles[0]}" ] || continue
    for g in 4096,1,32 8192,1,32 16384,2,32 32768,8,64; do
      IFS=, read -r size ways line <<<"$g"
      o=$out/$name.$kind.${g//,/-}
      "$lorgen" -q --cache-size "$size" --ways "$ways" --line-size "$line" "${profiles[@]}" \
        "$work/layouts/probe-link" "${objs[@]}" -o "$o.lor" --ld-script "$o.ld" --lld "$o.lld" \
        --report "$o.txt"
      for f in lor ld lld txt; do
        printf '%s %s %s %s\n' "$(md5sum <"$o.$f" | cut -d' ' -f1)" "$name" "$kind" "${g}.$f"
      done >>"$lines"
    done
  done
done
cat "$lines"
echo "all: $(md5sum <"$lines" | cut -d' ' -f1) ($(wc -l <"$lines") outputs)"
