#!/usr/bin/env bash
# Benchmark (prints figures; not a test): how much of a program's EVAL instruction fetches a
# fast code region (ITCM-like, `lorgen --fast-region`) of 8, 16 and 32 KiB would serve, for the
# ways of filling it that issue 30 item 5 compares.
#
#   tests/bench/fast_region.sh BENCH_DIR [PROGRAM...]
#
# BENCH_DIR is a BUILD_DIR of tests/bench/real_programs.sh that already holds BENCH_DIR/bench-NAME
# (objects, layouts/probe-link, the TRAIN profiles train-*.prf and train-*.callgrind); nothing
# is rebuilt or relinked. PROGRAM defaults to every bench-NAME there. The lorgen used is ./build's
# (LORGEN=/path overrides). Work goes to WORK_DIR (default ./build/fast-region).
#
# For each program: EVAL (NAME_eval of tests/bench/programs/NAME.sh) runs once under callgrind
# (--dump-instr=yes, no cache simulation) on probe-link, one file per process; a function's share
# of Ir does not depend on the layout, so the plain link stands for every choice. Then, per
# region size, tests/bench/fast_region.py prints the share of the EVAL Ir (summed over the
# processes) that falls in functions chosen by:
#   lorgen-prf, lorgen-callgrind  lorgen --fast-region .fast=SIZE fed the TRAIN .prf or callgrind
#                      profiles (with libc.a when the build is static), members read from the .LOR;
#   hottest-by-calls   functions by TRAIN callgrind call count, most called first, each taken
#                      while it fits;
#   whole-files        whole objects (archive members) by TRAIN self Ir per byte, each taken
#                      while it fits: what relocating a file's code does;
#   train-ir-greedy    functions by TRAIN self Ir per byte, each taken while it fits (what
#                      knowing TRAIN exactly gives; a diagnostic, not a hand method);
#   bound-greedy       functions by EVAL Ir per byte, each taken while it fits;
#   bound-exact        the best set of whole functions knowing EVAL (exact knapsack, dynamic
#                      programming over bytes): the bound the targets are judged by, and
#   bound-fractional   bound-greedy plus a fraction of the first function that does not fit
#                      (an upper bound; loose where one big hot function does not fit).
# Bytes are ELF symbol sizes rounded up to the input section's alignment. A linker script moves
# input sections, so functions that share one (a C library member's .text) are one unit at the
# section's size for the hand methods and the bounds, as they are for lorgen.
# MEASURED=train: score on the TRAIN callgrind profiles themselves instead of running EVAL (the
# bound is then what lorgen's own input allows: how near its choice comes to the best set for
# the profile it was given, without the loss from TRAIN to EVAL).
# Time: on the machine of 2026-11-27, one callgrind run of EVAL per program (3 to 8 s for the six
# static programs) and up to 15 s of exact knapsack per program: about 2 minutes for all six.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 BENCH_DIR [PROGRAM...]" >&2; exit 2; }
build=$(cd "$1" && pwd)
shift
lorgen=${LORGEN:-$root/build/lorgen}
[ -x "$lorgen" ] || { echo "no lorgen at $lorgen" >&2; exit 2; }
out=${WORK_DIR:-$root/build/fast-region}
mkdir -p "$out"
# shellcheck source=tests/bench/i1_misses.sh
source "$root/tests/bench/i1_misses.sh"
selected=("$@")
if [ ${#selected[@]} -eq 0 ]; then
  for d in "$build"/bench-*/layouts/probe-link; do
    d=${d%/layouts/probe-link}
    selected+=("${d##*/bench-}")
  done
fi
sizes=(8192 16384 32768)
for name in "${selected[@]}"; do
  use_bench_program "$root" "$build" "$name" eval
  work=$build/bench-$name o=$out/$name
  rm -rf "$o" && mkdir -p "$o"
  archives=()
  [[ " $libs " != *" -static "* ]] || archives=("$(gcc -print-file-name=libc.a)")
  cat >"$o/run-callgrind" <<RUNNER
#!/bin/sh
n=\$((\$(cat "$o/count" 2>/dev/null || echo 0) + 1))
echo \$n >"$o/count"
exec valgrind --tool=callgrind --dump-instr=yes --dump-line=no --log-file=/dev/null \\
  --callgrind-out-file=\$(printf '%s/eval-%02d.callgrind' "$o" \$n) "$work/layouts/probe-link" "\$@"
RUNNER
  chmod +x "$o/run-callgrind"
  if [ "${MEASURED:-eval}" = train ]; then
    scored=("$work"/train-*.callgrind)
  else
    start=$SECONDS
    "${name}_eval" "$o/run-callgrind" >/dev/null
    echo "$name: EVAL under callgrind in $((SECONDS - start)) s ($(cat "$o/count") processes)" >&2
    scored=("$o"/eval-*.callgrind)
  fi
  lors=()
  for size in "${sizes[@]}"; do
    for kind in prf callgrind; do
      "$lorgen" -q --no-normalize "$work"/train-*."$kind" "$work/layouts/probe-link" "$work"/obj/*.o \
        "${archives[@]}" --fast-region .fast="$size" -o "$o/lorgen-$kind-$size.lor"
      lors+=("$size=lorgen-$kind=$o/lorgen-$kind-$size.lor")
    done
    # lorgen's default: each TRAIN profile scaled to the same total before they are summed.
    "$lorgen" -q "$work"/train-*.callgrind "$work/layouts/probe-link" "$work"/obj/*.o \
      "${archives[@]}" --fast-region .fast="$size" -o "$o/lorgen-callgrind-normalized-$size.lor"
    lors+=("$size=lorgen-callgrind-normalized=$o/lorgen-callgrind-normalized-$size.lor")
  done
  python3 "$root/tests/bench/fast_region.py" --program "$name" --elf "$work/layouts/probe-link" \
    --objects "$work"/obj/*.o --archives "${archives[@]}" --train "$work"/train-*.callgrind \
    --eval "${scored[@]}" --sizes "$(IFS=,; echo "${sizes[*]}")" --lor "${lors[@]}"
done
