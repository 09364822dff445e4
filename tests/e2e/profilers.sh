#!/usr/bin/env bash
# End to end with real profilers: the same firmware program profiled by the example tracer
# (.prf), by callgrind and by perf record + perf script. Each profile alone and all of them
# merged give a link order that takes effect; callgrind's exact call counts come through.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
fw=$src/tests/e2e/control_loop
rm -rf "$work" && mkdir -p "$work/obj" "$work/prof" && cd "$work"
CFLAGS="-O2 -g -ffunction-sections -fno-omit-frame-pointer -I$fw"
FW="sensor control comms faults run host_main"

# shellcheck disable=SC2086 # FW is words on purpose
build_and_trace "$fw" fw fw.prf "$CFLAGS" $FW

# order_with NAME PROFILE...: lorgen, relink, same output, order read back.
order_with() {
  local name=$1
  shift
  "$lorgen" -q "$@" fw obj/*.o -o "$name.lor" --ld-script "$name.ld" --report "$name.txt"
  gcc obj/*.o -Wl,-T,"$name.ld" -o "fw-$name"
  "./fw-$name" >"$name.out"
  cmp -s base.out "$name.out" || fail "$name: the relinked program prints a different result"
  check_order "fw-$name" nm "$name.lor"
}

step "callgrind: exact call counts"
valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=fw.callgrind ./fw >/dev/null 2>&1
"$lorgen" callgraph fw.callgrind -o cg.txt
grep -qx "comms_frame comms_crc 80000" cg.txt || { head cg.txt >&2; fail "callgrind: comms_frame -> comms_crc should be 80000 calls"; }
grep -qx "fw_run comms_frame 20000" cg.txt || fail "callgrind: fw_run -> comms_frame should be 20000 calls"
order_with callgrind fw.callgrind

if perf record -g -F 10000 -o fw.perf.data ./fw >/dev/null 2>perf.err; then
  step "perf record -g + perf script"
  perf script -i fw.perf.data >fw.perf 2>/dev/null
  order_with perf fw.perf
  perf_profile=fw.perf
else
  echo "   skipping perf: perf record does not work here ($(tail -1 perf.err))" >&2
  perf_profile=
fi

step "all profiles merged"
order_with merged fw.prf fw.callgrind $perf_profile
grep -q "profiles are normalized to the largest one" merged.txt || fail "the report does not say how profiles were merged"
want=2
[ -z "$perf_profile" ] || want=3
[ "$(grep -c '^  profile ' merged.txt)" -eq "$want" ] || fail "the report lists the wrong number of profiles"

step "--format forces a loader"
if "$lorgen" -q --format prf fw.callgrind fw -o x.lor 2>err.txt; then
  fail "--format prf accepted a callgrind file"
fi
grep -q "fw.callgrind" err.txt || fail "the error does not name the file"
echo "profilers: ok" >&2
