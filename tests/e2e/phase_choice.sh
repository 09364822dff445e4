#!/usr/bin/env bash
# End to end: lorgen chooses a function's phase in the cache line from a real callgrind profile
# with jumps, and the choice is the one cachegrind says misses less. ph_loop (phase_choice/loop.S, written
# in assembly so that the offsets are fixed) is larger than a way of a 256-byte direct-mapped
# cache and runs a loop whose two halves share a set at phase 0 and not at phase 16. The test
# profiles it with callgrind --dump-instr=yes --collect-jumps=yes, checks that lorgen gives it
# phase=16 (and nothing with --no-phase), links the order with GNU ld and reads the address
# back, then links both phases and has cachegrind count the misses of each.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
phc=$src/tests/e2e/phase_choice
rm -rf "$work" && mkdir -p "$work" && cd "$work"

if [ "$(uname -m)" != x86_64 ]; then
  echo "phase_choice/loop.S is x86-64 assembly; this machine is $(uname -m): skipped" >&2
  exit 77
fi
command -v valgrind >/dev/null || fail "valgrind is needed (scripts/setup.sh installs it)"

# misses_of ELF: cachegrind's I1 misses of one run in the 256-byte cache.
misses_of() {
  valgrind --tool=cachegrind --cache-sim=yes --I1=256,1,32 --D1=32768,8,64 --LL=8388608,16,64 \
    --cachegrind-out-file=/dev/null "./$1" 2>&1 >/dev/null | awk '/I1  misses:/ { gsub(",", "", $4); print $4 }'
}

# phase_of ELF: ph_loop's address modulo the 32-byte line.
phase_of() {
  local at
  at=$(nm "$1" | awk '$3 == "ph_loop" { print $1 }')
  [ -n "$at" ] || fail "$1: no symbol ph_loop"
  echo $((16#$at % 32))
}

step "a hosted program with ph_loop, profiled by callgrind with jumps"
mkdir -p obj
gcc -O2 -ffunction-sections -c "$phc/main.c" -o obj/main.o
gcc -c "$phc/loop.S" -o obj/loop.o
gcc obj/*.o -o phc
./phc >base.out
[ "$(cat base.out)" = 200000 ] || fail "phc printed '$(cat base.out)', expected 200000"
valgrind --tool=callgrind --dump-instr=yes --collect-jumps=yes --callgrind-out-file=phc.cg \
  ./phc >/dev/null 2>callgrind.err || { cat callgrind.err >&2; fail "callgrind failed"; }
grep -q '^jcnd=' phc.cg || fail "phc.cg has no jcnd= lines: jumps were not collected"

step "lorgen chooses phase 16 for ph_loop in a 256-byte cache"
"$lorgen" --cache-size 256 --line-size 32 --ways 1 phc.cg phc obj/*.o -o phc.lor \
  --ld-script phc.ld 2>lorgen.err
grep -q "note: 1 function(s) as large as a cache way start where in the cache line" lorgen.err ||
  { cat lorgen.err >&2; fail "no note about the phase chosen"; }
grep -q '^  fn ph_loop size=290 hits=[0-9]* phase=16 ' phc.lor ||
  { cat phc.lor >&2; fail "phc.lor does not give ph_loop phase=16"; }
"$lorgen" -q --no-phase --cache-size 256 --line-size 32 --ways 1 phc.cg phc obj/*.o -o nophase.lor
! grep -q 'phase=' nophase.lor || fail "--no-phase still wrote a phase"

step "GNU ld puts it there, and the program still works"
gcc obj/*.o -Wl,-T,phc.ld -o phc-ordered
./phc-ordered >ordered.out
cmp -s base.out ordered.out || fail "the ordered program printed something else"
[ "$(phase_of phc-ordered)" = 16 ] || fail "ph_loop at phase $(phase_of phc-ordered), expected 16"

step "cachegrind: phase 16 misses less than phase 0"
sed 's/ phase=16 / phase=0 /' phc.lor >phase0.lor
for p in 0 16; do
  lor=phc.lor
  [ "$p" = 0 ] && lor=phase0.lor
  "$lorgen" -q script "$lor" phc obj/*.o --ld-script "p$p.ld"
  gcc obj/*.o -Wl,-T,"p$p.ld" -o "phc-p$p"
  [ "$(phase_of "phc-p$p")" = "$p" ] || fail "phc-p$p: ph_loop at phase $(phase_of "phc-p$p")"
  ./"phc-p$p" | cmp -s base.out - || fail "phc-p$p printed something else"
done
m0=$(misses_of phc-p0)
m16=$(misses_of phc-p16)
echo "   I1 misses, 256 B direct-mapped: phase 0 $m0, phase 16 $m16" >&2
[ -n "$m0" ] && [ -n "$m16" ] || fail "cachegrind gave no I1 misses"
# Two misses a turn at phase 0 (200,000 turns), a few at 16: far apart, whatever the start-up.
[ "$m16" -lt $((m0 / 2)) ] || fail "phase 16 missed $m16 times, phase 0 $m0: not the better one"
echo "phase_choice: ok" >&2
