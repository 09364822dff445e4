# shellcheck shell=bash
# Sourced by the benchmark scripts (real_programs.sh, slide_landscape.sh, shift_landscape.sh):
# one workload's instruction-cache misses under cachegrind, and what the tools that measure an
# already built program share.
#
# i1_misses WORK WORKLOAD_FN BINARY GEOMETRY: runs the workload function (a program's NAME_train
# or NAME_eval, tests/bench/programs/) with WORK/run-cg standing for the program, BINARY under
# cachegrind with I1=GEOMETRY, and prints the I1 misses summed over its processes. WORK/run-cg is
# written by write_cg_runner (below); it appends each process's count to WORK/cg.sum.
#
# BINARY runs as a copy at one path, WORK/measured/program, whatever its own name: a program's
# misses depend a little on the path it was started by (its argv[0] and the strings the C library
# walks at start-up), so that two byte-identical links measured under their own names differed
# (xz at 32K 8-way: 8,281 and 8,288 misses), and a layout that keeps the input order looked worse
# than it.
i1_misses() {
  local work=$1 workload_fn=$2
  mkdir -p "$work/measured"
  cp "$3" "$work/measured/program"
  : >"$work/cg.sum"
  (export CG_BINARY=$work/measured/program CG_GEOMETRY=$4; "$workload_fn" "$work/run-cg" >/dev/null)
  awk '{ s += $1 } END { if (NR == 0) exit 1; print s }' "$work/cg.sum" ||
    { echo "no cachegrind summary for $3 at $4" >&2; return 1; }
}

# write_cg_runner WORK: writes WORK/run-cg, which runs $CG_BINARY under cachegrind with
# I1=$CG_GEOMETRY (D1 and LL fixed, so that only I1 differs between runs), logs to WORK/cg.log and
# appends the process's I1 misses to WORK/cg.sum.
write_cg_runner() {
  local work=$1
  cat >"$work/run-cg" <<EOF
#!/bin/sh
rm -f "$work/cg.log"
valgrind --tool=cachegrind --cache-sim=yes --I1="\$CG_GEOMETRY" --D1=32768,8,64 \\
  --LL=8388608,16,64 --cachegrind-out-file=/dev/null --log-file="$work/cg.log" "\$CG_BINARY" "\$@"
rc=\$?
awk '/I1  misses:/ { gsub(",", "", \$4); print \$4 }' "$work/cg.log" >>"$work/cg.sum"
exit \$rc
EOF
  chmod +x "$work/run-cg"
}

# use_bench_program ROOT BUILD NAME WORKLOAD: defines the benchmark programs' functions
# (ROOT/tests/bench/programs/), checks that NAME_WORKLOAD is one of them, and sets libs (and
# title) from BUILD/bench-NAME/build.env, which real_programs.sh wrote; for the tools that
# measure a program real_programs.sh has built. Returns 2 for an unknown program.
use_bench_program() {
  local f
  # shellcheck disable=SC2034 # read by the program definitions
  cache=$2/bench-cache
  for f in "$1"/tests/bench/programs/*.sh; do
    # shellcheck disable=SC1090
    source "$f"
  done
  declare -F "$3_$4" >/dev/null || { echo "no program '$3'" >&2; return 2; }
  # shellcheck disable=SC2034 # read by the caller: the libraries the program links with
  libs=''
  # shellcheck disable=SC1090 # written by real_programs.sh: libs and title
  source "$2/bench-$3/build.env"
}

# write_shift_script N FILE: a GNU ld script that puts N bytes of padding before the program's
# text, moving all of it against the code no link order moves (the benchmark's SHIFTS). Give it
# before a layout's own script, so that the layout's section (inserted before .text too) follows
# the padding.
write_shift_script() {
  printf 'SECTIONS { .text.shift : { . = . + %d; } } INSERT BEFORE .text;\n' "$1" >"$2"
}

# shift_layout_script N IN OUT: IN with its code shifted by N bytes inside its own alignment, when
# IN aligns its code to the way size (lorgen's placement: `. = ALIGN(W);`), which would otherwise
# absorb the padding of write_shift_script: OUT starts that code N mod W bytes past the alignment.
# Returns 1, writing nothing, when IN has no such alignment.
shift_layout_script() {
  grep -q '^ *\. = ALIGN([0-9]*);$' "$2" || return 1
  sed "s/^\( *\)\. = ALIGN(\([0-9]*\));$/\1. = ALIGN(\2) + ($1 % \2);/" "$2" >"$3"
}
