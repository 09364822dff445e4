#!/usr/bin/env bash
# End to end: a statistical CodeScape profile (hits, no calls) orders functions by hotness
# alone, and lorgen says so; the relinked program has them in that order.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
gen=$(dirname "$lorgen")/tests/lg_gen_prf
[ -x "$gen" ] || fail "$gen is missing (built with the tests)"
rm -rf "$work" && mkdir -p "$work" && cd "$work"

awk 'BEGIN {
  for (i = 0; i < 300; i++)
    printf "__attribute__((noinline)) int f%d(int x) { return x * %d + (x >> %d); }\n", i, i + 3, i % 5
  printf "int main(int argc, char **argv) { (void)argv; int r = 0;\n"
  for (i = 0; i < 300; i++) printf "  r += f%d(argc);\n", i
  printf "  return r & 1; }\n"
}' >prog.c
gcc -O2 -ffunction-sections -c prog.c -o prog.o
gcc prog.o -o prog
"$gen" 300 20000 7 stat.prf statistical

step "statistical profile: hotness only, and lorgen says so (the cliques pass groups by hits)"
"$lorgen" --algorithm cliques stat.prf prog prog.o -o stat.lor --ld-script stat.ld \
  --report stat.txt 2>err.txt
grep -q "stat.prf: note: statistical profile without call information" err.txt ||
  { cat err.txt >&2; fail "no note about the missing call information"; }
grep -q "^clique 1 .* uncalled" stat.lor || fail "cliques are not marked as grouped by hotness"
grep -q "note: the profiles have no call information" stat.txt || fail "the report does not say it"
# Within the order, hits never increase from one function to the next.
awk '$1 == "fn" { split($4, h, "="); if (seen && h[2] + 0 > last) bad = 1; last = h[2] + 0; seen = 1 }
     END { exit bad }' stat.lor || fail "functions are not in descending hotness"

step "relink and read back"
gcc prog.o -Wl,-T,stat.ld -o prog-ordered
# main returns r & 1, so either status is right, as long as both programs agree (a crash gives
# 128 + the signal).
set +e
./prog; before=$?
./prog-ordered; after=$?
set -e
[ "$before" -le 1 ] || fail "the original program failed with status $before"
[ "$after" -eq "$before" ] || fail "the relinked program exits $after, the original $before"
check_order prog-ordered nm stat.lor
echo "statistical: ok" >&2
