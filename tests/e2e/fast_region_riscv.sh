#!/usr/bin/env bash
# End to end: a fast region on a second architecture, riscv64 under qemu-user. The sources of
# cortex_m.sh's and fast_region.sh's firmware (tests/e2e/cortex_m/), built for the host and
# traced there for the profile, then built for riscv64 (static, glibc) with a script that adds
# an output section .fast_text before .text and INCLUDEs lorgen's fragment in it: the chosen
# code lies in .fast_text and nothing else there (lorgen check), and the relinked program prints
# what the plain one prints. Without the cross compiler or qemu-riscv64 the test is skipped
# (exit 77).
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
fw=$src/tests/e2e/cortex_m
have riscv64-linux-gnu-gcc || { echo "SKIP: riscv64-linux-gnu-gcc is not installed" >&2; exit 77; }
have qemu-riscv64 || { echo "SKIP: qemu-riscv64 is not installed" >&2; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work"
CFLAGS="-O2 -ffunction-sections -fno-builtin -I$fw"
SOURCES="app filter frames host_board"

step "profile on the host"
tracer=$(build_tracer gcc tracer "$src")
mkdir -p prof
for f in $SOURCES; do
  # shellcheck disable=SC2086 # CFLAGS is words on purpose
  gcc $CFLAGS -finstrument-functions -c "$fw/$f.c" -o "prof/$f.o"
done
# shellcheck disable=SC2086 # $tracer is two objects
gcc prof/*.o $tracer -o fw-prof
LGTRACE_OUT=fw.prf ./fw-prof >prof.out

step "riscv64 build, plain, and its run under qemu-riscv64"
mkdir -p rv
for f in $SOURCES; do
  # shellcheck disable=SC2086
  riscv64-linux-gnu-gcc $CFLAGS -c "$fw/$f.c" -o "rv/$f.o"
done
riscv64-linux-gnu-gcc -static rv/*.o -o plain.elf
status=0
timeout 30 qemu-riscv64 ./plain.elf >plain.out || status=$?
[ "$status" -eq 0 ] || fail "the plain riscv64 build exited $status under qemu-riscv64"
cmp -s prof.out plain.out || fail "the riscv64 build printed '$(cat plain.out)', the host '$(cat prof.out)'"

step "lorgen chooses the code for a 512-byte .fast_text"
"$lorgen" fw.prf plain.elf rv/*.o --fast-region .fast_text=512 --fast-include fast.ld \
  -o fw.lor --report fw.txt 2>err.txt || { cat err.txt >&2; fail "lorgen failed"; }
grep -q '^region \.fast_text size=512 budget=512 bytes=[0-9]* functions=[1-9][0-9]*$' fw.lor ||
  { cat err.txt >&2; fail "fw.lor has no member in .fast_text"; }
# The calls between the region and the rest are named; RISC-V has no note on veneers.
grep -q '^  crossing     ' fw.txt || { cat fw.txt >&2; fail "the report names no crossing call"; }
if grep -q '^  Arm: ' fw.txt; then fail "the riscv64 report speaks of Arm veneers"; fi

step "relink with .fast_text before .text, INCLUDEing the fragment"
# The toolchain's own script for -static, with the region's output section added.
riscv64-linux-gnu-gcc -static -Wl,--verbose rv/*.o -o verbose.elf >verbose.txt
awk '/^=====/ { n++; next } n == 1' verbose.txt >default.ld
grep -q '^  \.text  *:' default.ld || fail "the toolchain's script has no .text line"
awk '/^  \.text  *:/ && !done { print "  .fast_text : { INCLUDE fast.ld }"; done = 1 } { print }' \
  default.ld >fast_text.ld
riscv64-linux-gnu-gcc -static -T fast_text.ld rv/*.o -o fast.elf
size=$(riscv64-linux-gnu-size -A fast.elf | awk '$1 == ".fast_text" { print $2 }')
[ -n "$size" ] && [ "$size" -gt 0 ] && [ "$size" -le 512 ] ||
  fail ".fast_text holds ${size:-no} bytes, expected 1 to 512"

step "lorgen check: every member in .fast_text, nothing else there"
n=$(awk '$1 == "region" { print substr($6, 11) }' fw.lor)
"$lorgen" check fw.lor fast.elf rv/*.o >check.txt 2>&1 ||
  { cat check.txt >&2; fail "lorgen check failed on the riscv64 fast link"; }
grep -q "^lorgen check: $n of $n region members lie in their region, 0 other functions lie in one$" check.txt ||
  { cat check.txt >&2; fail "lorgen check did not find the $n members in .fast_text"; }

step "the relinked program prints what the plain one prints"
status=0
timeout 30 qemu-riscv64 ./fast.elf >fast.out || status=$?
[ "$status" -eq 0 ] || fail "the fast riscv64 build exited $status under qemu-riscv64"
cmp -s plain.out fast.out || fail "the fast build printed '$(cat fast.out)', the plain '$(cat plain.out)'"
echo "fast_region_riscv: ok" >&2
