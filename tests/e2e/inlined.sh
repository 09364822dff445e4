#!/usr/bin/env bash
# End to end: a profile from an instrumented build, where GCC reports the calls it inlined as
# calls all the same, ordering the plain build. leaf is inlined into hot_loop (200,000 calls)
# and really called by rare (20 calls, another translation unit): lorgen must see from the
# plain objects' relocations that only those 20 run leaf's own copy, and say so.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
inl=$src/tests/e2e/inlined
rm -rf "$work" && mkdir -p "$work/obj" "$work/prof" && cd "$work"
build_and_trace "$inl" app t.prf "-O2 -ffunction-sections -I$inl" hot rare main

step "the instrumented build reports the inlined calls"
"$lorgen" callgraph t.prf -o cg.txt
grep -qx "hot_loop leaf 200000" cg.txt || { cat cg.txt >&2; fail "the tracer should see 200000 calls hot_loop -> leaf"; }
objdump -dr obj/hot.o | grep -q 'R_X86_64_PLT32[[:space:]]*leaf' &&
  fail "the plain hot_loop calls leaf: the fixture no longer shows inlining"

step "the plain build's objects tell the inlined calls from the real ones"
"$lorgen" t.prf app obj/*.o -o a.lor --ld-script a.ld --report a.txt 2>err.txt
cat err.txt >&2
grep -q "1 of the profiles' 4 call arcs between functions of the ELF" err.txt ||
  fail "no note that one call arc of four was inlined"
grep -q "fn leaf .* hits=20 " a.lor || { grep 'fn ' a.lor >&2; fail "leaf should keep the hits of its 20 real calls"; }
grep -q "hot_loop leaf" <("$lorgen" callgraph t.prf app obj/*.o -o -) &&
  fail "lorgen callgraph with the objects still lists the inlined call"
gcc obj/*.o -Wl,-T,a.ld -o app-ordered
./app-ordered >ordered.out
cmp -s base.out ordered.out || fail "the relinked program prints a different result"

step "without the objects nothing tells: the calls are taken as made"
"$lorgen" -q t.prf app -o b.lor
grep -q "fn leaf .* hits=200020 " b.lor || { grep 'fn ' b.lor >&2; fail "leaf should keep every hit without objects"; }
echo "ok" >&2
