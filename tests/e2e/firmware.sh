#!/usr/bin/env bash
# End to end: profile the firmware on the host with the example tracer, order it with lorgen,
# relink it on the host with the INSERT script (with and without object files) and for SH-4,
# ARM and RISC-V through a board linker script that INCLUDEs the fragment; read every linked
# ELF back and check the order, the entry point, the program output and byte-identical reruns.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
fw=$src/tests/e2e/control_loop
rm -rf "$work" && mkdir -p "$work" && cd "$work"
CFLAGS="-O2 -ffunction-sections -fno-tree-loop-distribute-patterns -I$fw"
FW="sensor control comms faults run"

step "profile on the host"
tracer=$(build_tracer gcc tracer "$src")
mkdir -p prof host
for f in $FW host_main; do gcc $CFLAGS -finstrument-functions -c "$fw/$f.c" -o "prof/$f.o"; done
gcc prof/*.o $tracer -o fw-prof
LGTRACE_OUT=fw.prf ./fw-prof >prof.out
[ -s fw.prf ] || fail "the tracer wrote no profile"

step "host build, lorgen, relink with the INSERT script"
for f in $FW host_main; do gcc $CFLAGS -c "$fw/$f.c" -o "host/$f.o"; done
gcc host/*.o -o fw-host
./fw-host >base.out
cmp -s prof.out base.out || fail "instrumented and plain builds print different results"
"$lorgen" fw.prf fw-host host/*.o -o fw.lor --ld-script fw.ld --ld-include order.ld --report fw.txt
grep -q '^clique 1 ' fw.lor || fail "fw.lor has no clique"
grep -q 'section=.text.unlikely.fault_recover' fw.lor ||
  fail "the cold-attributed function's real section (.text.unlikely.*) is not in fw.lor"
grep -q '\*sensor.o(.text.mix)' fw.ld || fail "same-named statics are not qualified by object"
gcc host/*.o -Wl,-T,fw.ld -o fw-relinked
./fw-relinked >relinked.out
cmp -s base.out relinked.out || fail "the relinked program prints a different result"
check_order fw-relinked nm fw.lor

step "--perturb: one seed gives one layout in every run, another seed another"
"$lorgen" --perturb 1 fw.prf fw-host host/*.o -o p1.lor 2>p1.err
grep -q "warning: --perturb 1: every profile weight was multiplied" p1.err ||
  { cat p1.err >&2; fail "--perturb does not warn"; }
"$lorgen" -q --perturb 1 fw.prf fw-host host/*.o -o p1-again.lor
"$lorgen" -q --perturb 2 fw.prf fw-host host/*.o -o p2.lor
cmp -s p1.lor p1-again.lor || fail "--perturb 1 gave two different layouts"
cmp -s p1.lor p2.lor && fail "--perturb 1 and 2 gave the same .LOR"
"$lorgen" -q fw.prf fw-host host/*.o -o p0.lor
cmp -s p0.lor p1.lor && fail "--perturb 1 changed nothing"

step "lorgen eval estimates the ELF's order and the proposed one"
"$lorgen" eval -q fw.prf fw-host host/*.o >eval.txt
grep -q '^ELF (current) ' eval.txt || fail "eval printed no row for the current order"
grep -q '^chains ' eval.txt || fail "eval printed no row for the proposed order (the default, chains)"
"$lorgen" eval -q --lor fw.lor fw.prf fw-host host/*.o | grep -q '^fw.lor ' ||
  fail "eval --lor printed no row for the .LOR"
grep -q 'estimated misses, ELF -> new' fw.txt || fail "the report has no miss estimate"

step "same inputs, byte-identical outputs"
"$lorgen" fw.prf fw-host host/*.o -o again.lor --ld-script again.ld --report again.txt
cmp fw.lor again.lor && cmp fw.ld again.ld && cmp fw.txt again.txt

step "lorgen script reads the .LOR back and writes the same scripts"
"$lorgen" script fw.lor fw-host host/*.o --ld-script script.ld --ld-include script-order.ld
cmp fw.ld script.ld && cmp order.ld script-order.ld

if have ld.lld; then
  step "lorgen callgraph feeds lld's --call-graph-ordering-file without a warning"
  "$lorgen" callgraph fw.prf fw-host -o fw.cg
  [ "$(head -1 fw.cg)" = "comms_frame comms_crc 80000" ] || fail "unexpected heaviest edge: $(head -1 fw.cg)"
  gcc -fuse-ld=lld host/*.o -Wl,--call-graph-ordering-file=fw.cg -o fw-lld 2>lld.err
  [ ! -s lld.err ] || { cat lld.err >&2; fail "lld warned about the call graph"; }
  ./fw-lld >lld.out
  cmp -s base.out lld.out || fail "the lld-linked program prints a different result"
fi

step "linked ELF only: sections inferred, every GCC prefix matched"
"$lorgen" fw.prf fw-host -o inferred.lor --ld-script inferred.ld
grep -q '.text.unlikely.fault_recover' inferred.ld || fail "inferred patterns lack prefixes"
gcc host/*.o -Wl,-T,inferred.ld -o fw-inferred
./fw-inferred >inferred.out
cmp -s base.out inferred.out || fail "the relinked program prints a different result"
# Same-named statics move together when nothing tells them apart: check the rest of the order.
check_order fw-inferred nm inferred.lor mix
grep -q ' mix .*source=sensor.c' inferred.lor || fail "statics do not carry their source file"
"$lorgen" script inferred.lor fw-host --ld-script inferred-again.ld
cmp inferred.ld inferred-again.ld

for triple in sh4-linux-gnu arm-none-eabi riscv64-linux-gnu; do
  if ! have "$triple-gcc"; then
    echo "   skipping $triple: $triple-gcc is not installed" >&2
    continue
  fi
  step "$triple: board script with INCLUDE"
  flags=""
  case $triple in
    arm-none-eabi) flags="-mthumb -mcpu=cortex-m4" ;;
    riscv64-linux-gnu) flags="-mcmodel=medany" ;;
  esac
  mkdir -p "$triple"
  for f in $FW start; do
    "$triple-gcc" $CFLAGS $flags -ffreestanding -fno-builtin -c "$fw/$f.c" -o "$triple/$f.o"
  done
  "$lorgen" fw.prf "$triple"/*.o -o "$triple/fw.lor" --ld-include "$triple/order.ld" \
    --report "$triple/fw.txt"
  # Linked from inside $triple: GNU ld looks for an INCLUDEd file in the current directory
  # before the -L paths, and the host's order.ld is in this one.
  (cd "$triple" && "$triple-gcc" $flags -nostdlib -nostartfiles -static -L. -T "$fw/board.ld" \
    -Wl,--build-id=none -Wl,--no-warn-rwx-segments ./*.o -lgcc -o fw.elf)
  check_order "$triple/fw.elf" "$triple-nm" "$triple/fw.lor"
  start=$("$triple-nm" "$triple/fw.elf" | awk '$3 == "_start" { print $1 }')
  [ "$((16#$start))" -eq $((0x10000)) ] || fail "$triple: _start moved to 0x$start"
done
echo "firmware: ok" >&2
