#!/usr/bin/env bash
# End to end: a profile in which every count is 0 (what a crashed or empty profiling run leaves)
# is refused when it is the only one, and said in a warning that -q keeps when others are given:
# it must not quietly give a script that orders nothing.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
rm -rf "$work" && mkdir -p "$work" && cd "$work"
cat >app.c <<'C'
#include <stdio.h>
__attribute__((noinline)) int leaf(int x) { return x * 3 + 1; }
int main(void) { int a = 0; for (int i = 0; i < 10; i++) a += leaf(i); printf("%d\n", a); return 0; }
C
gcc -O2 -ffunction-sections app.c -o app
profile() { # FILE COST: a callgrind profile of main calling leaf, every cost COST
  printf '# callgrind format\nversion: 1\ncreator: empty_profile.sh\nevents: Ir\n' >"$1"
  printf 'fn=main\n0 %s\ncfn=leaf\ncalls=%s 0\n0 %s\nfn=leaf\n0 %s\n' "$2" "$2" "$2" "$2" >>"$1"
}
profile empty.cg 0
profile real.cg 10

step "the only profile holds no cost: refused, exit 1, no output"
expect 1 "empty.cg: error: expected a profile with some cost, found none in it" -- -q empty.cg app -o a.lor --ld-script a.ld
[ ! -e a.lor ] && [ ! -e a.ld ] || fail "an output was written for a profile without cost"
expect 1 "expected a profile with some cost" -- callgraph empty.cg -o cg.txt
[ ! -e cg.txt ] || fail "callgraph wrote an output for a profile without cost"

step "one of two profiles holds no cost: a warning that -q keeps, and the order from the other"
expect 0 "empty.cg: warning: the profile holds no cost" -- -q empty.cg real.cg app -o b.lor
grep -q "fn leaf .*hits=10 " b.lor || { cat b.lor >&2; fail "leaf should be ordered from real.cg"; }
echo "ok" >&2
