# shellcheck shell=bash
# Sourced by the benchmark scripts (real_programs.sh, slide_landscape.sh): one workload's
# instruction-cache misses under cachegrind.
#
# i1_misses WORK WORKLOAD_FN BINARY GEOMETRY: runs the workload function (a program's NAME_train
# or NAME_eval, tests/bench/programs/) with WORK/run-cg standing for the program, BINARY under
# cachegrind with I1=GEOMETRY, and prints the I1 misses summed over its processes. WORK/run-cg is
# written by real_programs.sh (make_runners); it appends each process's count to WORK/cg.sum.
i1_misses() {
  local work=$1 workload_fn=$2
  : >"$work/cg.sum"
  (export CG_BINARY=$3 CG_GEOMETRY=$4; "$workload_fn" "$work/run-cg" >/dev/null)
  awk '{ s += $1 } END { if (NR == 0) exit 1; print s }' "$work/cg.sum" ||
    { echo "no cachegrind summary for $3 at $4" >&2; return 1; }
}
