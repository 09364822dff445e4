#!/usr/bin/env bash
# End to end on the demo program: profile it with the example tracer, run lorgen, relink with the
# INSERT script, and check the output and the order in the linked ELF, on the host and for SH-4
# (built static, profiled and run under qemu-user).
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
rm -rf "$work" && mkdir -p "$work"
# run_target NAME CC LDFLAGS NM RUNNER ARGS...
# Under qemu-user every traced call reads the clock through an emulated system call, so the
# emulated targets run a much smaller workload.
run_target() {
  local name=$1 cc=$2 ldflags=$3 nm=$4 runner=$5
  shift 5
  local args=("$@")
  local out=$work/$name
  step "$name: build and profile"
  make -s -C "$src/examples/demo" OUT="$out" CC="$cc" LDFLAGS="$ldflags" RUN="$runner" \
    RUN_ARGS="${args[*]}" all run >/dev/null
  [ -s "$out/trace.prf" ] || fail "$name: no profile written"
  step "$name: lorgen and relink"
  (cd "$out" && "$lorgen" -q trace.prf demo normal/*.o -o demo.lor --ld-script demo.ld \
    --report demo.txt)
  make -s -C "$src/examples/demo" OUT="$out" CC="$cc" LDFLAGS="$ldflags" relink \
    LDSCRIPT="$out/demo.ld" >/dev/null
  (cd "$out" && $runner ./demo "${args[@]}" >before.out && $runner ./demo-ordered "${args[@]}" >after.out)
  cmp -s "$out/before.out" "$out/after.out" || fail "$name: relinked demo prints differently"
  cmp -s "$out/before.out" "$out/demo-prof.out" || fail "$name: profiled demo prints differently"
  check_order "$out/demo-ordered" "$nm" "$out/demo.lor"
  [ "$(grep -c '^clique ' "$out/demo.lor")" -ge 2 ] || fail "$name: expected several cliques"
}

run_target host gcc "" nm "" -r 5 -n 200 -s 7

# The same run as a timeline (the tracer writing a winIDEA Text1 export with a v1.1 .BIN): the
# calls the timeline reader counts must be exactly those of the .prf's calling-context tree.
step "host: timeline of the same run"
out=$work/host
make -s -C "$src/examples/demo" OUT="$out" RUN_ARGS="-r 5 -n 200 -s 7" TIMELINE=timeline.txt \
  run >/dev/null
[ -s "$out/timeline.txt" ] && [ -s "$out/timeline.txt.BIN" ] || fail "host: no timeline written"
(cd "$out" && "$lorgen" callgraph -q trace.prf demo normal/*.o -o from-prf.cg &&
  "$lorgen" callgraph -q timeline.txt demo normal/*.o -o from-timeline.cg)
cmp -s "$out/from-prf.cg" "$out/from-timeline.cg" ||
  fail "host: the timeline and the .prf of one run give different call graphs"
(cd "$out" && "$lorgen" -q timeline.txt demo normal/*.o -o timeline.lor --ld-script timeline.ld)
make -s -C "$src/examples/demo" OUT="$out" relink LDSCRIPT="$out/timeline.ld" >/dev/null
(cd "$out" && ./demo-ordered -r 5 -n 200 -s 7 >timeline-after.out)
cmp -s "$out/before.out" "$out/timeline-after.out" ||
  fail "host: demo relinked from the timeline prints differently"
check_order "$out/demo-ordered" nm "$out/timeline.lor"
if have riscv64-linux-gnu-gcc && have qemu-riscv64; then
  run_target riscv64 riscv64-linux-gnu-gcc -static riscv64-linux-gnu-nm qemu-riscv64 -r 1 -n 10 -s 7
else
  echo "   skipping RISC-V: riscv64-linux-gnu-gcc or qemu-riscv64 missing" >&2
fi

# SH-4: Debian's SH-4 libc.a hangs before main under qemu-sh4, so the SH-4 build is not run.
# It is ordered with the host profile (the same source gives the same function names), linked
# with the INSERT script, and read back.
if have sh4-linux-gnu-gcc; then
  step "sh4: order with the host profile, link, read back"
  out=$work/sh4
  make -s -C "$src/examples/demo" OUT="$out" CC=sh4-linux-gnu-gcc LDFLAGS=-static \
    "$out/demo" >/dev/null
  (cd "$out" && "$lorgen" -q "$work/host/trace.prf" demo normal/*.o -o demo.lor \
    --ld-script demo.ld)
  make -s -C "$src/examples/demo" OUT="$out" CC=sh4-linux-gnu-gcc LDFLAGS=-static relink \
    LDSCRIPT="$out/demo.ld" >/dev/null
  check_order "$out/demo-ordered" sh4-linux-gnu-nm "$out/demo.lor"
else
  echo "   skipping SH-4: sh4-linux-gnu-gcc missing" >&2
fi
echo "demo: ok" >&2
