#!/usr/bin/env bash
# End to end: calls the linker or the loader sends to another function than the one the caller's
# code names (--wrap, symbol versions, IFUNCs, glibc's IFUNC memcpy in a static program) run
# out of line, and a profile of them must keep them hot, not take them as calls the build
# inlined (src/bind/calls.h). A hot function that the objects do say was inlined everywhere
# goes cold, and a note names it.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
fix=$src/tests/e2e/redirect
rm -rf "$work" && mkdir -p "$work/obj" "$work/prof" && cd "$work"

step "build plain and instrumented, both linked with --wrap=work, and trace"
for f in main lib ifunc helpers; do
  gcc -O2 -ffunction-sections -I"$fix" -c "$fix/$f.c" -o "obj/$f.o"
  gcc -O2 -ffunction-sections -finstrument-functions -I"$fix" -c "$fix/$f.c" -o "prof/$f.o"
done
gcc obj/*.o -Wl,--wrap=work -o app
./app >base.out
tracer=$(build_tracer gcc tracer "$src")
# shellcheck disable=SC2086 # $tracer is two objects
gcc prof/*.o $tracer -Wl,--wrap=work -o app-prof
LGTRACE_OUT=t.prf ./app-prof >prof.out
cmp -s base.out prof.out || fail "the instrumented program prints another result"
"$lorgen" callgraph t.prf -o cg.txt
for arc in "main __wrap_work 3001" "__wrap_work work 3001" "main vfoo@@V2 1001" \
  "main vbar@@V1 1001" "main sum_fast 2001" "spin twice 40000"; do
  grep -qx "$arc" cg.txt || { cat cg.txt >&2; fail "the tracer should see '$arc'"; }
done
objdump -dr obj/helpers.o | grep -q 'R_X86_64_PLT32[[:space:]]*twice' &&
  fail "the plain spin calls twice: the fixture no longer shows inlining"

step "the redirected calls keep their callees hot, also under -q"
"$lorgen" -q t.prf app obj/*.o -o a.lor --ld-script a.ld 2>err.txt
cat err.txt >&2
# Cliques come before the 'cold' line; every redirected callee must be in one, with its hits.
awk '$1 == "cold" { exit } $1 == "fn" { print $2, $4 }' a.lor >hot.txt
for want in "__wrap_work hits=3001" "work hits=3001" "vfoo@@V2 hits=1001" "vbar@@V1 hits=1001" \
  "sum_fast hits=2001"; do
  grep -qx "$want" hot.txt || { cat a.lor >&2; fail "expected '$want' in a clique"; }
done

step "a hot function inlined at every call in its own object goes cold, with a note"
grep -q "never-executed" err.txt && fail "-q shows the note on a function the objects show inlined"
"$lorgen" t.prf app obj/*.o -o n.lor 2>err-n.txt
grep -q "note: .*go among the never-executed code.*the hottest 'twice' (40000 hits)" err-n.txt ||
  { cat err-n.txt >&2; fail "no note that twice (40000 hits) was taken as inlined everywhere"; }
grep -q "^twice " hot.txt && fail "twice is inlined at every call: it should not be in a clique"

step "the relinked program runs, in the .LOR's order"
gcc obj/*.o -Wl,--wrap=work -Wl,-T,a.ld -o app-ordered
./app-ordered >ordered.out
cmp -s base.out ordered.out || fail "the relinked program prints a different result"
# lorgen check, not check_order: vfoo_v2 and vbar_v1 are aliases of the versioned names.
"$lorgen" check a.lor app-ordered obj/*.o >check.txt 2>&1 || { cat check.txt >&2; fail "lorgen check"; }

step "a .LOR that names a function by its alias (its defining name) is read"
sed 's/^  fn vfoo@@V2 /  fn vfoo_v2 /' a.lor >alias.lor
grep -q "fn vfoo_v2 " alias.lor || fail "the edit did not take"
"$lorgen" script alias.lor app obj/*.o --ld-script alias.ld 2>err.txt || { cat err.txt >&2; fail "lorgen script refused an alias"; }
grep -q "note: function 'vfoo_v2' is an alias of 'vfoo@@V2'" err.txt || { cat err.txt >&2; fail "no note on the alias"; }
cmp -s a.ld alias.ld || fail "naming a function by its alias changed the script"

step "a static program: glibc's IFUNC memcpy, profiled by callgrind, is no inlined call"
if ! have valgrind; then
  echo "SKIP: valgrind is not installed" >&2
  exit 77
fi
gcc -static obj/*.o -Wl,--wrap=work -o app-static
valgrind --tool=callgrind --callgrind-out-file=cg.out ./app-static >static.out 2>vg.txt ||
  { cat vg.txt >&2; fail "callgrind failed"; }
cmp -s base.out static.out || fail "the static program prints another result"
"$lorgen" callgraph cg.out -o cg-all.txt
grep -qE '^main __mem(cpy|move)[_a-z0-9]* 700$' cg-all.txt ||
  { grep '^main ' cg-all.txt >&2; fail "callgrind should see main call glibc's memcpy 700 times"; }
"$lorgen" callgraph cg.out app-static obj/*.o -o cg-bound.txt 2>err.txt
grep -qE '^main __mem(cpy|move)[_a-z0-9]* 700$' cg-bound.txt ||
  { cat err.txt >&2; grep '^main ' cg-bound.txt >&2; fail "with the objects the memcpy call was dropped as inlined"; }
echo "ok" >&2
