#!/usr/bin/env bash
# End to end: code that only an untyped, sizeless assembly label names (callgrind names it by its
# address) binds to that label, which ends where the next symbol starts; its costs land in it;
# it is never blamed on another build; and with the other function of its section it is a fixed
# group (optimizer/groups.h) that is ordered, linked and checked as one.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
fix=$src/tests/e2e/asm_label
have valgrind || { echo "SKIP: valgrind is not installed" >&2; exit 77; }
rm -rf "$work" && mkdir -p "$work/obj" && cd "$work"
gcc -O2 -ffunction-sections -c "$fix/main.c" -o obj/main.o
gcc -c "$fix/loop.S" -o obj/loop.o
readelf -s obj/loop.o | grep -q 'NOTYPE  GLOBAL DEFAULT .* asm_sum_loop$' ||
  fail "the fixture's asm_sum_loop should be an untyped symbol"

for link in static pie; do
  step "$link link, profiled by callgrind"
  if [ $link = static ]; then flag=-static; else flag=-pie; fi
  gcc $flag obj/*.o -o app
  ./app >base.out
  valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=cg.out ./app >cg.stdout 2>vg.txt ||
    { cat vg.txt >&2; fail "callgrind failed"; }
  cmp -s base.out cg.stdout || fail "the program under callgrind printed another result"
  grep -qE '^fn=\([0-9]+\) 0x[0-9a-f]+$' cg.out || fail "callgrind should name the label by its address"
  "$lorgen" cg.out app obj/*.o -o a.lor --ld-script a.ld --report a.txt 2>err.txt || { cat err.txt >&2; fail "lorgen failed"; }
  grep -q "main -> asm_sum_loop .* 2999" a.txt || { cat a.txt >&2; fail "the call to asm_sum_loop is not bound by address"; }
  # asm_sum_loop and asm_other share loop.o's .text: a fixed group, ordered as one.
  awk '$1 == "cold" { exit } $1 == "fn" { print $2 }' a.lor >hot.txt
  grep -A1 -x asm_sum_loop hot.txt | grep -qx asm_other ||
    { cat a.lor >&2; fail "asm_sum_loop and asm_other should be ordered together, as a group"; }
  if [ $link = static ]; then flag=-static; else flag=-pie; fi
  gcc $flag obj/*.o -Wl,-T,a.ld -o app-ordered
  ./app-ordered >ordered.out
  cmp -s base.out ordered.out || fail "the relinked program prints a different result"
  "$lorgen" check a.lor app-ordered obj/*.o >check.txt 2>&1 || { cat check.txt >&2; fail "lorgen check"; }
  grep -q "0x0000" a.txt && grep "0x0000" a.txt | grep -q "another build" &&
    fail "an address-named function is blamed on another build"
  # The loop's cost (about 4.5 million instructions) lands inside the label's range.
  if grep -q "per-position costs" err.txt; then
    cost=$(sed -n 's/.*per-position costs (cost \([0-9]*\)) were not used.*/\1/p' err.txt)
    [ "${cost:-0}" -lt 1000000 ] || { cat err.txt >&2; fail "the loop's per-position cost was not used"; }
  fi
done
echo "ok" >&2
